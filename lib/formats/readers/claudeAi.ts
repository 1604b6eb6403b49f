import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantContent, ChatMessage, SessionSnapshot, ToolResultContent, ToolResultMessage, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { contentHash } from '../hash';
import { excerpt, parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { ConversationCollector, type ReaderContext } from './collector';

/**
 * Claude.ai data export (`conversations.json`): an array of conversations
 * `{uuid, name, created_at, updated_at, chat_messages[]}`; each message has a
 * sender (human / assistant), content blocks (text, thinking, tool_use,
 * tool_result) with `text` as a plain copy, attachments whose text Claude.ai
 * extracted, and files (uploads it kept no content of).
 *
 * - One session per conversation; conversations without messages are skipped
 *   and counted (the export lists every conversation ever opened).
 * - Messages form a chain in export order, or a tree where the export names
 *   `parent_message_uuid`; the leaf is the last message.
 * - Tools run on Claude.ai's side, so an assistant message holds both the
 *   tool_use and its tool_result: it is split into assistant → toolResult →
 *   assistant entries, the last keeping the message's uuid (as LibreChat's).
 * - Attachments with extracted text → file parts carrying the text; files →
 *   placeholders (an image part for image names, else a file part).
 */

/** Claude.ai's own parent of a conversation's first message. */
const ROOT_PARENT = '00000000-0000-4000-8000-000000000000';
const IMAGE_EXT: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export type ClaudeAiContext = ReaderContext;

function blocks(m: Json): Json[] {
  const list = (arr(m.content) ?? []).map(obj).filter((b): b is Json => b !== undefined);
  if (list.length) return list;
  const text = str(m.text);
  return text !== undefined ? [{ type: 'text', text }] : [];
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  return (arr(content) ?? [])
    .map((b) => (typeof b === 'string' ? b : (str(obj(b)?.text) ?? jsonText(b))))
    .join('\n');
}

function attachments(m: Json): UserContent[] {
  const out: UserContent[] = [];
  for (const raw of arr(m.attachments) ?? []) {
    const a = obj(raw);
    if (!a) continue;
    const text = str(a.extracted_content);
    out.push(
      compact({
        type: 'file' as const,
        name: str(a.file_name) ?? 'attachment',
        mimeType: str(a.file_type) || 'text/plain',
        byteLength: num(a.file_size) ?? text?.length ?? 0,
        text,
      }),
    );
  }
  for (const raw of arr(m.files) ?? []) {
    const f = obj(raw);
    if (!f) continue;
    const name = str(f.file_name) ?? 'file';
    const image = IMAGE_EXT[name.split('.').pop()?.toLowerCase() ?? ''] ?? (f.file_kind === 'image' ? 'image/*' : undefined);
    out.push(image ? { type: 'image', mimeType: image } : { type: 'file', name, mimeType: 'application/octet-stream', byteLength: 0 });
  }
  return out;
}

/** The assistant's blocks as assistant / toolResult segments, in order. */
function assistantSegments(m: Json, uuid: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  let cur: AssistantContent[] = [];
  const names = new Map<string, string>();
  let lastCall: { id: string; name: string } | null = null;
  let n = 0;
  const close = () => {
    if (cur.length) out.push({ role: 'assistant', content: cur, stopReason: 'toolUse' });
    cur = [];
  };
  for (const b of blocks(m)) {
    if (b.type === 'text') cur.push(textPart(str(b.text) ?? ''));
    else if (b.type === 'thinking') cur.push({ type: 'thinking', thinking: str(b.thinking) ?? '' });
    else if (b.type === 'tool_use') {
      const id = str(b.id) ?? `${uuid}-tool${++n}`;
      const name = str(b.name) ?? 'tool';
      names.set(id, name);
      lastCall = { id, name };
      cur.push({ type: 'toolCall', id, name, arguments: obj(b.input) ?? { input: b.input ?? null } });
    } else if (b.type === 'tool_result') {
      close();
      const id = str(b.tool_use_id) ?? lastCall?.id ?? `${uuid}-tool${++n}`;
      const content: ToolResultContent[] = [textPart(blockText(b.content))];
      const result: ToolResultMessage = { role: 'toolResult', toolCallId: id, toolName: str(b.name) ?? names.get(id) ?? lastCall?.name ?? 'tool', content, isError: b.is_error === true };
      out.push(result);
    } else cur.push(textPart(`[${String(b.type)}] ${jsonText(b)}`));
  }
  // A reply that ends on a tool result wrote nothing after it: the result is its last segment.
  if (cur.length || out.length === 0) out.push({ role: 'assistant', content: cur, stopReason: 'stop' });
  return out;
}

/** One conversation → one session, or null when it holds no messages. `index` is 0-based, for messages. */
export function convertClaudeAiConversation(raw: unknown, index: number, ctx: ClaudeAiContext): SessionSnapshot | null {
  const where = `Conversation ${index + 1}`;
  const conv = obj(raw);
  if (!conv) throw new ImportError(`${where}: expected a JSON object, found ${Array.isArray(raw) ? 'a JSON array' : String(raw)}`, { format: 'claude-ai' });
  const list = arr(conv.chat_messages);
  if (!list) throw new ImportError(`${where}${conv.name ? ` (${excerpt(String(conv.name), 40)})` : ''}: has no "chat_messages" list`, { format: 'claude-ai' });
  if (list.length === 0) return null;
  const warnings: string[] = [];
  const asm = new EntryAssembler('claude-ai', warnings, ctx.importedAt);
  const tail = new Map<string, string>();
  let prevTail: string | null = null;
  let lastTs = toMs(conv.created_at) ?? NO_TIME;
  list.forEach((rawMsg, i) => {
    const m = obj(rawMsg);
    if (!m) return;
    const uuid = str(m.uuid) ?? `claude-ai-${i}`;
    const parentUuid = str(m.parent_message_uuid);
    const parentId = parentUuid && parentUuid !== ROOT_PARENT && tail.has(parentUuid) ? tail.get(parentUuid)! : prevTail;
    lastTs = toMs(m.created_at) ?? lastTs;
    const messages: ChatMessage[] =
      m.sender === 'human'
        ? [{ role: 'user', content: [...blocks(m).filter((b) => b.type === 'text').map((b) => textPart(str(b.text) ?? '')), ...attachments(m)] }]
        : assistantSegments(m, uuid);
    let parent = parentId;
    messages.forEach((message, j) => {
      const id = j === messages.length - 1 ? uuid : `${uuid}:${j + 1}`;
      asm.add({ id, parentId: parent, timestamp: lastTs, type: 'message', message });
      parent = id;
    });
    tail.set(uuid, uuid);
    prevTail = uuid;
  });
  const entries = asm.finish();
  const tree = new SessionTree(entries);
  const leafId = prevTail !== null && tree.has(prevTail) ? prevTail : tree.newestLeaf();
  let title = str(conv.name)?.trim();
  if (!title) {
    const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user' && messageText(e.message).trim() !== '');
    title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, 'Claude conversation');
  }
  const created = toMs(conv.created_at);
  const span = timeSpan(entries, created ?? asm.fallbackTime);
  const createdAt = created ?? span.createdAt;
  const model = str(conv.model);
  for (const w of warnings) ctx.warnings.push(`${where} (${excerpt(title, 40)}): ${w}`);
  return {
    meta: compact({
      id: newId(),
      title,
      createdAt,
      updatedAt: Math.max(createdAt, span.updatedAt, toMs(conv.updated_at) ?? createdAt),
      leafId,
      model: model ? `anthropic:${model}` : undefined,
      undated: (asm.undated && created === undefined) || undefined,
      source: compact({ format: 'claude-ai', fileName: ctx.fileName, originalId: str(conv.uuid) }),
    }),
    entries,
  };
}

export class ClaudeAiCollector extends ConversationCollector {
  constructor(opts: ImportOptions) {
    super(opts, { format: 'claude-ai', convert: convertClaudeAiConversation, noun: ['conversation', 'conversations'] });
  }
}

export function readClaudeAi(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = parseJsonDocument(text, 'claude-ai');
  const collector = new ClaudeAiCollector(opts);
  if (Array.isArray(doc)) for (const conv of doc) collector.add(conv);
  else if (obj(doc) && Array.isArray((doc as Json).chat_messages)) collector.add(doc);
  else throw new ImportError('Expected a Claude.ai export: an array of conversations with "chat_messages".', { format: 'claude-ai' });
  return collector.finish(contentHash(text));
}
