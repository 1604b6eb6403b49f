import type { SessionEntry } from '@/lib/session/types';

/**
 * Questions a summary must be able to answer, generated from the transcript
 * itself in Factory's four kinds (artifact, recall, continuation, decision).
 * Deliberately written apart from the summarizers' own extraction (fileOps,
 * userMessages, extractive): a probe derived by the same code that writes
 * the summary would only test that the code agrees with itself.
 *
 * Each probe is answered when every one of its `expect` strings occurs in the
 * answer after normalisation (case, whitespace and markdown quoting ignored).
 */

export type ProbeKind = 'artifact' | 'recall' | 'constraint' | 'continuation' | 'decision';

export const PROBE_KINDS: readonly ProbeKind[] = ['artifact', 'recall', 'constraint', 'continuation', 'decision'];

export interface Probe {
  kind: ProbeKind;
  /** What is asked, in words (for the report and the model's questions). */
  question: string;
  expect: string[];
}

/** Case, runs of whitespace and markdown quoting/emphasis marks do not count. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_>]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** How much of a line a probe asks for: enough to identify it, short enough to survive a first-line cut. */
const KEY_CHARS = 80;

function key(line: string): string {
  return normalise(line).slice(0, KEY_CHARS).trim();
}

function userText(e: SessionEntry): string | null {
  if (e.type !== 'message' || e.message.role !== 'user') return null;
  const text = e.message.content
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join('\n')
    .trim();
  return text || null;
}

const WRITING_TOOL = /write|edit|patch|create|replace|insert|notebook|delete|remove|rename|move/i;
const PATH_ARG = /path|file|target|destination/i;
const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Files a tool call changed, by the tool's name and the arguments that name files. */
function writtenFiles(name: string, args: Record<string, unknown>): string[] {
  if (!WRITING_TOOL.test(name)) return [];
  // Editor tools that also view files say so in their command.
  if (typeof args.command === 'string' && /^view$/i.test(args.command)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') continue;
    if (PATH_ARG.test(k) && v.trim() && !v.includes('\n') && v.length < 400) out.push(v.trim());
    for (let m = PATCH_HEADER.exec(v); m; m = PATCH_HEADER.exec(v)) out.push((m[1] ?? m[2] ?? '').trim());
    PATCH_HEADER.lastIndex = 0;
  }
  return out;
}

const CONSTRAINT = /\b(?:must|never|always|do not|don't|make sure|should not|shouldn't|only|without)\b/i;
const DECISION = /\b(?:decided|decision|instead of|rather than|i'll use|we'll use|let's use|going with|chose|opted|switch(?:ed)? to)\b/i;
const CODE_SPAN = /`([^`\n]{2,60})`/g;
const MAX_DECISIONS = 10;

/** The probes for a span (the entries a compaction replaces), oldest first. */
export function probesFor(span: readonly SessionEntry[]): Probe[] {
  const probes: Probe[] = [];
  const files = new Set<string>();
  const decisions: Probe[] = [];
  let lastUser: string | null = null;
  for (const e of span) {
    const u = userText(e);
    if (u !== null) {
      const lines = u.split('\n').map((l) => l.trim()).filter(Boolean);
      const first = lines[0]!;
      probes.push({ kind: 'recall', question: `Did the user ask: “${first.slice(0, KEY_CHARS)}”?`, expect: [key(first)] });
      for (const l of lines.slice(1)) if (CONSTRAINT.test(l) && l.length >= 12 && l.length <= 240) probes.push({ kind: 'constraint', question: `Which constraint did the user state: “${l.slice(0, KEY_CHARS)}”?`, expect: [key(l)] });
      lastUser = first;
      continue;
    }
    if (e.type !== 'message' || e.message.role !== 'assistant') continue;
    for (const p of e.message.content) {
      if (p.type === 'toolCall') for (const f of writtenFiles(p.name, p.arguments ?? {})) files.add(f);
      if (p.type !== 'text') continue;
      for (const sentence of p.text.split(/(?<=[.!?])\s+|\n+/)) {
        if (!DECISION.test(sentence)) continue;
        const ids = [...sentence.matchAll(CODE_SPAN)].map((m) => m[1]!.trim()).slice(0, 2);
        if (ids.length) decisions.push({ kind: 'decision', question: `What was decided: “${sentence.trim().slice(0, 120)}”?`, expect: ids.map(normalise) });
      }
    }
  }
  // Whole paths: files of one project share long prefixes, so a cut path would match its neighbours.
  for (const f of files) probes.push({ kind: 'artifact', question: `Was ${f} modified?`, expect: [normalise(f)] });
  if (lastUser !== null) probes.push({ kind: 'continuation', question: `What is the latest open request? (“${lastUser.slice(0, KEY_CHARS)}”)`, expect: [key(lastUser)] });
  probes.push(...decisions.slice(-MAX_DECISIONS));
  return probes;
}

export interface Coverage {
  hit: number;
  total: number;
}

export type CoverageByKind = Record<ProbeKind, Coverage>;

/** Which probes `answer` answers, by kind. */
export function coverage(answer: string, probes: readonly Probe[]): CoverageByKind {
  const text = normalise(answer);
  const out = Object.fromEntries(PROBE_KINDS.map((k) => [k, { hit: 0, total: 0 }])) as CoverageByKind;
  for (const p of probes) {
    const c = out[p.kind];
    c.total++;
    if (p.expect.every((x) => text.includes(x))) c.hit++;
  }
  return out;
}

export function totalCoverage(c: CoverageByKind): Coverage {
  return PROBE_KINDS.reduce((a, k) => ({ hit: a.hit + c[k].hit, total: a.total + c[k].total }), { hit: 0, total: 0 });
}
