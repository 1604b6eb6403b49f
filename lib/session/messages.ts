import type { ChatMessage, SessionEntry, ToolCallPart } from './types';

/** The plain text of a message: text parts only, joined by blank lines. */
export function messageText(m: ChatMessage): string {
  const out: string[] = [];
  for (const p of m.content) if (p.type === 'text') out.push(p.text);
  return out.join('\n\n');
}

export function toolCalls(m: ChatMessage): ToolCallPart[] {
  if (m.role !== 'assistant') return [];
  return m.content.filter((p): p is ToolCallPart => p.type === 'toolCall');
}

/** A user message starts a turn; everything until the next one belongs to it. */
export function isTurnStart(e: SessionEntry): boolean {
  return e.type === 'message' && e.message.role === 'user';
}

export function isToolResult(e: SessionEntry): boolean {
  return e.type === 'message' && e.message.role === 'toolResult';
}

/** Whether the entry carries conversation content (as opposed to bookkeeping such as labels). */
export function isConversational(e: SessionEntry): boolean {
  return e.type === 'message' || e.type === 'compaction' || e.type === 'branch_summary';
}

/** A short single-line preview, for titles, tree rows and timeline headers. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
