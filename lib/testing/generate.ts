import type {
  AssistantContent,
  CompactionEntry,
  EntryId,
  MessageEntry,
  SessionEntry,
  ToolCallPart,
  Usage,
} from '@/lib/session/types';

/**
 * Deterministic synthetic sessions for benchmarks and property tests: a
 * seeded PRNG drives a coding-agent-like conversation (prompts, replies with
 * markdown and code, thinking, tool calls with JSON arguments, tool results
 * that are source listings, logs, JSON and diffs, a little non-English text).
 * The same seed always yields the same session, byte for byte.
 */

/** mulberry32: tiny, fast, good enough for test data. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = mulberry32(seed);
  }
  next(): number {
    return this.r();
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[Math.floor(this.r() * arr.length)]!;
  }
  /** Roughly log-normal sizes: many small, a few large. */
  skewed(median: number, spread = 1): number {
    const u = Math.max(1e-9, this.r());
    const v = this.r();
    const gauss = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.max(1, Math.round(median * Math.exp(gauss * spread * 0.6)));
  }
  id(len = 12): string {
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let s = '';
    for (let i = 0; i < len; i++) s += abc[Math.floor(this.r() * abc.length)];
    return s;
  }
}

const WORDS = (
  'the a to of and in is that it for on with as this be are by we can not or from have but at which you an if will ' +
  'function value file error session entry token context model summary branch tree path leaf parent child user assistant ' +
  'message request response stream worker cache index prefix count window budget compaction cut point turn tool result ' +
  'call argument string number object array type interface module import export default return const let await async ' +
  'promise update state render component hook effect query store database transaction schema version migration test ' +
  'assert expect fixture bench throughput latency median percentile memory allocation buffer offset length header ' +
  'image width height pixel tile format encoding decode parse serialize validate normalize config setting option flag ' +
  'should would could might probably actually however because therefore instead otherwise although whether unless ' +
  'first second next last then again still already only also just even really quite rather very much more less ' +
  'check look read write edit create delete move rename fix change keep drop add remove replace handle ignore skip ' +
  'small large fast slow simple complex correct wrong empty full stale fresh valid invalid exact approximate'
).split(' ');

const IDENT_PARTS = (
  'get set is has build make load save find count parse read write update create delete handle on to from with ' +
  'session entry token path tree node leaf index cache store worker message summary context window budget model ' +
  'prefix suffix cut point range item list map key value id name type kind state result error options config'
).split(' ');

const NON_ENGLISH = [
  'Können Sie das bitte noch einmal überprüfen? Die Größe stimmt nicht.',
  'Ça ne marche pas très bien avec les fichiers déjà compressés.',
  '这个函数的返回值不正确，请检查一下上下文窗口的大小。',
  'このセッションは長すぎるので、要約してください。',
  'Спасибо, теперь всё работает как надо.',
  '¿Por qué el contador de tokens muestra un número tan grande?',
  'Looks good 👍 ship it 🚀',
];

const EXTS = ['ts', 'tsx', 'py', 'md', 'json', 'rs', 'go', 'css'];
const DIRS = ['src', 'lib', 'app', 'packages/core/src', 'tests', 'scripts', 'docs', 'components/session'];
const TOOLS = ['read', 'bash', 'edit', 'write', 'grep', 'ls'] as const;

export function sentence(r: Rng, min = 6, max = 22): string {
  const n = r.int(min, max);
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(r.pick(WORDS));
  if (r.chance(0.3)) w.splice(r.int(0, w.length), 0, `\`${ident(r)}\``);
  if (r.chance(0.15)) w.splice(r.int(0, w.length), 0, String(r.int(0, 99999)));
  const s = w.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + r.pick(['.', '.', '.', '?', '!', ':']);
}

function paragraph(r: Rng, sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(sentence(r));
  return out.join(' ');
}

function ident(r: Rng): string {
  const n = r.int(1, 3);
  let s = r.pick(IDENT_PARTS);
  for (let i = 1; i < n; i++) {
    const p = r.pick(IDENT_PARTS);
    s += p[0]!.toUpperCase() + p.slice(1);
  }
  return s;
}

export function filePath(r: Rng): string {
  return `${r.pick(DIRS)}/${ident(r)}.${r.pick(EXTS)}`;
}

function codeLine(r: Rng, indent: number): string {
  const pad = '  '.repeat(indent);
  switch (r.int(0, 7)) {
    case 0:
      return `${pad}const ${ident(r)} = ${ident(r)}(${ident(r)}, ${r.int(0, 4096)});`;
    case 1:
      return `${pad}if (${ident(r)}.${ident(r)} >= ${ident(r)}) return ${r.pick(['null', 'undefined', 'true', 'false', '[]', '-1'])};`;
    case 2:
      return `${pad}for (let i = 0; i < ${ident(r)}.length; i++) ${ident(r)}[i] = ${ident(r)}[i + 1] ?? 0;`;
    case 3:
      return `${pad}// ${sentence(r, 4, 12)}`;
    case 4:
      return `${pad}export function ${ident(r)}(${ident(r)}: ${r.pick(['string', 'number', 'SessionEntry', 'Map<string, number>'])}): ${r.pick(['void', 'number', 'string[]', 'Promise<void>'])} {`;
    case 5:
      return `${pad}await this.${ident(r)}.${ident(r)}({ ${ident(r)}: ${r.int(1, 100)}, ${ident(r)}: '${r.pick(WORDS)}' });`;
    case 6:
      return `${pad}throw new Error(\`${sentence(r, 3, 8)} \${${ident(r)}}\`);`;
    default:
      return `${pad}}`;
  }
}

function codeBlock(r: Rng, lines: number): string {
  const out: string[] = [];
  let indent = 0;
  for (let i = 0; i < lines; i++) {
    out.push(codeLine(r, indent));
    indent = Math.max(0, Math.min(4, indent + r.int(-1, 1)));
  }
  return out.join('\n');
}

function logOutput(r: Rng, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const t = `2026-01-${String(r.int(1, 28)).padStart(2, '0')}T${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}.${r.int(100, 999)}Z`;
    out.push(`${t} ${r.pick(['INFO', 'WARN', 'DEBUG', 'ERROR'])} [${ident(r)}] ${sentence(r, 4, 14)}`);
  }
  return out.join('\n');
}

function lsOutput(r: Rng, lines: number): string {
  const out: string[] = [`total ${r.int(8, 900)}`];
  for (let i = 0; i < lines; i++) {
    out.push(`-rw-r--r--  1 dev  staff  ${String(r.int(80, 99999)).padStart(6)} Jan ${String(r.int(1, 28)).padStart(2)} ${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')} ${ident(r)}.${r.pick(EXTS)}`);
  }
  return out.join('\n');
}

function jsonOutput(r: Rng, items: number): string {
  const arr = [];
  for (let i = 0; i < items; i++) {
    arr.push({ id: r.id(8), [ident(r)]: r.int(0, 1e6), name: ident(r), ok: r.chance(0.8), tags: [r.pick(WORDS), r.pick(WORDS)], note: sentence(r, 3, 9) });
  }
  return JSON.stringify(arr, null, r.chance(0.5) ? 2 : undefined);
}

function diffOutput(r: Rng, hunks: number): string {
  const out: string[] = [];
  for (let h = 0; h < hunks; h++) {
    const at = r.int(1, 400);
    out.push(`@@ -${at},7 +${at},8 @@`);
    for (let i = 0; i < 7; i++) out.push(`${r.pick([' ', ' ', ' ', '-', '+'])}${codeLine(r, r.int(0, 3))}`);
  }
  return `--- a/${filePath(r)}\n+++ b/${filePath(r)}\n${out.join('\n')}`;
}

export function userText(r: Rng): string {
  if (r.chance(0.05)) return r.pick(NON_ENGLISH);
  const parts = [paragraph(r, r.int(1, 4))];
  if (r.chance(0.25)) parts.push('```\n' + logOutput(r, r.int(2, 12)) + '\n```');
  if (r.chance(0.2)) parts.push(`See ${filePath(r)} and ${filePath(r)}.`);
  return parts.join('\n\n');
}

export function assistantText(r: Rng): string {
  const parts: string[] = [];
  const n = r.int(1, 3);
  for (let i = 0; i < n; i++) {
    const kind = r.int(0, 5);
    if (kind <= 2) parts.push(paragraph(r, r.int(1, 4)));
    else if (kind === 3) parts.push(Array.from({ length: r.int(2, 6) }, () => `- ${sentence(r, 4, 14)}`).join('\n'));
    else if (kind === 4) parts.push('```ts\n' + codeBlock(r, r.int(3, 14)) + '\n```');
    else parts.push(`## ${sentence(r, 2, 6).slice(0, -1)}\n\n${paragraph(r, 2)}`);
  }
  return parts.join('\n\n');
}

export function toolCall(r: Rng): ToolCallPart {
  const name = r.pick(TOOLS);
  const args: Record<string, unknown> =
    name === 'bash'
      ? { command: `cd /home/dev/project && ${r.pick(['npm test', 'git status', 'ls -la', 'grep -rn', 'npx tsc --noEmit', 'cat'])} ${filePath(r)}` }
      : name === 'edit'
        ? { path: filePath(r), oldText: codeBlock(r, r.int(1, 4)), newText: codeBlock(r, r.int(1, 5)) }
        : name === 'write'
          ? { path: filePath(r), content: codeBlock(r, r.int(3, 14)) }
          : name === 'grep'
            ? { pattern: ident(r), path: r.pick(DIRS) }
            : { path: filePath(r), ...(r.chance(0.3) ? { offset: r.int(1, 500), limit: r.int(20, 200) } : {}) };
  return { type: 'toolCall', id: `toolu_${r.id(24)}`, name, arguments: args };
}

export function toolResultText(r: Rng, name: string): string {
  const size = r.skewed(8, 1.2);
  switch (name) {
    case 'read':
      return codeBlock(r, Math.min(400, size));
    case 'bash':
      return r.chance(0.5) ? logOutput(r, Math.min(300, Math.ceil(size / 2))) : lsOutput(r, Math.min(200, Math.ceil(size / 2)));
    case 'grep':
      return Array.from({ length: Math.min(100, Math.ceil(size / 3)) }, () => `${filePath(r)}:${r.int(1, 900)}:${codeLine(r, 0)}`).join('\n');
    case 'edit':
      return r.chance(0.8) ? `Successfully replaced text in ${filePath(r)}.\n${diffOutput(r, 1)}` : `Error: oldText not found in ${filePath(r)}`;
    case 'write':
      return `Wrote ${r.int(100, 20000)} bytes to ${filePath(r)}`;
    default:
      return r.chance(0.5) ? jsonOutput(r, Math.min(40, Math.ceil(size / 8))) : lsOutput(r, Math.min(80, size));
  }
}

export interface GenerateOptions {
  seed: number;
  /** Number of entries to produce (the session is cut at exactly this many). */
  entries: number;
  /** Qualified model id stamped on assistant messages. */
  model?: string;
  /** Add plausible provider usage to assistant messages (input grows with the context). */
  usage?: boolean;
  /** Insert a compaction entry roughly every this many entries (0: none). */
  compactEvery?: number;
  /** Timestamp of the first entry. */
  startTime?: number;
}

/**
 * A linear session: every entry is the child of the previous one. Turns
 * follow the agent loop: user prompt, then assistant replies with tool calls
 * and their results until a final text reply.
 */
export function generateSession(opts: GenerateOptions): { entries: SessionEntry[]; leafId: EntryId | null } {
  const r = new Rng(opts.seed);
  const entries: SessionEntry[] = [];
  let clock = opts.startTime ?? Date.UTC(2026, 0, 1);
  let parentId: EntryId | null = null;
  let contextChars = 0;
  let sinceCompaction = 0;

  const add = <E extends SessionEntry>(e: Omit<E, 'id' | 'parentId' | 'timestamp'>): E => {
    const entry = { ...e, id: `g${entries.length.toString(36)}${r.id(6)}`, parentId, timestamp: (clock += r.int(200, 30_000)) } as E;
    entries.push(entry);
    parentId = entry.id;
    return entry;
  };
  const usage = (): Usage | undefined => {
    if (!opts.usage) return undefined;
    const input = Math.round(contextChars / 3.6) + 1800;
    const cacheRead = Math.round(input * 0.9);
    return { input: input - cacheRead, cacheRead, cacheWrite: 0, output: r.int(20, 900) };
  };
  const message = (msg: MessageEntry['message']) => {
    const e = add<MessageEntry>({ type: 'message', message: msg });
    for (const p of msg.content) {
      if (p.type === 'text') contextChars += p.text.length;
      else if (p.type === 'thinking') contextChars += p.thinking.length;
      else if (p.type === 'toolCall') contextChars += JSON.stringify(p.arguments).length;
    }
    sinceCompaction++;
    return e;
  };

  while (entries.length < opts.entries) {
    if (opts.compactEvery && sinceCompaction >= opts.compactEvery && entries.length > 4) {
      const back = entries[Math.max(0, entries.length - r.int(3, 12))]!;
      add<CompactionEntry>({
        type: 'compaction',
        summary: `## Goal\n${paragraph(r, 2)}\n\n## Progress\n${Array.from({ length: r.int(3, 10) }, () => `- ${sentence(r)}`).join('\n')}`,
        firstKeptEntryId: back.type === 'message' && back.message.role === 'toolResult' ? entries[entries.length - 1]!.id : back.id,
        tokensBefore: Math.round(contextChars / 3.6),
        details: { readFiles: [filePath(r)], modifiedFiles: [filePath(r)], summarizer: { kind: 'extractive' } },
      });
      contextChars = Math.round(contextChars * 0.1);
      sinceCompaction = 0;
      continue;
    }
    message({ role: 'user', content: [{ type: 'text', text: userText(r) }] });
    const steps = r.chance(0.3) ? 0 : r.int(1, 6);
    for (let s = 0; s <= steps && entries.length < opts.entries; s++) {
      const content: AssistantContent[] = [];
      if (r.chance(0.35)) content.push({ type: 'thinking', thinking: paragraph(r, r.int(1, 3)) });
      const last = s === steps;
      if (last || r.chance(0.25)) content.push({ type: 'text', text: last ? assistantText(r) : sentence(r) });
      const calls = last ? [] : Array.from({ length: r.chance(0.2) ? r.int(2, 3) : 1 }, () => toolCall(r));
      content.push(...calls);
      message({ role: 'assistant', content, model: opts.model, usage: usage(), stopReason: last ? 'stop' : 'toolUse' });
      for (const c of calls) {
        if (entries.length >= opts.entries) break;
        message({ role: 'toolResult', toolCallId: c.id, toolName: c.name, content: [{ type: 'text', text: toolResultText(r, c.name) }], isError: r.chance(0.05) });
      }
    }
  }
  entries.length = Math.min(entries.length, opts.entries);
  return { entries, leafId: entries.at(-1)?.id ?? null };
}
