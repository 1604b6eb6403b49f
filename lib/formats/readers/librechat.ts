import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import type { AssistantContent, ChatMessage, SessionEntry, SessionSnapshot, StopReason, ToolResultMessage, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { contentHash } from '../hash';
import { excerpt, parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, compact, jsonText, num, numLike, obj, str, textPart, titleFrom, toMs, type Json } from '../util';

/**
 * LibreChat conversation export: {conversationId, title, endpoint, options,
 * messages}. Messages are either a nested tree (`children[]`, the "branches +
 * recursive" export) or a flat list linked by parentMessageId; the all-zero id
 * is the root. Entry ids are the messageIds, so the tree is the export's.
 *
 * LibreChat has no "current message": the leaf is reached by following the
 * last child from the last root, which is the branch LibreChat shows by default.
 * Usage is only recorded where the export knows the prompt size (promptTokens);
 * a bare tokenCount is the size of the message itself, not what the model read.
 */

const ROOT = '00000000-0000-0000-0000-000000000000';

const PROVIDERS: Record<string, string> = {
  openAI: 'openai',
  azureOpenAI: 'azure',
  gptPlugins: 'openai',
  assistants: 'openai',
  azureAssistants: 'azure',
  anthropic: 'anthropic',
  google: 'google',
  bedrock: 'bedrock',
};

function qualified(model: string | undefined, endpoint: string | undefined): string | undefined {
  if (!model) return undefined;
  if (!endpoint) return model;
  return `${PROVIDERS[endpoint] ?? endpoint.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}:${model}`;
}

function truthy(v: unknown): boolean {
  return v === true || v === 'true' || v === 'True';
}

const FINISH: Record<string, StopReason> = { stop: 'stop', length: 'length', tool_calls: 'toolUse', function_call: 'toolUse' };

interface Flat {
  msg: Json;
  nestedParent: string | null;
}

function flatten(messages: unknown[]): Flat[] {
  const out: Flat[] = [];
  const stack: { v: unknown; parent: string | null }[] = [];
  for (let i = messages.length - 1; i >= 0; i--) stack.push({ v: messages[i], parent: null });
  while (stack.length) {
    const { v, parent } = stack.pop()!;
    const msg = obj(v);
    if (!msg) continue;
    out.push({ msg, nestedParent: parent });
    const kids = arr(msg.children) ?? [];
    const id = str(msg.messageId) ?? null;
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ v: kids[i], parent: id });
  }
  return out;
}

type Segment = { kind: 'assistant'; content: AssistantContent[] } | { kind: 'result'; message: ToolResultMessage };

/** Newer LibreChat messages carry typed content parts; tool calls carry their own output. */
function assistantSegments(content: unknown[], fallbackText: string): Segment[] {
  const segs: Segment[] = [];
  let cur: AssistantContent[] = [];
  let results: ToolResultMessage[] = [];
  const flush = () => {
    if (cur.length) segs.push({ kind: 'assistant', content: cur });
    for (const r of results) segs.push({ kind: 'result', message: r });
    cur = [];
    results = [];
  };
  for (const raw of content) {
    const p = obj(raw);
    if (!p) continue;
    if (p.type === 'tool_call') {
      const call = obj(p.tool_call) ?? {};
      const id = str(call.id) ?? `call-${segs.length}-${cur.length}`;
      const name = str(call.name) ?? 'tool';
      let args: unknown = call.args;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          /* keep the string */
        }
      }
      cur.push({ type: 'toolCall', id, name, arguments: obj(args) ?? { input: args ?? null } });
      if (call.output !== undefined) results.push({ role: 'toolResult', toolCallId: id, toolName: name, content: [textPart(jsonText(call.output))], isError: false });
      continue;
    }
    if (results.length) flush();
    if (p.type === 'text') cur.push(textPart(str(p.text) ?? str(obj(p.text)?.value) ?? ''));
    else if (p.type === 'think') cur.push({ type: 'thinking', thinking: str(p.think) ?? '' });
    else if (p.type === 'error') cur.push(textPart(`[error] ${jsonText(p.error ?? p)}`));
    else cur.push(textPart(`[${String(p.type)}] ${jsonText(p)}`));
  }
  flush();
  if (segs.length === 0) segs.push({ kind: 'assistant', content: fallbackText ? [textPart(fallbackText)] : [] });
  return segs;
}

function userContent(msg: Json): UserContent[] {
  const out: UserContent[] = [];
  const parts = arr(msg.content);
  if (parts && parts.length) {
    for (const raw of parts) {
      const p = obj(raw);
      if (!p) continue;
      if (p.type === 'text') out.push(textPart(str(p.text) ?? str(obj(p.text)?.value) ?? ''));
      else if (p.type === 'image_url') {
        const url = str(p.image_url) ?? str(obj(p.image_url)?.url);
        if (url) out.push({ type: 'image', mimeType: 'image/*', url });
      }
    }
  } else out.push(textPart(str(msg.text) ?? ''));
  for (const raw of arr(msg.files) ?? []) {
    const f = obj(raw);
    if (!f) continue;
    const type = str(f.type) ?? 'application/octet-stream';
    if (type.startsWith('image/')) out.push(compact({ type: 'image' as const, mimeType: type, url: str(f.filepath), width: num(f.width), height: num(f.height), byteLength: num(f.bytes) }));
    else out.push({ type: 'file', name: str(f.filename) ?? 'file', mimeType: type, byteLength: num(f.bytes) ?? 0 });
  }
  return out;
}

export function convertLibreChatConversation(raw: unknown, index: number, opts: ImportOptions, warnings: string[]): SessionSnapshot {
  const where = `Conversation ${index + 1}`;
  const conv = obj(raw);
  if (!conv) throw new ImportError(`${where}: expected a JSON object`, { format: 'librechat' });
  const messages = arr(conv.messages);
  if (!messages) throw new ImportError(`${where}: has no "messages" list`, { format: 'librechat' });
  const options = obj(conv.options) ?? {};
  const convEndpoint = str(conv.endpoint) ?? str(options.endpoint);
  const convModel = str(options.model) ?? str(conv.model);
  const asm = new EntryAssembler('librechat', warnings, opts.importedAt);
  const tsOf = new Map<string, number>();
  const convCreated = toMs(conv.createdAt);
  let fallbackTs = convCreated ?? NO_TIME;
  let n = 0;
  for (const { msg, nestedParent } of flatten(messages)) {
    const id = str(msg.messageId) ?? `librechat-${n}`;
    n++;
    let parentId = str(msg.parentMessageId) ?? nestedParent;
    if (parentId === ROOT) parentId = null;
    const ts = toMs(msg.createdAt) ?? toMs(msg.updatedAt) ?? (parentId ? tsOf.get(parentId) : undefined) ?? fallbackTs;
    fallbackTs = ts;
    tsOf.set(id, ts);
    const base = { parentId, timestamp: ts };
    if (truthy(msg.isCreatedByUser)) {
      asm.add({ ...base, id, type: 'message', message: { role: 'user', content: userContent(msg) } });
      continue;
    }
    const prompt = numLike(msg.promptTokens);
    const usage = prompt !== undefined ? { input: prompt, output: numLike(msg.tokenCount) ?? 0 } : undefined;
    let stopReason: StopReason | undefined = FINISH[str(msg.finish_reason) ?? ''];
    if (truthy(msg.unfinished)) stopReason = 'interrupted';
    if (truthy(msg.error)) stopReason = 'error';
    const model = qualified(str(msg.model) ?? convModel, str(msg.endpoint) ?? convEndpoint);
    const segs = assistantSegments(arr(msg.content) ?? [], str(msg.text) ?? '');
    let parent = parentId;
    segs.forEach((seg, i) => {
      const last = i === segs.length - 1;
      // The last segment keeps the messageId, so replies to this message attach after the whole chain.
      const segId = last ? id : `${id}:${i + 1}`;
      let message: ChatMessage;
      if (seg.kind === 'result') message = seg.message;
      else {
        message = compact({
          role: 'assistant' as const,
          content: seg.content,
          model,
          usage: last ? usage : undefined,
          stopReason: last ? stopReason : 'toolUse',
          errorMessage: last && stopReason === 'error' ? str(msg.text) || 'error' : undefined,
        });
      }
      const entry: SessionEntry = { ...base, id: segId, parentId: parent, type: 'message', message };
      asm.add(entry);
      parent = segId;
    });
  }
  const entries = asm.finish();
  // The branch LibreChat shows: the last child at every level, starting from the last root.
  const children = new Map<string | null, SessionEntry[]>();
  const ids = new Set(entries.map((e) => e.id));
  for (const e of entries) {
    const p = e.parentId !== null && ids.has(e.parentId) ? e.parentId : null;
    const list = children.get(p);
    if (list) list.push(e);
    else children.set(p, [e]);
  }
  let leafId: string | null = null;
  let level = children.get(null);
  while (level && level.length) {
    leafId = level[level.length - 1]!.id;
    level = children.get(leafId);
  }
  let title = str(conv.title)?.trim();
  if (!title) {
    const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user');
    title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, 'LibreChat conversation');
  }
  const span = timeSpan(entries, convCreated ?? asm.fallbackTime);
  const { createdAt } = span;
  const updatedAt = Math.max(span.updatedAt, toMs(conv.updatedAt) ?? span.updatedAt);
  const systemPrompt = str(options.promptPrefix) ?? str(conv.promptPrefix);
  if (entries.length === 0) warnings.push(`${where} (${excerpt(title, 40)}) holds no messages.`);
  return {
    meta: compact({
      id: newId(),
      title,
      createdAt,
      updatedAt,
      leafId,
      model: qualified(convModel, convEndpoint),
      systemPrompt: systemPrompt || undefined,
      undated: (asm.undated && convCreated === undefined) || undefined,
      source: compact({ format: 'librechat', fileName: opts.fileName, originalId: str(conv.conversationId) }),
    }),
    entries,
  };
}

export function readLibreChat(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = parseJsonDocument(text, 'librechat');
  const warnings: string[] = [];
  const convs = Array.isArray(doc) ? doc : [doc];
  const hash = contentHash(text);
  const sessions = convs.map((c, i) => convertLibreChatConversation(c, i, opts, warnings));
  for (const s of sessions) if (s.meta.source) s.meta.source.hash = hash;
  return { format: 'librechat', sessions, warnings };
}
