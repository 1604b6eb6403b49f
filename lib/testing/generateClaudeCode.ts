import { assistantText, filePath, Rng, sentence, toolCall, toolResultText, userText } from './generate';

/**
 * A deterministic synthetic `~/.claude/projects` folder for the folder-import
 * benchmark: Claude Code transcripts in the shape the real ones have
 * (fixtures/real/*claude-code*): one JSON object per line with uuid /
 * parentUuid, the session's cwd, version and branch on every line, one line
 * per content block of a reply (sharing message.id, usage on each), a user
 * line per tool result, and now and then a summary line, thinking, a
 * sub-agent (sidechain) run, local slash commands with their caveat and
 * output, a file-history snapshot (no uuid) and a compaction boundary.
 *
 * Sizes are skewed as in real folders (many small sessions, a few of
 * several MB) and scaled so the folder comes to `targetBytes`. The same seed
 * always yields the same files, one at a time (the caller writes them out).
 */

export interface ClaudeCodeFolderOptions {
  seed: number;
  files: number;
  targetBytes: number;
}

export interface ClaudeCodeFolderShape {
  files: number;
  bytes: number;
  lines: number;
  /** Lines that become entries (those with a uuid), and the tool calls among the reply blocks. */
  uuidLines: number;
  toolCalls: number;
  sidechainLines: number;
  commandNotes: number;
  compactions: number;
}

export function emptyClaudeCodeShape(): ClaudeCodeFolderShape {
  return { files: 0, bytes: 0, lines: 0, uuidLines: 0, toolCalls: 0, sidechainLines: 0, commandNotes: 0, compactions: 0 };
}

const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];
const PROJECTS = ['api-server', 'web-app', 'cli-tools', 'data-pipeline', 'docs-site', 'mobile', 'infra', 'ml-experiments'];

/** Claude Code's tool names and argument keys for the generic calls of generate.ts. */
function claudeTool(r: Rng): { name: string; input: Record<string, unknown>; kind: string } {
  const call = toolCall(r);
  const a = call.arguments as Record<string, string | number>;
  switch (call.name) {
    case 'bash':
      return { name: 'Bash', input: { command: a.command, description: sentence(r, 3, 6).slice(0, -1) }, kind: 'bash' };
    case 'edit':
      return { name: 'Edit', input: { file_path: `/home/dev/${a.path}`, old_string: a.oldText, new_string: a.newText }, kind: 'edit' };
    case 'write':
      return { name: 'Write', input: { file_path: `/home/dev/${a.path}`, content: a.content }, kind: 'write' };
    case 'grep':
      return { name: 'Grep', input: { pattern: a.pattern, path: a.path }, kind: 'grep' };
    case 'ls':
      return { name: 'LS', input: { path: `/home/dev/${a.path ?? ''}` }, kind: 'ls' };
    default:
      return { name: 'Read', input: { file_path: `/home/dev/${a.path}` }, kind: 'read' };
  }
}

function uuid(r: Rng): string {
  const h = () => r.int(0, 0xffff).toString(16).padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-${['8', '9', 'a', 'b'][r.int(0, 3)]}${h().slice(1)}-${h()}${h()}${h()}`;
}

/** UTF-8 length without a Buffer (the generator is plain TypeScript). */
function utf8(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

class Transcript {
  readonly lines: string[] = [];
  bytes = 0;
  private clock: number;
  /** The main chain's last line. */
  private readonly main = { parent: null as string | null };
  private readonly base: Record<string, unknown>;

  constructor(
    private readonly r: Rng,
    private readonly shape: ClaudeCodeFolderShape,
    readonly sessionId: string,
    cwd: string,
    start: number,
  ) {
    this.clock = start;
    this.base = { userType: 'external', cwd, sessionId, version: r.pick(['1.0.98', '1.0.110', '2.0.14']), gitBranch: r.pick(['main', 'dev', `feat/${r.pick(PROJECTS)}`]) };
  }

  private tick(maxMs: number): string {
    this.clock += this.r.int(200, maxMs);
    return new Date(this.clock).toISOString();
  }

  private push(rec: Record<string, unknown>): void {
    const line = JSON.stringify(rec);
    this.lines.push(line);
    this.bytes += utf8(line) + 1;
    this.shape.lines++;
    if (typeof rec.uuid === 'string') this.shape.uuidLines++;
    if (rec.isSidechain === true) this.shape.sidechainLines++;
  }

  /** A line in the conversation chain (or a sidechain's own chain when `chain` is given). */
  private line(rec: Record<string, unknown>, chain?: { parent: string | null }): string {
    const id = uuid(this.r);
    const at = chain ?? this.main;
    this.push({ parentUuid: at.parent, isSidechain: chain !== undefined, ...this.base, ...rec, uuid: id, timestamp: this.tick(chain ? 4_000 : 30_000) });
    at.parent = id;
    return id;
  }

  summary(): void {
    this.push({ type: 'summary', summary: sentence(this.r, 3, 8).slice(0, -1), leafUuid: uuid(this.r) });
  }

  snapshot(): void {
    this.push({ type: 'file-history-snapshot', messageId: uuid(this.r), snapshot: { trackedFileBackups: {}, timestamp: new Date(this.clock).toISOString() }, isSnapshotUpdate: false });
  }

  prompt(text = userText(this.r)): void {
    this.line({ type: 'user', message: { role: 'user', content: text } });
  }

  /** One API reply: a line per block (thinking, text, tool uses), then a result line per tool use. */
  reply(tools: number, chain?: { parent: string | null }): void {
    const r = this.r;
    const id = `msg_${r.id(24)}`;
    const model = r.pick(MODELS);
    const usage = { input_tokens: r.int(3, 40), cache_creation_input_tokens: r.int(0, 4000), cache_read_input_tokens: r.int(2000, 120_000), output_tokens: r.int(20, 2500), service_tier: 'standard' };
    const blocks: Record<string, unknown>[] = [];
    if (r.chance(0.2)) blocks.push({ type: 'thinking', thinking: assistantText(r), signature: r.id(80) });
    if (tools === 0 || r.chance(0.6)) blocks.push({ type: 'text', text: assistantText(r) });
    const uses = Array.from({ length: tools }, () => ({ ...claudeTool(r), id: `toolu_${r.id(24)}` }));
    for (const u of uses) blocks.push({ type: 'tool_use', id: u.id, name: u.name, input: u.input });
    blocks.forEach((b, i) => {
      const last = i === blocks.length - 1;
      this.line(
        { type: 'assistant', requestId: `req_${r.id(24)}`, message: { id, type: 'message', role: 'assistant', model, content: [b], stop_reason: last ? (tools ? 'tool_use' : 'end_turn') : null, stop_sequence: null, usage } },
        chain,
      );
    });
    this.shape.toolCalls += uses.length;
    for (const u of uses) {
      const failed = r.chance(0.05);
      const content = failed ? `Error: ${sentence(r, 4, 10)}` : toolResultText(r, u.kind);
      this.line({ type: 'user', message: { role: 'user', content: [{ tool_use_id: u.id, type: 'tool_result', content, ...(failed ? { is_error: true } : {}) }] }, toolUseResult: failed ? `Error: ${content}` : { type: 'text' } }, chain);
    }
  }

  /** A Task tool call answered by a sub-agent's own chain of lines. */
  subAgent(): void {
    const side = { parent: null as string | null };
    this.line({ type: 'user', message: { role: 'user', content: `${sentence(this.r, 6, 14)} Report back with file paths.` } }, side);
    for (let i = 0, n = this.r.int(1, 4); i < n; i++) this.reply(this.r.int(1, 2), side);
    this.line({ type: 'assistant', message: { id: `msg_${this.r.id(24)}`, type: 'message', role: 'assistant', model: MODELS[0], content: [{ type: 'text', text: assistantText(this.r) }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 200 } } }, side);
  }

  /** `/clear`-style local commands as Claude Code writes them: the caveat (isMeta), the command, its output. */
  localCommand(): void {
    const r = this.r;
    this.line({ type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.' } });
    const name = r.pick(['/status', '/cost', '/mcp', '/memory', '/doctor']);
    this.line({ type: 'user', message: { role: 'user', content: `<command-name>${name}</command-name>\n            <command-message>${name.slice(1)}</command-message>\n            <command-args></command-args>` } });
    this.line({ type: 'user', message: { role: 'user', content: `<local-command-stdout>${r.chance(0.5) ? '(no content)' : sentence(r, 4, 12)}</local-command-stdout>` } });
    this.shape.commandNotes += 3;
  }

  compaction(): void {
    const boundary = uuid(this.r);
    this.push({ parentUuid: null, logicalParentUuid: this.main.parent, isSidechain: false, ...this.base, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: this.r.int(150_000, 190_000) }, uuid: boundary, timestamp: this.tick(5_000), level: 'info' });
    this.main.parent = boundary;
    this.line({ type: 'user', isCompactSummary: true, message: { role: 'user', content: `This session is being continued from a previous conversation.\n\n${assistantText(this.r)}\n\nFiles: ${filePath(this.r)}, ${filePath(this.r)}` } });
    this.shape.compactions++;
  }
}

/** The folder's files, one at a time: `-home-dev-<project>/<session uuid>.jsonl`. */
export function* claudeCodeFolderFiles(opts: ClaudeCodeFolderOptions, shape: ClaudeCodeFolderShape = emptyClaudeCodeShape()): Generator<{ path: string; text: string }> {
  const r = new Rng(opts.seed);
  const weights = Array.from({ length: opts.files }, () => r.skewed(1, 1.6));
  const sum = weights.reduce((a, b) => a + b, 0);
  let start = Date.UTC(2025, 8, 1);
  for (let f = 0; f < opts.files; f++) {
    const target = Math.max(2_000, Math.round((opts.targetBytes * weights[f]!) / sum));
    const project = r.pick(PROJECTS);
    const t = new Transcript(r, shape, uuid(r), `/home/dev/${project}`, (start += r.int(60_000, 6 * 3600_000)));
    if (r.chance(0.3)) t.summary();
    if (r.chance(0.3)) t.snapshot();
    let compacted = false;
    while (t.bytes < target) {
      t.prompt();
      const steps = r.int(1, 6);
      for (let s = 0; s < steps && t.bytes < target * 1.05; s++) t.reply(s === steps - 1 ? 0 : r.int(1, 3));
      if (r.chance(0.04)) t.subAgent();
      if (r.chance(0.03)) t.localCommand();
      if (!compacted && t.bytes > 600_000 && r.chance(0.3)) {
        t.compaction();
        compacted = true;
      }
    }
    const text = t.lines.join('\n') + '\n';
    shape.files++;
    shape.bytes += t.bytes;
    yield { path: `-home-dev-${project}/${t.sessionId}.jsonl`, text };
  }
}
