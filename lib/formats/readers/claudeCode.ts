import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import type {
  AssistantContent,
  AssistantMessage,
  ChatMessage,
  CompactionEntry,
  SessionEntry,
  StopReason,
  ToolResultContent,
  ToolResultMessage,
  Usage,
  UserContent,
} from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, base64Image, bool, compact, jsonText, num, obj, str, stripAnsi, textPart, titleFrom, toMs, type Json } from '../util';
import { readJsonlText, type JsonlSink, type ReadContext } from './jsonl';

/**
 * Claude Code transcripts (~/.claude/projects/…/<session>.jsonl).
 *
 * Representation choices:
 * - One entry per line. Claude Code writes one API reply as several lines (one
 *   per content block) sharing message.id, each the parent of the next. Keeping
 *   them apart keeps the file's tree exact (tool results and sub-agents hang off
 *   specific lines). The usage each line repeats is kept on the last line of the
 *   reply only, so summing usage over entries does not count a reply twice.
 * - A user line with tool_result blocks becomes one toolResult entry per block,
 *   then one user entry for any text/images on the same line, chained in that
 *   order. The last of them keeps the line's uuid (the others get `<uuid>:1`,
 *   `<uuid>:2`, …), so the line's children attach to the end of the chain.
 * - Sidechain (sub-agent) lines stay in the tree where their parentUuid puts
 *   them (as their own roots in the files seen so far); the leaf is always the
 *   last non-sidechain line, so the main conversation is the active path.
 * - `compact_boundary` + the `isCompactSummary` user line after it become one
 *   compaction entry; nothing before it is kept, so firstKeptEntryId is the
 *   entry after it.
 * - `summary` lines name a conversation (their leafUuid usually points into an
 *   earlier session file): used for the title only.
 */

const STOP: Record<string, StopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'toolUse',
  refusal: 'error',
};

function claudeUsage(u: Json | undefined): Usage | undefined {
  if (!u) return undefined;
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const cacheRead = num(u.cache_read_input_tokens);
  const cacheWrite = num(u.cache_creation_input_tokens);
  return compact({
    input: input ?? 0,
    output: output ?? 0,
    cacheRead,
    cacheWrite,
    totalTokens: (input ?? 0) + (output ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
  });
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return (arr(content) ?? []).map(obj).filter((b): b is Json => b !== undefined);
}

function imagePart(b: Json): UserContent | undefined {
  const src = obj(b.source);
  if (!src) return undefined;
  if (src.type === 'base64' && typeof src.data === 'string') return base64Image(src.data, str(src.media_type));
  if (src.type === 'url' && typeof src.url === 'string') return { type: 'image', mimeType: str(src.media_type) ?? 'image/*', url: src.url };
  return undefined;
}

function userPart(b: Json): UserContent {
  if (b.type === 'text') return textPart(str(b.text) ?? '');
  if (b.type === 'image') return imagePart(b) ?? textPart('[image]');
  if (b.type === 'document') {
    const src = obj(b.source);
    const text = src?.type === 'text' ? str(src.data) : undefined;
    const data = str(src?.data) ?? '';
    return compact({
      type: 'file' as const,
      name: str(b.title) ?? 'document',
      mimeType: str(src?.media_type) ?? 'application/octet-stream',
      byteLength: text !== undefined ? text.length : Math.floor((data.length * 3) / 4),
      text,
    });
  }
  return textPart(`[${String(b.type)}] ${jsonText(b)}`);
}

function toolResultParts(content: unknown): ToolResultContent[] {
  const out: ToolResultContent[] = [];
  for (const b of blocksOf(content)) {
    const p = userPart(b);
    out.push(p.type === 'file' ? textPart(p.text ?? `[${p.name}]`) : p);
  }
  return out;
}

function messageContentText(content: unknown): string {
  return blocksOf(content)
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text) ?? '')
    .join('\n\n');
}

interface Base {
  id: string;
  parentId: string | null;
  timestamp: number;
}

class ClaudeSink implements JsonlSink {
  private readonly asm: EntryAssembler;
  private readonly summaries: { summary: string; leafUuid?: string }[] = [];
  private readonly toolNames = new Map<string, string>();
  private readonly unnamedResults: ToolResultMessage[] = [];
  private readonly replies = new Map<string, AssistantMessage[]>();
  private readonly sidechain = new Set<string>();
  private readonly compactions: CompactionEntry[] = [];
  private readonly skipped = new Map<string, number>();
  private pendingBoundary: { rec: Json; base: Base } | null = null;
  private lastMainId: string | null = null;
  private lastTs = NO_TIME;
  private cwd: string | undefined;
  private sessionId: string | undefined;
  private model: string | undefined;

  constructor(private readonly ctx: ReadContext) {
    this.asm = new EntryAssembler('claude-code', ctx.warnings, ctx.importedAt);
  }

  private base(rec: Json): Base | undefined {
    const id = str(rec.uuid);
    if (!id) return undefined;
    const ts = toMs(rec.timestamp) ?? this.lastTs;
    this.lastTs = ts;
    // compact_boundary lines start a new chain (parentUuid null) but name where they logically follow.
    const parentId = str(rec.parentUuid) ?? str(rec.logicalParentUuid) ?? null;
    return { id, parentId, timestamp: ts };
  }

  private add(entry: SessionEntry, rec: Json): void {
    if (!this.asm.add(entry)) return;
    if (bool(rec.isSidechain)) this.sidechain.add(entry.id);
    else this.lastMainId = entry.id;
  }

  private skip(kind: string): void {
    this.skipped.set(kind, (this.skipped.get(kind) ?? 0) + 1);
  }

  record(rec: Json, lineNo: number): void {
    this.cwd ??= str(rec.cwd);
    this.sessionId ??= str(rec.sessionId);
    const boundary = this.pendingBoundary;
    if (boundary) {
      this.pendingBoundary = null;
      if (rec.type === 'user' && bool(rec.isCompactSummary)) {
        const summary = messageContentText(obj(rec.message)?.content);
        this.addCompaction(boundary.base, boundary.rec, summary, rec);
        const id = str(rec.uuid);
        if (id) this.asm.alias(id, boundary.base.id);
        return;
      }
      this.addCompaction(boundary.base, boundary.rec, stripAnsi(str(boundary.rec.content) ?? 'Conversation compacted'), boundary.rec);
    }

    const type = rec.type;
    if (type === 'summary') {
      const summary = str(rec.summary);
      if (summary) this.summaries.push(compact({ summary, leafUuid: str(rec.leafUuid) }));
      return;
    }
    const base = this.base(rec);
    if (!base) {
      this.skip(typeof type === 'string' ? type : 'untyped');
      return;
    }
    if (type === 'system') {
      if (rec.subtype === 'compact_boundary') {
        this.pendingBoundary = { rec, base };
        return;
      }
      const content = stripAnsi(str(rec.content) ?? '');
      const subtype = str(rec.subtype);
      const data = compact({ subtype, level: str(rec.level), content: str(rec.content), toolUseID: str(rec.toolUseID) });
      this.add({ ...base, type: 'custom', customType: subtype ? `claude-code:system:${subtype}` : 'claude-code:system', data, display: content || subtype || 'system' }, rec);
      return;
    }
    if (type === 'user') {
      const message = obj(rec.message);
      if (!message) throw new ImportError(`Line ${lineNo}: user line without a message object`, { format: 'claude-code', line: lineNo });
      if (bool(rec.isCompactSummary)) {
        // A summary without its boundary line (older versions start a new file with it).
        this.addCompaction(base, rec, messageContentText(message.content), rec);
        return;
      }
      this.addUser(base, message, rec);
      return;
    }
    if (type === 'assistant') {
      const message = obj(rec.message);
      if (!message) throw new ImportError(`Line ${lineNo}: assistant line without a message object`, { format: 'claude-code', line: lineNo });
      this.addAssistant(base, message, rec);
      return;
    }
    // Other line kinds with a place in the tree are kept so their children stay attached.
    const kind = typeof type === 'string' ? type : 'untyped';
    const { parentUuid: _p, uuid: _u, timestamp: _t, sessionId: _s, cwd: _c, version: _v, userType: _ut, gitBranch: _g, isSidechain: _sc, ...data } = rec;
    this.add({ ...base, type: 'custom', customType: `claude-code:${kind}`, data, display: kind }, rec);
  }

  private addCompaction(base: Base, boundary: Json, summary: string, summaryRec: Json): void {
    const meta = obj(boundary.compactMetadata);
    const entry: CompactionEntry = {
      ...base,
      type: 'compaction',
      summary,
      firstKeptEntryId: base.id,
      tokensBefore: num(meta?.preTokens) ?? 0,
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'imported', source: 'claude-code' } },
    };
    this.compactions.push(entry);
    this.add(entry, summaryRec);
  }

  private addUser(base: Base, message: Json, rec: Json): void {
    const results: ToolResultMessage[] = [];
    const rest: UserContent[] = [];
    for (const b of blocksOf(message.content)) {
      if (b.type === 'tool_result') {
        const toolCallId = str(b.tool_use_id) ?? '';
        const name = this.toolNames.get(toolCallId);
        const msg: ToolResultMessage = {
          role: 'toolResult',
          toolCallId,
          toolName: name ?? 'unknown',
          content: toolResultParts(b.content),
          isError: bool(b.is_error) ?? false,
        };
        if (!name) this.unnamedResults.push(msg);
        results.push(msg);
      } else rest.push(userPart(b));
    }
    const messages: ChatMessage[] = [...results];
    if (rest.length > 0 || results.length === 0) messages.push({ role: 'user', content: rest });
    // The last entry of the chain keeps the line's uuid, so the line's children attach to it as they are.
    let parent = base.parentId;
    messages.forEach((message, i) => {
      const id = i === messages.length - 1 ? base.id : `${base.id}:${i + 1}`;
      this.add({ id, parentId: parent, timestamp: base.timestamp, type: 'message', message }, rec);
      parent = id;
    });
  }

  private addAssistant(base: Base, message: Json, rec: Json): void {
    const content: AssistantContent[] = [];
    for (const b of blocksOf(message.content)) {
      if (b.type === 'text') content.push(textPart(str(b.text) ?? ''));
      else if (b.type === 'thinking') content.push({ type: 'thinking', thinking: str(b.thinking) ?? '' });
      else if (b.type === 'redacted_thinking') content.push({ type: 'thinking', thinking: '', redacted: true });
      else if (b.type === 'tool_use' || b.type === 'server_tool_use') {
        const id = str(b.id) ?? '';
        const name = str(b.name) ?? 'unknown';
        this.toolNames.set(id, name);
        content.push({ type: 'toolCall', id, name, arguments: obj(b.input) ?? { input: b.input ?? null } });
      } else content.push(textPart(`[${String(b.type)}] ${jsonText(b)}`));
    }
    const modelName = str(message.model);
    const isError = bool(rec.isApiErrorMessage) === true;
    const msg: AssistantMessage = compact({
      role: 'assistant' as const,
      content,
      model: modelName ? `anthropic:${modelName}` : undefined,
      usage: claudeUsage(obj(message.usage)),
      stopReason: isError ? ('error' as const) : STOP[str(message.stop_reason) ?? ''],
      errorMessage: isError ? messageContentText(message.content) || 'API error' : undefined,
    });
    const replyId = str(message.id);
    if (replyId) {
      const group = this.replies.get(replyId);
      if (group) group.push(msg);
      else this.replies.set(replyId, [msg]);
    }
    if (modelName && !bool(rec.isSidechain) && modelName !== '<synthetic>') this.model = msg.model;
    this.add({ ...base, type: 'message', message: msg }, rec);
  }

  finish(hash: string): ImportResult {
    if (this.pendingBoundary) {
      const b = this.pendingBoundary;
      this.pendingBoundary = null;
      this.addCompaction(b.base, b.rec, stripAnsi(str(b.rec.content) ?? 'Conversation compacted'), b.rec);
    }
    for (const group of this.replies.values()) {
      for (let i = 0; i < group.length - 1; i++) delete group[i]!.usage;
    }
    for (const r of this.unnamedResults) {
      const name = this.toolNames.get(r.toolCallId);
      if (name) r.toolName = name;
    }
    if (this.skipped.size > 0) {
      const kinds = [...this.skipped].map(([k, n]) => `${n} × ${k}`).join(', ');
      this.ctx.warnings.push(`Skipped lines that have no place in the conversation tree (no uuid): ${kinds}.`);
    }
    const entries = this.asm.finish();
    if (entries.length === 0) throw new ImportError('The transcript holds no messages.', { format: 'claude-code' });
    const firstChild = new Map<string, string>();
    for (const e of entries) if (e.parentId !== null && !firstChild.has(e.parentId)) firstChild.set(e.parentId, e.id);
    for (const c of this.compactions) c.firstKeptEntryId = firstChild.get(c.id) ?? c.id;

    const leafId = this.lastMainId ? this.asm.resolve(this.lastMainId) : entries[entries.length - 1]!.id;
    const present = new Set(entries.map((e) => e.id));
    const named = this.summaries.find((s) => s.leafUuid !== undefined && present.has(s.leafUuid)) ?? this.summaries[0];
    let title = named?.summary;
    if (!title) {
      const firstUser = entries.find(
        (e) => e.type === 'message' && e.message.role === 'user' && !this.sidechain.has(e.id) && messageText(e.message).trim() !== '',
      );
      title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, 'Claude Code session');
    }
    const { createdAt, updatedAt } = timeSpan(entries, this.asm.fallbackTime);
    const meta = compact({
      id: newId(),
      title,
      createdAt,
      updatedAt,
      leafId,
      model: this.model,
      cwd: this.cwd,
      undated: this.asm.undated || undefined,
      source: compact({ format: 'claude-code', fileName: this.ctx.fileName, hash, originalId: this.sessionId }),
    });
    return { format: 'claude-code', sessions: [{ meta, entries }], warnings: this.ctx.warnings };
  }
}

export function claudeCodeSink(ctx: ReadContext): JsonlSink {
  return new ClaudeSink(ctx);
}

export function readClaudeCode(text: string, opts: ImportOptions = {}): ImportResult {
  return readJsonlText(text, 'claude-code', claudeCodeSink, opts);
}
