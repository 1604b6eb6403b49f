import type { EntryId, SessionEntry } from './types';

/**
 * Pins along a path (see PinEntry). A pin is path state: only pin entries on
 * the path count, the latest per target wins, and a pin of an entry that is
 * not on the path pins nothing.
 */
export function resolvePins(path: readonly SessionEntry[]): Set<EntryId> {
  const pinned = new Set<EntryId>();
  for (const e of path) {
    if (e.type !== 'pin') continue;
    if (e.pinned) pinned.add(e.targetId);
    else pinned.delete(e.targetId);
  }
  return pinned;
}

/** Messages a user can pin: what they wrote and what the model answered (a tool result travels with its call). */
export function isPinnable(e: SessionEntry): boolean {
  return e.type === 'message' && (e.message.role === 'user' || e.message.role === 'assistant');
}

/**
 * Path positions carried verbatim for the pinned messages before `before`
 * (the start of the kept part of the context), in path order: each pinned
 * message and, for an assistant message with tool calls, the results that
 * answer them, since a call without its result is refused by every provider.
 */
export function carriedPositions(path: readonly SessionEntry[], before: number, pinned: ReadonlySet<EntryId> = resolvePins(path)): number[] {
  if (pinned.size === 0 || before <= 0) return [];
  const out: number[] = [];
  const calls = new Set<string>();
  for (let i = 0; i < before; i++) {
    const e = path[i]!;
    if (e.type !== 'message') continue;
    const m = e.message;
    if (pinned.has(e.id) && isPinnable(e)) {
      out.push(i);
      if (m.role === 'assistant') for (const p of m.content) if (p.type === 'toolCall') calls.add(p.id);
    } else if (m.role === 'toolResult' && calls.has(m.toolCallId)) {
      out.push(i);
    }
  }
  return out;
}
