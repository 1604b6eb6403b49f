import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, SessionEntry, SessionSnapshot, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { contentHash } from '../hash';
import { parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';

/**
 * LobeChat export (`{exportType, state: {sessions, topics, messages,
 * sessionGroups}, version}`; the database export says `data` instead of
 * `state`). Messages belong to a session (`inbox` is the default assistant)
 * and usually to a topic.
 *
 * - One session per topic; messages of a session outside any topic form one
 *   more session. Title: the topic's title, unless it is the generic
 *   "Default Topic", then the assistant's name; else the first prompt.
 * - Order is by createdAt; a message follows its `parentId` when it names one
 *   (LobeChat sets it on replies), else the message before it.
 * - `error` → a failed reply with the provider's message. The "..." LobeChat
 *   writes while waiting is not content: left alone (no error, no answer), the
 *   reply never arrived and is marked interrupted.
 * - Files are ids: with the export's `files` table they become image or file
 *   parts by type; without it (older exports), image placeholders, as only
 *   images could be attached then.
 * - The assistant's config: system role → system prompt, model → model.
 * - Assistants without any message are skipped and counted.
 */

const DEFAULT_TOPIC = 'Default Topic';
const LOADING = '...';

interface Group {
  key: string;
  sessionId: string;
  topic: Json | undefined;
  messages: Json[];
}

function errorText(e: unknown): string {
  let v = e;
  if (typeof e === 'string') {
    try {
      v = JSON.parse(e);
    } catch {
      return e;
    }
  }
  const o = obj(v);
  return str(o?.message) ?? str(obj(obj(o?.body)?.error)?.message) ?? jsonText(v);
}

function qualified(provider: string | undefined, model: string | undefined): string | undefined {
  if (!model) return undefined;
  return provider ? `${provider}:${model}` : model;
}

function convertGroup(group: Group, session: Json | undefined, fileTable: Map<string, Json>, opts: ImportOptions, warnings: string[]): SessionSnapshot {
  const asm = new EntryAssembler('lobechat', warnings, opts.importedAt);
  const ordered = [...group.messages].sort((a, b) => (num(a.createdAt) ?? toMs(a.createdAt) ?? 0) - (num(b.createdAt) ?? toMs(b.createdAt) ?? 0));
  const ids = new Set(ordered.map((m) => str(m.id)).filter((id): id is string => id !== undefined));
  let prev: string | null = null;
  ordered.forEach((m, i) => {
    const id = str(m.id) ?? `lobe-${group.key}-${i}`;
    const parent = str(m.parentId);
    const base = { id, parentId: parent && ids.has(parent) ? parent : prev, timestamp: toMs(m.createdAt) ?? NO_TIME };
    const content = str(m.content) ?? '';
    let entry: SessionEntry;
    if (m.role === 'user') {
      const parts: UserContent[] = [textPart(content)];
      for (const fid of arr(m.files) ?? []) {
        if (typeof fid !== 'string') continue;
        const f = fileTable.get(fid);
        const type = str(f?.fileType) ?? str(f?.type);
        if (!f || type?.startsWith('image/')) parts.push(compact({ type: 'image' as const, mimeType: type ?? 'image/*', url: str(f?.url) }));
        else parts.push({ type: 'file', name: str(f.name) ?? fid, mimeType: type ?? 'application/octet-stream', byteLength: num(f.size) ?? 0 });
      }
      entry = { ...base, type: 'message', message: { role: 'user', content: parts } };
    } else if (m.role === 'assistant') {
      const extra = obj(m.extra) ?? {};
      const failed = m.error !== undefined && m.error !== null;
      const usage = obj(extra.usage) ?? obj(obj(m.metadata)?.usage);
      const input = num(usage?.totalInputTokens) ?? num(usage?.inputTokens) ?? num(usage?.prompt_tokens);
      const output = num(usage?.totalOutputTokens) ?? num(usage?.outputTokens) ?? num(usage?.completion_tokens);
      const waiting = content === LOADING;
      const message: AssistantMessage = compact({
        role: 'assistant' as const,
        content: waiting ? [] : [textPart(content)],
        model: qualified(str(extra.fromProvider) ?? str(m.provider), str(extra.fromModel) ?? str(m.model)),
        usage: input !== undefined || output !== undefined ? { input: input ?? 0, output: output ?? 0 } : undefined,
        stopReason: failed ? ('error' as const) : waiting ? ('interrupted' as const) : ('stop' as const),
        errorMessage: failed ? errorText(m.error) : undefined,
      });
      entry = { ...base, type: 'message', message };
    } else entry = { ...base, type: 'custom', customType: `lobechat:${str(m.role) ?? 'unknown'}`, data: m, display: content || `${str(m.role) ?? 'unknown'} message` };
    asm.add(entry);
    prev = id;
  });
  const entries = asm.finish();
  const tree = new SessionTree(entries);
  const leafId = prev !== null && tree.has(prev) && tree.children(prev).length === 0 ? prev : tree.newestLeaf();
  const config = obj(session?.config) ?? {};
  const agentName = str(obj(session?.meta)?.title);
  let title = str(group.topic?.title)?.trim();
  if (!title || title === DEFAULT_TOPIC) {
    const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user' && messageText(e.message).trim() !== '');
    const prompt = firstUser?.type === 'message' ? messageText(firstUser.message) : undefined;
    title = agentName ? `${agentName}: ${titleFrom(prompt, DEFAULT_TOPIC)}` : titleFrom(prompt, title || 'LobeChat conversation');
  }
  let model: string | undefined;
  for (const e of tree.pathTo(leafId)) if (e.type === 'message' && e.message.role === 'assistant' && e.message.model) model = e.message.model;
  model ??= qualified(str(config.provider), str(config.model) ?? str(session?.model));
  const span = timeSpan(entries, asm.fallbackTime);
  const topicCreated = toMs(group.topic?.createdAt);
  const createdAt = Math.min(topicCreated ?? span.createdAt, span.createdAt);
  const systemRole = str(config.systemRole);
  return {
    meta: compact({
      id: newId(),
      title,
      createdAt,
      updatedAt: Math.max(createdAt, span.updatedAt, toMs(group.topic?.updatedAt) ?? createdAt),
      leafId,
      model,
      systemPrompt: systemRole?.trim() ? systemRole : undefined,
      undated: asm.undated || undefined,
      source: compact({ format: 'lobechat', fileName: opts.fileName, originalId: str(group.topic?.id) ?? `${group.sessionId}/${group.key}` }),
    }),
    entries,
  };
}

export function readLobeChat(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = obj(parseJsonDocument(text, 'lobechat'));
  const state = obj(doc?.state) ?? obj(doc?.data);
  const messages = arr(state?.messages);
  if (!state || !messages) throw new ImportError('Expected a LobeChat export: an object with "state" (or "data") holding "messages".', { format: 'lobechat' });
  const warnings: string[] = [];
  const sessions = new Map<string, Json>();
  for (const raw of arr(state.sessions) ?? []) {
    const s = obj(raw);
    const id = str(s?.id);
    if (s && id) sessions.set(id, s);
  }
  const topics = new Map<string, Json>();
  for (const raw of arr(state.topics) ?? []) {
    const t = obj(raw);
    const id = str(t?.id);
    if (t && id) topics.set(id, t);
  }
  const fileTable = new Map<string, Json>();
  for (const raw of arr(state.files) ?? []) {
    const f = obj(raw);
    const id = str(f?.id);
    if (f && id) fileTable.set(id, f);
  }
  const groups = new Map<string, Group>();
  for (const raw of messages) {
    const m = obj(raw);
    if (!m) continue;
    const sessionId = str(m.sessionId) ?? 'inbox';
    const topicId = str(m.topicId);
    const key = `${sessionId}\n${topicId ?? ''}`;
    let g = groups.get(key);
    if (!g) {
      g = { key: topicId ?? 'no-topic', sessionId, topic: topicId ? topics.get(topicId) : undefined, messages: [] };
      groups.set(key, g);
    }
    g.messages.push(m);
  }
  const hash = contentHash(text);
  const out: SessionSnapshot[] = [];
  for (const g of groups.values()) {
    const s = convertGroup(g, sessions.get(g.sessionId), fileTable, opts, warnings);
    if (s.meta.source) s.meta.source.hash = hash;
    out.push(s);
  }
  const used = new Set([...groups.values()].map((g) => g.sessionId));
  const idle = [...sessions.keys()].filter((id) => !used.has(id)).length;
  if (out.length === 0) warnings.push('The export holds no messages.');
  return { format: 'lobechat', sessions: out, warnings, skipped: [{ count: idle, one: 'assistant without messages', many: 'assistants without messages' }] };
}
