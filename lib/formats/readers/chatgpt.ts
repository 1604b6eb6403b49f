import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import { SessionTree } from '@/lib/session/tree';
import type {
  AssistantContent,
  AssistantMessage,
  ChatMessage,
  ImagePart,
  SessionEntry,
  SessionSnapshot,
  StopReason,
  TextPart,
  ToolResultContent,
  UserContent,
} from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { contentHash } from '../hash';
import { excerpt, parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { ConversationCollector, type ReaderContext } from './collector';
import { resolveCitations } from './chatgptCitations';

/**
 * ChatGPT data export (conversations.json): an array of conversations, each a
 * `mapping` of nodes {id, parent, children[], message}.
 *
 * - Every node with a message becomes one entry with the node's id, so the
 *   tree (branch points included) is the export's. Nodes without a message
 *   (the synthetic root) and empty/hidden system messages are left out; their
 *   children attach to the nearest kept ancestor.
 * - An assistant message addressed to a tool (`recipient` not "all") is a tool
 *   call: one toolCall part named after the recipient, id = the node id. Tool
 *   messages (author role `tool`, e.g. `browser`) are tool results for the
 *   nearest call above them; several results may answer one call (the browser
 *   quoting several pages after one `mclick`). A tool message with no call
 *   above it becomes a `custom` entry (shown, not sent).
 * - A reply whose status is not finished_successfully is marked `interrupted`.
 * - Citation markers in replies (`【13†source】`, private-use cite markers)
 *   become links to their sources or are removed (chatgptCitations.ts).
 */

export type ChatGptContext = ReaderContext;

const FINISH: Record<string, StopReason> = { stop: 'stop', max_tokens: 'length', interrupted: 'interrupted' };

function partsOf(content: Json): unknown[] {
  return arr(content.parts) ?? [];
}

function stringParts(content: Json): string {
  return partsOf(content)
    .filter((p): p is string => typeof p === 'string')
    .join('\n\n');
}

function assetImage(p: Json): ImagePart {
  return compact({
    type: 'image' as const,
    mimeType: str(p.mime_type) ?? str(obj(p.metadata)?.mime_type) ?? 'image/*',
    url: str(p.asset_pointer),
    width: num(p.width),
    height: num(p.height),
    byteLength: num(p.size_bytes),
  });
}

class ConversationConverter {
  private readonly unknownTypes = new Set<string>();
  systemPrompt: string | undefined;

  constructor(private readonly warnings: string[]) {}

  /** Text of any content type, for places that need plain text (tool output, fallbacks). */
  contentText(content: Json): string {
    const type = str(content.content_type) ?? 'text';
    switch (type) {
      case 'text':
        return stringParts(content);
      case 'code':
        return str(content.text) ?? '';
      case 'execution_output':
        return str(content.text) ?? '';
      case 'system_error':
        return [str(content.name), str(content.text)].filter(Boolean).join(': ');
      case 'tether_browsing_display': {
        const parts = [str(content.result), str(content.summary)].filter((s): s is string => !!s && s !== 'None');
        return parts.join('\n\n');
      }
      case 'tether_quote': {
        const head = [str(content.title), str(content.url)].filter(Boolean).join(' — ');
        return [head, str(content.text)].filter(Boolean).join('\n');
      }
      case 'multimodal_text':
        return partsOf(content)
          .map((p) => (typeof p === 'string' ? p : str(obj(p)?.text) ?? ''))
          .filter(Boolean)
          .join('\n\n');
      case 'reasoning_recap':
        return str(content.content) ?? '';
      case 'thoughts':
        return (arr(content.thoughts) ?? [])
          .map(obj)
          .map((t) => [str(t?.summary), str(t?.content)].filter(Boolean).join('\n'))
          .join('\n\n');
      case 'user_editable_context':
        return [str(content.user_profile), str(content.user_instructions)].filter(Boolean).join('\n\n');
      default: {
        if (!this.unknownTypes.has(type)) {
          this.unknownTypes.add(type);
          this.warnings.push(`ChatGPT content type ${excerpt(type, 40)} is not known; its fields were imported as text.`);
        }
        const { content_type: _ct, ...rest } = content;
        return str(rest.text) ?? (stringParts(rest) || jsonText(rest));
      }
    }
  }

  private richParts(content: Json): (TextPart | ImagePart)[] {
    if (content.content_type !== 'multimodal_text') {
      const text = this.contentText(content);
      return text ? [textPart(text)] : [];
    }
    const out: (TextPart | ImagePart)[] = [];
    for (const p of partsOf(content)) {
      if (typeof p === 'string') {
        if (p) out.push(textPart(p));
        continue;
      }
      const o = obj(p);
      if (!o) continue;
      if (o.content_type === 'image_asset_pointer') out.push(assetImage(o));
      else if (typeof o.text === 'string') out.push(textPart(o.text));
    }
    return out;
  }

  /** Null: the node has nothing to show and is folded into its parent. */
  convert(m: Json, nodeId: string, lastCall: { id: string; name: string } | null): ConvertedNode | null {
    const author = obj(m.author);
    const role = str(author?.role);
    const content = obj(m.content) ?? { content_type: 'text', parts: [] };
    const meta = obj(m.metadata) ?? {};
    const type = str(content.content_type) ?? 'text';

    if (type === 'user_editable_context') {
      const text = this.contentText(content);
      this.systemPrompt ??= text || undefined;
      return { kind: 'custom', customType: 'chatgpt:custom_instructions', data: content, display: 'Custom instructions' };
    }
    if (role === 'system') {
      const text = this.contentText(content).trim();
      if (!text) return null;
      this.systemPrompt ??= text;
      return { kind: 'custom', customType: 'chatgpt:system', data: { text }, display: text };
    }
    if (role === 'user') {
      const parts: UserContent[] = this.richParts(content);
      if (parts.length === 0 && meta.is_visually_hidden_from_conversation === true) return null;
      return { kind: 'message', message: { role: 'user', content: parts } };
    }
    if (role === 'assistant') {
      const slug = str(meta.model_slug);
      const recipient = str(m.recipient) ?? 'all';
      const status = str(m.status);
      let stopReason: StopReason | undefined = FINISH[str(obj(meta.finish_details)?.type) ?? ''];
      if (status !== undefined && status !== 'finished_successfully') stopReason = 'interrupted';
      const base = { role: 'assistant' as const, model: slug ? `openai:${slug}` : undefined };
      if (recipient !== 'all') {
        const text = type === 'code' ? (str(content.text) ?? '') : this.contentText(content);
        let args: Record<string, unknown>;
        if (type === 'code') args = { code: text };
        else {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          args = obj(parsed) ?? { text };
        }
        const msg: AssistantMessage = compact({ ...base, content: [{ type: 'toolCall' as const, id: nodeId, name: recipient, arguments: args }], stopReason: stopReason === 'interrupted' ? stopReason : 'toolUse' });
        return { kind: 'message', message: msg, call: { id: nodeId, name: recipient } };
      }
      let parts: AssistantContent[];
      if (type === 'thoughts' || type === 'reasoning_recap') parts = [{ type: 'thinking', thinking: this.contentText(content) }];
      else if (type === 'code') parts = [textPart('```' + (str(content.language) ?? '').replace(/[^\w+-]/g, '').replace(/^unknown$/, '') + '\n' + (str(content.text) ?? '') + '\n```')];
      else parts = this.richParts(content).map((p) => (p.type === 'image' ? textPart(p.url ? `[image ${p.url}]` : '[image]') : textPart(resolveCitations(p.text, meta))));
      return { kind: 'message', message: compact({ ...base, content: parts, stopReason }) };
    }
    if (role === 'tool') {
      const name = str(author?.name) ?? lastCall?.name ?? 'tool';
      const parts: ToolResultContent[] = this.richParts(content);
      if (!lastCall) {
        const text = this.contentText(content);
        return { kind: 'custom', customType: 'chatgpt:tool', data: { name, content }, display: `${name}: ${text.slice(0, 200)}` };
      }
      return {
        kind: 'message',
        message: { role: 'toolResult', toolCallId: lastCall.id, toolName: name, content: parts, isError: type === 'system_error' },
      };
    }
    return { kind: 'custom', customType: `chatgpt:${role ?? 'unknown'}`, data: m, display: `${role ?? 'unknown'} message` };
  }
}

type ConvertedNode =
  | { kind: 'message'; message: ChatMessage; call?: { id: string; name: string } }
  | { kind: 'custom'; customType: string; data: unknown; display: string };

interface RawNode {
  id: string;
  parent: string | null;
  children: string[];
  message: Json | undefined;
  order: number;
}

/** One conversation of the export → one session. `index` is 0-based, for messages. */
export function convertChatGptConversation(raw: unknown, index: number, ctx: ChatGptContext): SessionSnapshot {
  const where = `Conversation ${index + 1}`;
  const conv = obj(raw);
  if (!conv) throw new ImportError(`${where}: expected a JSON object, found ${Array.isArray(raw) ? 'a JSON array' : String(raw)}`, { format: 'chatgpt' });
  const mapping = obj(conv.mapping);
  if (!mapping) throw new ImportError(`${where}${conv.title ? ` (${excerpt(String(conv.title), 40)})` : ''}: has no "mapping" of messages`, { format: 'chatgpt' });
  const warnings: string[] = [];
  const converter = new ConversationConverter(warnings);

  const nodes = new Map<string, RawNode>();
  let order = 0;
  for (const [key, value] of Object.entries(mapping)) {
    const n = obj(value);
    if (!n) continue;
    const id = str(n.id) ?? key;
    if (nodes.has(id)) continue;
    nodes.set(id, {
      id,
      parent: str(n.parent) ?? null,
      children: (arr(n.children) ?? []).filter((c): c is string => typeof c === 'string'),
      message: obj(n.message),
      order: order++,
    });
  }
  // Children from the parent pointers (what the entries will store), ordered as the parent lists them.
  const kids = new Map<string | null, RawNode[]>();
  for (const n of nodes.values()) {
    const p = n.parent !== null && nodes.has(n.parent) && n.parent !== n.id ? n.parent : null;
    const list = kids.get(p);
    if (list) list.push(n);
    else kids.set(p, [n]);
  }
  for (const [p, list] of kids) {
    if (p === null) continue;
    const listed = nodes.get(p)!.children;
    const rank = (n: RawNode) => {
      const i = listed.indexOf(n.id);
      return i === -1 ? listed.length + n.order : i;
    };
    list.sort((a, b) => rank(a) - rank(b));
  }

  const convTime = toMs(conv.create_time, 's') ?? NO_TIME;
  const asm = new EntryAssembler('chatgpt', warnings, ctx.importedAt);
  const entryOf = new Map<string, string>();
  type Frame = { node: RawNode; parentEntry: string | null; parentTs: number; lastCall: { id: string; name: string } | null };
  const stack: Frame[] = [];
  const roots = kids.get(null) ?? [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i]!, parentEntry: null, parentTs: convTime, lastCall: null });
  let visited = 0;
  while (stack.length) {
    const { node, parentEntry, parentTs, lastCall } = stack.pop()!;
    visited++;
    let here = parentEntry;
    let ts = parentTs;
    let call = lastCall;
    const m = node.message;
    const converted = m ? converter.convert(m, node.id, lastCall) : null;
    if (m && converted) {
      ts = toMs(m.create_time, 's') ?? parentTs;
      const base = { id: node.id, parentId: parentEntry, timestamp: ts };
      const entry: SessionEntry =
        converted.kind === 'message'
          ? { ...base, type: 'message', message: converted.message }
          : { ...base, type: 'custom', customType: converted.customType, data: converted.data, display: converted.display };
      asm.add(entry);
      here = node.id;
      if (converted.kind === 'message' && converted.call) call = converted.call;
    }
    entryOf.set(node.id, here ?? '');
    const children = kids.get(node.id) ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, parentEntry: here, parentTs: ts, lastCall: call });
  }
  if (visited < nodes.size) warnings.push(`${where}: ${nodes.size - visited} node(s) sit on a parent loop and were left out.`);

  const entries = asm.finish();
  const tree = new SessionTree(entries);
  const current = str(conv.current_node);
  let leafId: string | null = current && entryOf.get(current) ? entryOf.get(current)! : null;
  if (!leafId) {
    leafId = tree.newestLeaf();
    if (current) warnings.push(`${where}: its current message is not in the mapping; opened at the newest message instead.`);
  }
  let model: string | undefined;
  for (const e of tree.pathTo(leafId)) if (e.type === 'message' && e.message.role === 'assistant' && e.message.model) model = e.message.model;
  const defaultSlug = str(conv.default_model_slug);
  model ??= defaultSlug ? `openai:${defaultSlug}` : undefined;

  let title = str(conv.title)?.trim();
  if (!title) {
    const firstUser = entries.find((e) => e.type === 'message' && e.message.role === 'user');
    title = titleFrom(firstUser?.type === 'message' ? messageText(firstUser.message) : undefined, 'ChatGPT conversation');
  }
  const span = timeSpan(entries, asm.fallbackTime);
  const createdAt = Number.isFinite(convTime) ? convTime : span.createdAt;
  const updatedAt = Math.max(createdAt, toMs(conv.update_time, 's') ?? createdAt, span.updatedAt);
  const originalId = str(conv.conversation_id) ?? str(conv.id);
  for (const w of warnings) ctx.warnings.push(w.startsWith(where) ? w : `${where} (${excerpt(title, 40)}): ${w}`);
  return {
    meta: compact({
      id: newId(),
      title,
      createdAt,
      updatedAt,
      leafId,
      model,
      systemPrompt: converter.systemPrompt,
      undated: (asm.undated && !Number.isFinite(convTime)) || undefined,
      source: compact({ format: 'chatgpt', fileName: ctx.fileName, originalId }),
    }),
    entries,
  };
}

export class ChatGptCollector extends ConversationCollector {
  constructor(opts: ImportOptions) {
    super(opts, { format: 'chatgpt', convert: convertChatGptConversation, noun: ['conversation', 'conversations'] });
  }
}

export function readChatGpt(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = parseJsonDocument(text, 'chatgpt');
  const collector = new ChatGptCollector(opts);
  if (Array.isArray(doc)) for (const conv of doc) collector.add(conv);
  else if (obj(doc) && 'mapping' in (doc as Json)) collector.add(doc);
  else throw new ImportError('Expected a ChatGPT export: an array of conversations, or one conversation with a "mapping".', { format: 'chatgpt' });
  return collector.finish(contentHash(text));
}
