import type { ChatMessage, ImagePart, FilePart } from '@/lib/session/types';
import { imageSizeFromBase64 } from '@/lib/tokens/imageSize';
import type { SummaryItem } from './types';
import { formatCount } from '@/lib/format/numbers';

/**
 * Turns conversation items into marked plain text for the summarizer. The
 * model receives a transcript to read, not a chat to take part in: role
 * markers are text, not chat roles, and the whole thing is wrapped in
 * <conversation> tags by the prompt (Opal's anti-continuation framing).
 */

export interface SerializeOptions {
  /** Tool results (and thinking, tool arguments) are cut to this many characters. */
  toolResultMaxChars: number;
}

/**
 * Cuts `text` to about `max` characters, keeping the head and the tail (the
 * end of a tool output is where errors and exit codes are) and saying how
 * much went missing.
 */
export function truncateMiddle(text: string, max: number, why = 'truncated'): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  const marker = `\n[… ${formatCount(cut)} of ${formatCount(text.length)} characters ${why} …]\n`;
  if (max <= 0) return marker.trim();
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : '');
}

/** An image as a short marker: type and pixel size (read from the header when the part doesn't say), never its data. */
export function describeImage(p: ImagePart): string {
  let w = p.width;
  let h = p.height;
  if ((!w || !h) && p.data) {
    const sniffed = imageSizeFromBase64(p.data);
    if (sniffed) ({ width: w, height: h } = sniffed);
  }
  const size = w && h ? `, ${w}x${h}` : '';
  const bytes = !size && p.byteLength ? `, ${formatCount(p.byteLength)} bytes` : '';
  return `[image: ${p.mimeType || 'unknown'}${size}${bytes}]`;
}

function describeFile(p: FilePart, max: number): string {
  const head = `[file: ${p.name} (${p.mimeType}, ${formatCount(p.byteLength)} bytes)]`;
  return p.text ? `${head}\n${truncateMiddle(p.text, max)}` : head;
}

/** Tool arguments as compact JSON with each long string value cut, so a `write` of a large file doesn't swamp the transcript while its path survives. */
export function formatToolArgs(args: Record<string, unknown>, maxChars: number): string {
  const perValue = Math.max(120, Math.floor(maxChars / 4));
  const shorten = (v: unknown): unknown => {
    if (typeof v === 'string') return truncateMiddle(v, perValue);
    if (Array.isArray(v)) return v.map(shorten);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x)]));
    return v;
  };
  let json: string;
  try {
    json = JSON.stringify(shorten(args ?? {}));
  } catch {
    json = '{…unserialisable…}';
  }
  return truncateMiddle(json, maxChars);
}

export function serializeMessage(m: ChatMessage, opts: SerializeOptions): string {
  const max = opts.toolResultMaxChars;
  const lines: string[] = [];
  switch (m.role) {
    case 'user': {
      const parts: string[] = [];
      for (const p of m.content) {
        if (p.type === 'text') parts.push(p.text);
        else if (p.type === 'image') parts.push(describeImage(p));
        else parts.push(describeFile(p, max));
      }
      // User text is kept verbatim: requirements and checklists must survive (aura).
      lines.push(`[User]: ${parts.join('\n')}`);
      break;
    }
    case 'assistant': {
      for (const p of m.content) {
        if (p.type === 'thinking') {
          if (!p.redacted && p.thinking.trim()) lines.push(`[Assistant thinking]: ${truncateMiddle(p.thinking, max)}`);
        } else if (p.type === 'text') {
          if (p.text.trim()) lines.push(`[Assistant]: ${p.text}`);
        } else {
          lines.push(`[Tool call] ${p.name}(${formatToolArgs(p.arguments, max)})`);
        }
      }
      if (m.stopReason === 'error') lines.push(`[Assistant error]: ${m.errorMessage ?? 'the reply failed'}`);
      else if (m.stopReason === 'aborted' || m.stopReason === 'interrupted') lines.push('[Assistant reply was interrupted]');
      else if (m.stopReason === 'length') lines.push('[Assistant reply was cut off at the output limit]');
      break;
    }
    case 'toolResult': {
      const parts: string[] = [];
      for (const p of m.content) parts.push(p.type === 'text' ? p.text : describeImage(p));
      const body = truncateMiddle(parts.join('\n'), max);
      lines.push(`[Tool result] ${m.toolName}${m.isError ? ' (error)' : ''}: ${body}`);
      break;
    }
  }
  return lines.join('\n');
}

export function serializeItem(item: SummaryItem, opts: SerializeOptions): string {
  switch (item.kind) {
    case 'message':
      return serializeMessage(item.message, opts);
    case 'branchSummary':
      return `[Branch summary]: ${item.summary}`;
    case 'compactionSummary':
      return `[Earlier summary]: ${item.summary}`;
  }
}

export const ITEM_SEPARATOR = '\n\n';

export function serializeItems(items: readonly SummaryItem[], opts: SerializeOptions): string {
  return items.map((it) => serializeItem(it, opts)).filter((s) => s !== '').join(ITEM_SEPARATOR);
}

/**
 * Items in groups that must stay together in one summarizer request: an
 * assistant message with tool calls and the results answering them. A chunk
 * border between a call and its result would leave either half meaningless.
 * Claude Code writes parallel calls as consecutive assistant entries before
 * the results, so an assistant entry directly after one with open calls
 * joins its group.
 */
export function groupItems(items: readonly SummaryItem[]): SummaryItem[][] {
  const groups: SummaryItem[][] = [];
  let open: { group: SummaryItem[]; pending: Set<string> } | null = null;
  for (const it of items) {
    const m = it.kind === 'message' ? it.message : null;
    if (open && open.pending.size > 0 && m) {
      if (m.role === 'toolResult' && open.pending.has(m.toolCallId)) {
        open.group.push(it);
        open.pending.delete(m.toolCallId);
        continue;
      }
      // Only directly consecutive assistant entries are parallel calls; a call that never got its
      // result must not glue the rest of the turn into one group.
      const prev = open.group[open.group.length - 1]!;
      if (m.role === 'assistant' && prev.kind === 'message' && prev.message.role === 'assistant') {
        open.group.push(it);
        for (const p of m.content) if (p.type === 'toolCall') open.pending.add(p.id);
        continue;
      }
    }
    const g = [it];
    groups.push(g);
    open = null;
    if (m?.role === 'assistant') {
      const ids = m.content.filter((p) => p.type === 'toolCall').map((p) => (p as { id: string }).id);
      if (ids.length) open = { group: g, pending: new Set(ids) };
    }
  }
  return groups;
}
