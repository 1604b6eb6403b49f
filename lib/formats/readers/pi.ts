import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import type {
  AssistantContent,
  AssistantMessage,
  ChatMessage,
  SessionEntry,
  StopReason,
  SummaryDetails,
  ToolResultContent,
  Usage,
  UserContent,
} from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { excerpt } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, base64Image, bool, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { readJsonlText, type JsonlSink, type ReadContext } from './jsonl';

/**
 * pi coding-agent sessions, versions 1–3.
 *
 * v1 has no ids: every entry's parent is the entry before it, and a compaction
 * names its first kept entry by index into the file's records (header = 0).
 * The fixture confirms the header counts: compact.jsonl's first compaction has
 * firstKeptEntryIndex 573, which with the header at 0 is an assistant toolCall
 * (a valid cut point) and without it would be a tool result (never a cut point).
 * v1 ids are derived from that index (`pi-573`), so importing the same file
 * twice gives the same entry ids and the index maps to an id directly.
 * v2/v3 carry id/parentId; v3 entry types without a counterpart here become
 * `custom` entries so nothing is lost.
 */

const STOP_REASONS: Record<string, StopReason> = {
  stop: 'stop',
  length: 'length',
  toolUse: 'toolUse',
  error: 'error',
  aborted: 'aborted',
};

export function piUsage(u: Json | undefined): Usage | undefined {
  if (!u) return undefined;
  const input = num(u.input);
  const output = num(u.output);
  if (input === undefined && output === undefined) return undefined;
  return compact({
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: num(u.cacheRead),
    cacheWrite: num(u.cacheWrite),
    totalTokens: num(u.totalTokens),
    cost: num(obj(u.cost)?.total) ?? num(u.cost),
  });
}

function blocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return (arr(content) ?? []).map(obj).filter((b): b is Json => b !== undefined);
}

function userContent(content: unknown): UserContent[] {
  const out: UserContent[] = [];
  for (const b of blocks(content)) {
    if (b.type === 'text' && typeof b.text === 'string') out.push(textPart(b.text));
    else if (b.type === 'image' && typeof b.data === 'string') out.push(base64Image(b.data, str(b.mimeType)));
  }
  return out;
}

function toolResultContent(content: unknown): ToolResultContent[] {
  return userContent(content).filter((p): p is ToolResultContent => p.type !== 'file');
}

function assistantContent(content: unknown): AssistantContent[] {
  const out: AssistantContent[] = [];
  for (const b of blocks(content)) {
    if (b.type === 'text' && typeof b.text === 'string') out.push(textPart(b.text));
    else if (b.type === 'thinking' && typeof b.thinking === 'string') out.push(compact({ type: 'thinking' as const, thinking: b.thinking, redacted: bool(b.redacted) }));
    else if (b.type === 'toolCall') {
      const args = obj(b.arguments) ?? (b.arguments === undefined ? {} : { value: b.arguments });
      out.push({ type: 'toolCall', id: str(b.id) ?? '', name: str(b.name) ?? 'unknown', arguments: args });
    } else if (b.type === 'image') out.push(textPart('[image]'));
  }
  return out;
}

/** How a user's own shell command (`!cmd` in pi) reads in the conversation. */
export function bashExecutionText(m: Json): string {
  const command = str(m.command) ?? '';
  const output = str(m.output) ?? '';
  const lines = ['[Shell command run by the user]', '$ ' + command];
  lines.push(output ? `Output:\n${output}` : '(no output)');
  if (bool(m.cancelled)) lines.push('(command cancelled)');
  else if (num(m.exitCode) !== undefined && m.exitCode !== 0) lines.push(`Exit code: ${m.exitCode}`);
  if (bool(m.truncated)) lines.push('(output truncated)');
  return lines.join('\n');
}

type Converted = { kind: 'message'; message: ChatMessage } | { kind: 'custom'; customType: string; data: unknown; display: string };

function convertMessage(m: Json, lineNo: number): Converted {
  const role = m.role;
  switch (role) {
    case 'user':
      return { kind: 'message', message: { role: 'user', content: userContent(m.content) } };
    case 'assistant': {
      const provider = str(m.provider);
      const model = str(m.model);
      const msg: AssistantMessage = compact({
        role: 'assistant' as const,
        content: assistantContent(m.content),
        model: model ? (provider ? `${provider}:${model}` : model) : undefined,
        usage: piUsage(obj(m.usage)),
        stopReason: STOP_REASONS[str(m.stopReason) ?? ''],
        errorMessage: str(m.errorMessage),
      });
      return { kind: 'message', message: msg };
    }
    case 'toolResult':
      return {
        kind: 'message',
        message: {
          role: 'toolResult',
          toolCallId: str(m.toolCallId) ?? '',
          toolName: str(m.toolName) ?? 'unknown',
          content: toolResultContent(m.content),
          isError: bool(m.isError) ?? false,
        },
      };
    case 'bashExecution': {
      const text = bashExecutionText(m);
      // `!!cmd` output was kept out of the model's context in pi; keep it out here too.
      if (bool(m.excludeFromContext)) return { kind: 'custom', customType: 'pi:bashExecution', data: m, display: text.split('\n').slice(1, 2).join('') };
      return { kind: 'message', message: { role: 'user', content: [textPart(text)] } };
    }
    case 'custom':
    case 'hookMessage':
      // Extension messages reach pi's model as user messages.
      return { kind: 'message', message: { role: 'user', content: userContent(m.content) } };
    default: {
      if (typeof role !== 'string') throw new ImportError(`Line ${lineNo}: message without a role`, { format: 'pi', line: lineNo });
      return { kind: 'custom', customType: `pi:message:${role}`, data: m, display: `${role} message` };
    }
  }
}

function summaryDetails(d: unknown): SummaryDetails {
  const o = obj(d);
  const files = (v: unknown) => (arr(v) ?? []).filter((x): x is string => typeof x === 'string');
  return { readFiles: files(o?.readFiles), modifiedFiles: files(o?.modifiedFiles), summarizer: { kind: 'imported', source: 'pi' } };
}

class PiSink implements JsonlSink {
  private header: Json | undefined;
  private version = 1;
  /** File record index (header = 0) → entry id, for v1 firstKeptEntryIndex. */
  private readonly idByIndex: string[] = [];
  private index = 0;
  private prevId: string | null = null;
  private lastTs = NO_TIME;
  private readonly asm: EntryAssembler;
  private lastId: string | null = null;
  private sessionName: string | undefined;
  private model: string | undefined;
  private readonly pendingIndexRefs: { entry: SessionEntry & { type: 'compaction' }; index: number; lineNo: number }[] = [];

  constructor(private readonly ctx: ReadContext) {
    this.asm = new EntryAssembler('pi', ctx.warnings, ctx.importedAt);
  }

  private fail(lineNo: number, problem: string): never {
    throw new ImportError(`Line ${lineNo}: ${problem}`, { format: 'pi', line: lineNo });
  }

  record(rec: Json, lineNo: number): void {
    if (!this.header) {
      if (rec.type !== 'session') this.fail(lineNo, `expected the pi session header {"type":"session",…}, found a ${excerpt(String(rec.type))} record`);
      this.header = rec;
      this.version = num(rec.version) ?? 1;
      if (this.version > 3) this.ctx.warnings.push(`pi session format version ${this.version} is newer than the versions this app knows (1–3); read as version 3.`);
      this.lastTs = toMs(rec.timestamp) ?? NO_TIME;
      this.idByIndex.push('');
      this.index = 1;
      return;
    }
    if (rec.type === 'session') this.fail(lineNo, 'a second session header in the same file');
    const index = this.index++;
    const id = str(rec.id) || `pi-${index}`;
    const parentId = 'parentId' in rec && this.version >= 2 ? (str(rec.parentId) ?? null) : this.prevId;
    const message = obj(rec.message);
    const timestamp = toMs(rec.timestamp) ?? toMs(message?.timestamp) ?? this.lastTs;
    this.lastTs = timestamp;
    this.idByIndex.push(id);
    const base = { id, parentId, timestamp };
    const entry = this.convert(rec, base, lineNo);
    if (this.asm.add(entry)) {
      this.prevId = id;
      this.lastId = id;
    }
  }

  private convert(rec: Json, base: { id: string; parentId: string | null; timestamp: number }, lineNo: number): SessionEntry {
    const type = rec.type;
    const rest = () => {
      const { type: _t, id: _i, parentId: _p, timestamp: _ts, ...r } = rec;
      return r;
    };
    switch (type) {
      case 'message': {
        const m = obj(rec.message);
        if (!m) this.fail(lineNo, 'message record without a message object');
        const c = convertMessage(m, lineNo);
        if (c.kind === 'custom') return { ...base, type: 'custom', customType: c.customType, data: c.data, display: c.display };
        if (c.message.role === 'assistant' && c.message.model) this.model = c.message.model;
        return { ...base, type: 'message', message: c.message };
      }
      case 'compaction': {
        const summary = str(rec.summary);
        if (summary === undefined) this.fail(lineNo, 'compaction record without a summary');
        const entry: SessionEntry & { type: 'compaction' } = {
          ...base,
          type: 'compaction',
          summary,
          firstKeptEntryId: str(rec.firstKeptEntryId) ?? base.id,
          tokensBefore: num(rec.tokensBefore) ?? 0,
          details: summaryDetails(rec.details),
        };
        const idx = num(rec.firstKeptEntryIndex);
        if (str(rec.firstKeptEntryId) === undefined) {
          if (idx !== undefined) this.pendingIndexRefs.push({ entry, index: idx, lineNo });
          else this.ctx.warnings.push(`Line ${lineNo}: compaction names no first kept entry; treated as keeping nothing before it.`);
        }
        return entry;
      }
      case 'branch_summary':
        return {
          ...base,
          type: 'branch_summary',
          fromId: str(rec.fromId) ?? base.parentId ?? base.id,
          summary: str(rec.summary) ?? '',
          details: summaryDetails(rec.details),
        };
      case 'model_change': {
        const provider = str(rec.provider);
        const modelId = str(rec.modelId) ?? str(rec.model) ?? 'unknown';
        const model = provider ? `${provider}:${modelId}` : modelId;
        this.model = model;
        return { ...base, type: 'model_change', model };
      }
      case 'label':
        return { ...base, type: 'label', targetId: str(rec.targetId) ?? '', label: str(rec.label) ?? null };
      case 'thinking_level_change':
        return { ...base, type: 'custom', customType: 'pi:thinking_level_change', data: rest(), display: `Thinking level: ${jsonText(rec.thinkingLevel)}` };
      case 'session_info': {
        const name = str(rec.name);
        if (name) this.sessionName = name;
        return { ...base, type: 'custom', customType: 'pi:session_info', data: rest(), display: name ? `Session name: ${name}` : 'Session info' };
      }
      case 'custom': {
        const customType = str(rec.customType) ?? 'unknown';
        return compact({ ...base, type: 'custom' as const, customType: `pi:${customType}`, data: rec.data, display: `Extension data (${customType})` });
      }
      case 'custom_message': {
        // Extension messages with display:true reach the model as user messages in pi.
        return { ...base, type: 'message', message: { role: 'user', content: userContent(rec.content) } };
      }
      default: {
        if (typeof type !== 'string') this.fail(lineNo, 'record without a "type"');
        return { ...base, type: 'custom', customType: `pi:${type}`, data: rest(), display: `pi ${type} record` };
      }
    }
  }

  finish(hash: string): ImportResult {
    if (!this.header) throw new ImportError('The file holds no pi session header.', { format: 'pi' });
    for (const { entry, index, lineNo } of this.pendingIndexRefs) {
      // Index 0 is the header: "keep from the beginning" means the first entry.
      const target = index === 0 ? this.idByIndex[1] : this.idByIndex[index];
      if (target !== undefined && target !== '') entry.firstKeptEntryId = target;
      else this.ctx.warnings.push(`Line ${lineNo}: compaction keeps from record ${index}, which is not in the file; treated as keeping nothing before it.`);
    }
    const entries = this.asm.finish();
    let title = this.sessionName;
    if (!title) {
      const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user');
      title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, 'pi session');
    }
    const header = this.header;
    const span = timeSpan(entries, this.asm.fallbackTime);
    const createdAt = toMs(header.timestamp) ?? span.createdAt;
    const updatedAt = Math.max(createdAt, span.updatedAt);
    const provider = str(header.provider);
    const headerModel = str(header.modelId);
    const meta = compact({
      id: newId(),
      title,
      createdAt,
      updatedAt,
      leafId: this.lastId,
      model: this.model ?? (headerModel ? (provider ? `${provider}:${headerModel}` : headerModel) : undefined),
      cwd: str(header.cwd),
      undated: this.asm.undated || undefined,
      source: compact({ format: 'pi', fileName: this.ctx.fileName, hash, originalId: str(header.id) }),
    });
    return { format: 'pi', sessions: [{ meta, entries }], warnings: this.ctx.warnings };
  }
}

export function piSink(ctx: ReadContext): JsonlSink {
  return new PiSink(ctx);
}

export function readPi(text: string, opts: ImportOptions = {}): ImportResult {
  return readJsonlText(text, 'pi', piSink, opts);
}
