import type { ChatMessage } from './types';

/** The plain text of a message: text parts only, joined by blank lines. */
export function messageText(m: ChatMessage): string {
  const out: string[] = [];
  for (const p of m.content) if (p.type === 'text') out.push(p.text);
  return out.join('\n\n');
}

/** A short single-line preview, for titles, tree rows and timeline headers. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
