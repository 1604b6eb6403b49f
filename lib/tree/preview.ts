import { formatCount } from '@/lib/format/numbers';
import type { AssistantMessage, ChatMessage, SessionEntry, ToolCallPart, ToolResultMessage, UserMessage } from '@/lib/session/types';

/**
 * One-line previews of entries for the session tree. Tool results can be
 * megabytes, so nothing here looks at more than a bounded prefix of any text:
 * a preview costs the same for a one-word reply and for a 1 MB log.
 */

export type PreviewKind = 'user' | 'assistant' | 'toolResult' | 'compaction' | 'branchSummary' | 'model' | 'label' | 'revision' | 'custom' | 'pin' | 'mask';

export interface EntryPreview {
  kind: PreviewKind;
  /** The whole one-line preview, prefix included ("user: …", "[tool result: bash] …"). */
  text: string;
  /** A failed tool result or a reply that ended in an error. */
  error: boolean;
}

/** Longest preview text; rows are one line and cut with CSS anyway, this only bounds the work. */
export const PREVIEW_MAX = 160;
/** How much of a text is ever scanned for a preview. */
const SCAN = 600;

/** Whitespace as `\s` sees it, by char code: a hand loop is several times faster than a regex replace here. */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** At most the first `SCAN` characters, whitespace runs collapsed to one space, cut to `max` with an ellipsis. */
export function clip(text: string, max = PREVIEW_MAX): string {
  const end = Math.min(text.length, SCAN);
  let out = '';
  let i = 0;
  while (i < end && out.length <= max) {
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    if (i >= end) break;
    let j = i;
    while (j < end && !isSpace(text.charCodeAt(j))) j++;
    out += (out ? ' ' : '') + text.slice(i, j);
    i = j;
  }
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** The first non-blank line, without markdown heading marks, scanning at most `SCAN` characters per line. */
export function firstLine(text: string): string {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, Math.min(end, start + SCAN)).replace(/^\s*#{1,6}\s+/, '').trim();
    if (line) return clip(line);
    start = end + 1;
  }
  return '';
}

/** Text parts only, stopping once enough has been collected for a preview. */
function leadingText(m: ChatMessage): string {
  let out = '';
  for (const p of m.content) {
    if (p.type !== 'text' || !p.text.trim()) continue;
    out += (out ? ' ' : '') + p.text.slice(0, SCAN);
    if (out.length >= SCAN) break;
  }
  return out;
}

function argsSummary(args: Record<string, unknown>): string {
  const parts: string[] = [];
  let length = 0;
  for (const [key, value] of Object.entries(args)) {
    const shown = typeof value === 'string' ? JSON.stringify(clip(value, 60)) : typeof value === 'object' && value !== null ? (Array.isArray(value) ? '[…]' : '{…}') : String(value);
    parts.push(`${key}=${shown}`);
    length += key.length + shown.length;
    if (length > PREVIEW_MAX) break;
  }
  return parts.join(' ');
}

export function toolCallPreview(call: ToolCallPart): string {
  const args = argsSummary(call.arguments ?? {});
  return `[tool: ${call.name}${args ? ` ${args}` : ''}]`;
}

function userPreview(m: UserMessage): string {
  const text = clip(leadingText(m));
  if (text) return `user: ${text}`;
  const attachments = m.content.map((p) => (p.type === 'image' ? '[image]' : p.type === 'file' ? `[file: ${p.name}]` : '')).filter(Boolean);
  return `user: ${attachments.join(' ') || '(empty)'}`;
}

/** Whether an assistant message only calls tools: no text to read (thinking does not count). */
export function isToolCallOnly(m: AssistantMessage): boolean {
  let calls = false;
  for (const p of m.content) {
    if (p.type === 'text' && p.text.trim()) return false;
    if (p.type === 'toolCall') calls = true;
  }
  return calls;
}

function assistantPreview(m: AssistantMessage): string {
  const text = clip(leadingText(m));
  if (text) return `assistant: ${text}`;
  const calls = m.content.filter((p): p is ToolCallPart => p.type === 'toolCall');
  if (calls.length) return `assistant: ${clip(calls.map(toolCallPreview).join(' '))}`;
  const thinking = m.content.find((p) => p.type === 'thinking');
  if (thinking?.type === 'thinking') return `assistant: [thinking] ${thinking.redacted ? '(redacted)' : firstLine(thinking.thinking)}`.trimEnd();
  if (m.stopReason === 'error') return `assistant: [error${m.errorMessage ? `: ${clip(m.errorMessage, 100)}` : ''}]`;
  if (m.status === 'streaming') return 'assistant: …';
  return 'assistant: (no reply)';
}

function toolResultPreview(m: ToolResultMessage): string {
  const head = `[tool result: ${m.toolName}${m.isError ? ', error' : ''}]`;
  let body = '';
  for (const p of m.content) {
    if (p.type === 'text') body = firstLine(p.text);
    else body = '[image]';
    if (body) break;
  }
  return `${head} ${body || '(empty)'}`;
}

function computePreview(e: SessionEntry): EntryPreview {
  switch (e.type) {
    case 'message': {
      const m = e.message;
      if (m.role === 'user') return { kind: 'user', text: userPreview(m), error: false };
      if (m.role === 'assistant') return { kind: 'assistant', text: assistantPreview(m), error: m.stopReason === 'error' };
      return { kind: 'toolResult', text: toolResultPreview(m), error: m.isError };
    }
    case 'compaction': {
      const after = e.tokensAfter !== undefined ? ` → ${formatCount(e.tokensAfter)}` : '';
      return { kind: 'compaction', text: `[compaction: ${formatCount(e.tokensBefore)} tokens${after}]`, error: false };
    }
    case 'branch_summary': {
      const line = firstLine(e.summary);
      return { kind: 'branchSummary', text: `[branch summary]${line ? ` ${line}` : ''}`, error: false };
    }
    case 'model_change':
      return { kind: 'model', text: `[model: ${e.model}]`, error: false };
    case 'label':
      return { kind: 'label', text: e.label === null || !e.label.trim() ? '[label cleared]' : `[label: ${clip(e.label, 80)}]`, error: false };
    case 'summary_revision':
      return { kind: 'revision', text: `[summary revision: ${e.action}]`, error: false };
    case 'custom':
      return { kind: 'custom', text: `[custom: ${clip(e.display ?? e.customType, 120)}]`, error: false };
    case 'pin':
      return { kind: 'pin', text: e.pinned ? '[pinned: kept verbatim]' : '[unpinned]', error: false };
    case 'tool_mask':
      return { kind: 'mask', text: `[tool output masked: ${e.maskedIds.length} results, ${formatCount(e.tokensBefore)} → ${formatCount(e.tokensAfter)} tokens]`, error: false };
  }
}

/**
 * Entries are immutable values (an update replaces the object), so a cache
 * keyed by the object can never be stale and is dropped with the entry.
 */
const cache = new WeakMap<SessionEntry, EntryPreview>();

export function entryPreview(e: SessionEntry): EntryPreview {
  let p = cache.get(e);
  if (!p) {
    p = computePreview(e);
    cache.set(e, p);
  }
  return p;
}

const lowerCache = new WeakMap<SessionEntry, string>();

/** The lower-cased preview the text filter matches against. */
export function previewSearchText(e: SessionEntry): string {
  let s = lowerCache.get(e);
  if (s === undefined) {
    s = entryPreview(e).text.toLowerCase();
    lowerCache.set(e, s);
  }
  return s;
}

/**
 * Where `query` first occurs in `text`, case-insensitively, for highlighting.
 * Null when absent, or when lower-casing changes the text's length (a few
 * scripts do) and the offsets would not line up.
 */
export function matchRange(text: string, query: string): [number, number] | null {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  const lower = text.toLowerCase();
  if (lower.length !== text.length) return null;
  const at = lower.indexOf(q);
  return at < 0 ? null : [at, at + q.length];
}
