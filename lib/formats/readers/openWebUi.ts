import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, SessionEntry, SessionSnapshot, StopReason, Usage, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { contentHash } from '../hash';
import { excerpt, parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, base64Image, compact, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { ConversationCollector, type ReaderContext } from './collector';

/**
 * Open WebUI: the export is an array of `{id, title, chat: {…}, created_at,
 * updated_at}` (times in seconds); a chat as stored in its database is the bare
 * `chat` object `{title, models, history: {currentId, messages: {id: {…}}},
 * messages[]}`. Both are read.
 *
 * - `history.messages` is the tree (parentId / childrenIds): one entry per
 *   message, its id kept, so every branch (regenerations, edits) is there;
 *   the leaf is `history.currentId`. Without `history`, the flat `messages`
 *   list and its parentIds are used.
 * - Assistant usage: OpenAI-style (prompt_tokens / completion_tokens) or
 *   Ollama-style (prompt_eval_count / eval_count). An `error` → a failed
 *   reply; `done: false` → interrupted.
 * - Image files (data URLs) → image parts; other files → file parts.
 * - Chats without messages are skipped and counted.
 */

export type OpenWebUiContext = ReaderContext;

function usageOf(u: Json | undefined): Usage | undefined {
  if (!u) return undefined;
  const input = num(u.prompt_tokens) ?? num(u.input_tokens) ?? num(u.prompt_eval_count);
  const output = num(u.completion_tokens) ?? num(u.output_tokens) ?? num(u.eval_count);
  if (input === undefined && output === undefined) return undefined;
  return compact({ input: input ?? 0, output: output ?? 0, totalTokens: num(u.total_tokens) });
}

function files(m: Json): UserContent[] {
  const out: UserContent[] = [];
  for (const raw of arr(m.files) ?? []) {
    const f = obj(raw);
    if (!f) continue;
    const url = str(f.url) ?? '';
    const name = str(f.name) ?? str(obj(f.file)?.filename) ?? 'file';
    if (f.type === 'image' || url.startsWith('data:image/')) out.push(url.startsWith('data:') ? base64Image(url, undefined) : { type: 'image', mimeType: 'image/*', ...(url ? { url } : {}) });
    else out.push({ type: 'file', name, mimeType: str(obj(obj(f.file)?.meta)?.content_type) ?? 'application/octet-stream', byteLength: num(f.size) ?? 0 });
  }
  return out;
}

/** The messages of a chat by id, from its history tree or, failing that, its flat list. */
function messagesOf(chat: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  const history = obj(obj(chat.history)?.messages);
  if (history) {
    for (const [key, value] of Object.entries(history)) {
      const m = obj(value);
      if (m) out.set(str(m.id) ?? key, m);
    }
    return out;
  }
  for (const raw of arr(chat.messages) ?? []) {
    const m = obj(raw);
    const id = str(m?.id);
    if (m && id) out.set(id, m);
  }
  return out;
}

/** One chat (an export item or a bare chat object) → a session, or null when it has no messages. */
export function convertOpenWebUiChat(raw: unknown, index: number, ctx: OpenWebUiContext): SessionSnapshot | null {
  const where = `Chat ${index + 1}`;
  const item = obj(raw);
  if (!item) throw new ImportError(`${where}: expected a JSON object`, { format: 'open-webui' });
  const chat = obj(item.chat) ?? item;
  if (!obj(chat.history) && !arr(chat.messages)) throw new ImportError(`${where}${item.title ? ` (${excerpt(String(item.title), 40)})` : ''}: has no message history`, { format: 'open-webui' });
  const messages = messagesOf(chat);
  if (messages.size === 0) return null;
  const warnings: string[] = [];
  const asm = new EntryAssembler('open-webui', warnings, ctx.importedAt);
  const chatTime = toMs(item.created_at, 's') ?? toMs(chat.timestamp);
  for (const [id, m] of messages) {
    const parent = str(m.parentId);
    const base = { id, parentId: parent && messages.has(parent) ? parent : null, timestamp: toMs(m.timestamp, 's') ?? chatTime ?? NO_TIME };
    const content = str(m.content) ?? '';
    let entry: SessionEntry;
    if (m.role === 'user') entry = { ...base, type: 'message', message: { role: 'user', content: [textPart(content), ...files(m)] } };
    else if (m.role === 'assistant') {
      const error = obj(m.error);
      let stopReason: StopReason = 'stop';
      if (error || m.error === true) stopReason = 'error';
      else if (m.done === false) stopReason = 'interrupted';
      const modelName = str(m.model);
      const message: AssistantMessage = compact({
        role: 'assistant' as const,
        content: content ? [textPart(content)] : [],
        model: modelName,
        usage: usageOf(obj(m.usage) ?? obj(obj(m.info)?.usage) ?? obj(m.info)),
        stopReason,
        errorMessage: stopReason === 'error' ? (str(error?.content) ?? 'error') : undefined,
      });
      entry = { ...base, type: 'message', message };
    } else entry = { ...base, type: 'custom', customType: `open-webui:${str(m.role) ?? 'unknown'}`, data: m, display: content || `${str(m.role) ?? 'unknown'} message` };
    asm.add(entry);
  }
  const entries = asm.finish();
  const tree = new SessionTree(entries);
  const current = str(obj(chat.history)?.currentId);
  const leafId = current && tree.has(current) && tree.children(current).length === 0 ? current : tree.newestLeaf();
  let title = (str(item.title) ?? str(chat.title))?.trim();
  if (!title || title === 'New Chat') {
    const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user');
    title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, title || 'Open WebUI chat');
  }
  let model: string | undefined;
  for (const e of tree.pathTo(leafId)) if (e.type === 'message' && e.message.role === 'assistant' && e.message.model) model = e.message.model;
  model ??= str(arr(chat.models)?.[0]);
  const span = timeSpan(entries, chatTime ?? asm.fallbackTime);
  const createdAt = chatTime ?? span.createdAt;
  const system = str(obj(chat.params)?.system) ?? str(chat.system);
  for (const w of warnings) ctx.warnings.push(`${where} (${excerpt(title, 40)}): ${w}`);
  return {
    meta: compact({
      id: newId(),
      title,
      createdAt,
      updatedAt: Math.max(createdAt, span.updatedAt, toMs(item.updated_at, 's') ?? createdAt),
      leafId,
      model,
      systemPrompt: system || undefined,
      undated: (asm.undated && chatTime === undefined) || undefined,
      source: compact({ format: 'open-webui', fileName: ctx.fileName, originalId: str(item.id) || str(chat.id) || undefined }),
    }),
    entries,
  };
}

export class OpenWebUiCollector extends ConversationCollector {
  constructor(opts: ImportOptions) {
    super(opts, { format: 'open-webui', convert: convertOpenWebUiChat, noun: ['chat', 'chats'] });
  }
}

export function readOpenWebUi(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = parseJsonDocument(text, 'open-webui');
  const collector = new OpenWebUiCollector(opts);
  if (Array.isArray(doc)) for (const chat of doc) collector.add(chat);
  else if (obj(doc)) collector.add(doc);
  else throw new ImportError('Expected an Open WebUI export: an array of chats, or one chat object with a "history".', { format: 'open-webui' });
  return collector.finish(contentHash(text));
}
