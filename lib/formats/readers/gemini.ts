import { newId } from '@/lib/session/ids';
import type { AssistantContent, AssistantMessage, SessionEntry, ToolResultContent, ToolResultMessage, Usage, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { DETECT_HEAD_CHARS, scanHead } from '../detect';
import { contentHash } from '../hash';
import { parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, base64Image, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { readJsonlText, type JsonlSink, type ReadContext } from './jsonl';

/**
 * Gemini CLI saved sessions (~/.gemini/tmp/<project hash>/chats/session-*).
 *
 * Two forms with one record shape: the older `.json` document
 * `{sessionId, projectHash, startTime, lastUpdated, messages[]}`, and the newer
 * `.jsonl` log: a metadata line, then message records; a record whose id was
 * seen before replaces it (the CLI rewrites a reply as its tool calls finish),
 * when it is the same kind of message; otherwise (and anywhere in the older
 * form, whose messages are each their own) two messages that share an id are
 * both kept, the later under a new id, with a warning,
 * `{$set: {…}}` updates the metadata, and `{$rewindTo: id}` drops that message
 * and everything after it from the conversation.
 *
 * Representation choices:
 * - Entry ids are the message ids. A rewind does not delete: the messages it
 *   dropped stay as an abandoned branch, and what follows continues from the
 *   message before the rewind point.
 * - A `gemini` message → one assistant entry (thoughts as thinking, its text,
 *   its toolCalls as toolCall parts), then one toolResult per tool call
 *   (`<message id>:<call id>`), an error unless its status is "success".
 * - tokens → usage: `input` counts cached tokens, so cache reads are taken out;
 *   thought tokens are billed as output.
 * - `info` / `warning` messages are the CLI talking to the user: notes
 *   (`custom`), not sent. An `error` message is a failed reply.
 */

const ROLE_NOTES = new Set(['info', 'warning']);

interface Meta {
  sessionId?: string;
  startTime?: string;
  lastUpdated?: string;
  summary?: string;
  kind?: string;
}

/** Text of a Gemini PartListUnion: a string, a part, or a list of parts. */
function partsOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ text: content }];
  const one = obj(content);
  if (one) return [one];
  return (arr(content) ?? []).map((p) => (typeof p === 'string' ? { text: p } : obj(p))).filter((p): p is Json => p !== undefined);
}

function textOf(content: unknown): string {
  return partsOf(content)
    .map((p) => str(p.text))
    .filter((t): t is string => t !== undefined)
    .join('');
}

function inlineImage(p: Json): UserContent | undefined {
  const inline = obj(p.inlineData);
  if (inline && typeof inline.data === 'string') {
    const mime = str(inline.mimeType) ?? 'application/octet-stream';
    if (mime.startsWith('image/')) return base64Image(inline.data, mime);
    return { type: 'file', name: str(inline.displayName) ?? 'attachment', mimeType: mime, byteLength: Math.floor((inline.data.length * 3) / 4) };
  }
  const file = obj(p.fileData);
  if (file) {
    const mime = str(file.mimeType) ?? 'application/octet-stream';
    const uri = str(file.fileUri);
    if (mime.startsWith('image/')) return compact({ type: 'image' as const, mimeType: mime, url: uri });
    return { type: 'file', name: uri ?? 'file', mimeType: mime, byteLength: 0 };
  }
  return undefined;
}

function userContent(content: unknown): UserContent[] {
  const out: UserContent[] = [];
  for (const p of partsOf(content)) {
    if (typeof p.text === 'string') out.push(textPart(p.text));
    else {
      const media = inlineImage(p);
      if (media) out.push(media);
    }
  }
  return out;
}

function toolResultContent(result: unknown): ToolResultContent[] {
  const out: ToolResultContent[] = [];
  for (const p of partsOf(result)) {
    const fr = obj(p.functionResponse);
    if (fr) {
      const response = obj(fr.response);
      const text = str(response?.output) ?? str(response?.error) ?? jsonText(fr.response ?? null);
      out.push(textPart(text));
    } else if (typeof p.text === 'string') out.push(textPart(p.text));
    else {
      const media = inlineImage(p);
      if (media?.type === 'image') out.push(media);
    }
  }
  return out;
}

function geminiUsage(t: Json | undefined): Usage | undefined {
  if (!t) return undefined;
  const input = num(t.input);
  const output = num(t.output);
  if (input === undefined && output === undefined) return undefined;
  const cached = num(t.cached) ?? 0;
  return compact({
    input: Math.max(0, (input ?? 0) - cached),
    output: (output ?? 0) + (num(t.thoughts) ?? 0),
    cacheRead: cached || undefined,
    totalTokens: num(t.total),
  });
}

class GeminiSink implements JsonlSink {
  private readonly meta: Meta = {};
  private hasMeta = false;
  /** Message ids in first-seen order, the latest record of each, and the message each follows. */
  private readonly order: string[] = [];
  private readonly latest = new Map<string, Json>();
  private readonly parentOf = new Map<string, string | null>();
  /** Ids of the conversation as it stands (after rewinds). */
  private chain: string[] = [];
  /** Messages kept under a new id because another message already had theirs. */
  private renamed = 0;

  constructor(private readonly ctx: ReadContext) {}

  /** `lineNo` 0: the single-document form, where a line says nothing useful. */
  private fail(lineNo: number, problem: string): never {
    if (lineNo === 0) throw new ImportError(problem.charAt(0).toUpperCase() + problem.slice(1), { format: 'gemini-cli' });
    throw new ImportError(`Line ${lineNo}: ${problem}`, { format: 'gemini-cli', line: lineNo });
  }

  record(rec: Json, lineNo: number): void {
    if (typeof rec.$rewindTo === 'string') {
      const at = this.chain.indexOf(rec.$rewindTo);
      this.chain = at === -1 ? [] : this.chain.slice(0, at);
      return;
    }
    const set = obj(rec.$set);
    if (set) {
      this.takeMeta(set);
      return;
    }
    if (typeof rec.id === 'string' && typeof rec.type === 'string') {
      this.message(rec, true);
      return;
    }
    if (typeof rec.sessionId === 'string') {
      this.takeMeta(rec);
      this.hasMeta = true;
      // The older single-document form: its messages in order.
      for (const m of arr(rec.messages) ?? []) {
        const msg = obj(m);
        if (!msg || typeof msg.id !== 'string') this.fail(lineNo, 'a message without an "id" in the session\'s messages');
        this.message(msg, false);
      }
      return;
    }
    this.fail(lineNo, 'not a Gemini CLI session record (expected session metadata, a message with "id" and "type", "$set" or "$rewindTo")');
  }

  private takeMeta(m: Json): void {
    this.meta.sessionId = str(m.sessionId) ?? this.meta.sessionId;
    this.meta.startTime = str(m.startTime) ?? this.meta.startTime;
    this.meta.lastUpdated = str(m.lastUpdated) ?? this.meta.lastUpdated;
    this.meta.summary = str(m.summary) ?? this.meta.summary;
    this.meta.kind = str(m.kind) ?? this.meta.kind;
  }

  /** `rewrites`: a record may rewrite an earlier one with its id (the .jsonl log); else every record is a message of its own. */
  private message(rec: Json, rewrites: boolean): void {
    let id = rec.id as string;
    const earlier = this.latest.get(id);
    if (earlier && !(rewrites && earlier.type === rec.type)) {
      // Not a rewrite: a different message that happens to carry the same id. Dropping either would lose a message.
      let n = 2;
      while (this.latest.has(`${id}~${n}`)) n++;
      id = `${id}~${n}`;
      rec = { ...rec, id };
      this.renamed++;
    }
    if (!this.latest.has(id)) {
      this.order.push(id);
      this.parentOf.set(id, this.chain.at(-1) ?? null);
    }
    if (!this.chain.includes(id)) this.chain.push(id);
    this.latest.set(id, rec);
  }

  finish(hash: string): ImportResult {
    if (!this.hasMeta && this.order.length === 0) throw new ImportError('The file holds no Gemini CLI session.', { format: 'gemini-cli' });
    if (this.renamed > 0) {
      this.ctx.warnings.push(`${this.renamed} message${this.renamed === 1 ? '' : 's'} shared an id with an earlier, different message; both kept, the later under a new id.`);
    }
    const asm = new EntryAssembler('gemini-cli', this.ctx.warnings, this.ctx.importedAt);
    /** Message id → the entry its followers attach to (the last tool result of a reply). */
    const tail = new Map<string, string>();
    let model: string | undefined;
    let firstUser: string | undefined;
    for (const id of this.order) {
      const rec = this.latest.get(id)!;
      const parentMsg = this.parentOf.get(id) ?? null;
      const parentId = parentMsg === null ? null : (tail.get(parentMsg) ?? parentMsg);
      const timestamp = toMs(rec.timestamp) ?? NO_TIME;
      const base = { id, parentId, timestamp };
      const type = str(rec.type);
      let last: string = id;
      if (type === 'user') {
        firstUser ??= textOf(rec.displayContent ?? rec.content);
        asm.add({ ...base, type: 'message', message: { role: 'user', content: userContent(rec.content) } });
      } else if (type === 'gemini') {
        const entries = this.reply(rec, base);
        for (const e of entries) asm.add(e);
        last = entries[entries.length - 1]!.id;
        const m = entries[0]!.type === 'message' && entries[0]!.message.role === 'assistant' ? entries[0]!.message.model : undefined;
        if (m) model = m;
      } else if (type === 'error') {
        const text = textOf(rec.content);
        asm.add({ ...base, type: 'message', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: text || 'error' } });
      } else {
        const text = textOf(rec.content);
        const known = type !== undefined && ROLE_NOTES.has(type);
        asm.add({ ...base, type: 'custom', customType: `gemini-cli:${type ?? 'unknown'}`, data: rec, display: known ? text : `${type ?? 'unknown'} message${text ? `: ${text}` : ''}` });
      }
      tail.set(id, last);
    }
    const entries = asm.finish();
    if (entries.length === 0) throw new ImportError('The session holds no messages.', { format: 'gemini-cli' });
    const leafMsg = this.chain.at(-1);
    const leafId = leafMsg !== undefined ? (tail.get(leafMsg) ?? leafMsg) : entries[entries.length - 1]!.id;
    const started = toMs(this.meta.startTime);
    const span = timeSpan(entries, started ?? asm.fallbackTime);
    const createdAt = Math.min(started ?? span.createdAt, span.createdAt);
    const meta = compact({
      id: newId(),
      title: titleFrom(this.meta.summary ?? firstUser, 'Gemini CLI session'),
      createdAt,
      updatedAt: Math.max(createdAt, span.updatedAt, toMs(this.meta.lastUpdated) ?? createdAt),
      leafId,
      model,
      undated: (asm.undated && started === undefined) || undefined,
      source: compact({ format: 'gemini-cli', fileName: this.ctx.fileName, hash, originalId: this.meta.sessionId }),
    });
    return { format: 'gemini-cli', sessions: [{ meta, entries }], warnings: this.ctx.warnings };
  }

  /** One assistant entry for the reply, then one result per tool call. */
  private reply(rec: Json, base: { id: string; parentId: string | null; timestamp: number }): SessionEntry[] {
    const content: AssistantContent[] = [];
    for (const raw of arr(rec.thoughts) ?? []) {
      const t = obj(raw);
      if (!t) continue;
      const subject = str(t.subject);
      const description = str(t.description) ?? '';
      content.push({ type: 'thinking', thinking: subject ? `**${subject}**\n\n${description}` : description });
    }
    const text = textOf(rec.content);
    if (text) content.push(textPart(text));
    const calls = (arr(rec.toolCalls) ?? []).map(obj).filter((c): c is Json => c !== undefined);
    const results: ToolResultMessage[] = [];
    calls.forEach((c, i) => {
      const id = str(c.id) ?? `${base.id}-call${i + 1}`;
      const name = str(c.name) ?? 'unknown';
      content.push({ type: 'toolCall', id, name, arguments: obj(c.args) ?? {} });
      const status = str(c.status) ?? 'unknown';
      const parts = c.result === undefined || c.result === null ? [] : toolResultContent(c.result);
      results.push({
        role: 'toolResult',
        toolCallId: id,
        toolName: name,
        content: parts.length ? parts : [textPart(`(no result recorded; status: ${status})`)],
        isError: status !== 'success',
      });
    });
    const modelName = str(rec.model);
    const message: AssistantMessage = compact({
      role: 'assistant' as const,
      content,
      model: modelName ? `google:${modelName}` : undefined,
      usage: geminiUsage(obj(rec.tokens)),
      stopReason: calls.length ? ('toolUse' as const) : ('stop' as const),
    });
    const out: SessionEntry[] = [{ ...base, type: 'message', message }];
    let parent = base.id;
    for (const r of results) {
      const id = `${base.id}:${r.toolCallId}`;
      out.push({ id, parentId: parent, timestamp: base.timestamp, type: 'message', message: r });
      parent = id;
    }
    return out;
  }
}

export function geminiSink(ctx: ReadContext): JsonlSink {
  return new GeminiSink(ctx);
}

/** Whether a Gemini CLI file is the older single document (pretty-printed, so it cannot be read line by line). */
export function isGeminiDocument(head: string): boolean {
  const shape = scanHead(head.slice(0, DETECT_HEAD_CHARS));
  return shape.multiline || (!shape.moreLines && shape.keys.has('messages'));
}

/** The `.jsonl` log, or the older `.json` document. */
export function readGemini(text: string, opts: ImportOptions = {}): ImportResult {
  const body = text.replace(/^\uFEFF/, '');
  if (!isGeminiDocument(body)) return readJsonlText(text, 'gemini-cli', geminiSink, opts);
  const doc = obj(parseJsonDocument(body, 'gemini-cli'));
  if (!doc) throw new ImportError('Expected a Gemini CLI session: a JSON object with "sessionId" and "messages".', { format: 'gemini-cli' });
  const sink = new GeminiSink({ format: 'gemini-cli', fileName: opts.fileName, importedAt: opts.importedAt, warnings: [] });
  sink.record(doc, 0);
  return sink.finish(contentHash(text));
}
