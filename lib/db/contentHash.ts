import { Fnv1a64 } from '@/lib/formats/hash';
import type { SessionEntry, SessionMeta } from '@/lib/session/types';

/**
 * What tells a session from a file apart from one stored earlier, when the
 * file says nothing about its origin (the app's own exports carry no source
 * hash): a hash of the session's content, so the same session is recognised
 * whether it arrives alone, concatenated with others, or inside a backup zip.
 * Left out: where it came from (`source`, the id, which storage replaces on
 * import) and the token caches, which are recomputed and differ between exports
 * of the same conversation.
 */
export function sessionContentHash(meta: Omit<SessionMeta, 'id'>, entries: readonly SessionEntry[]): string {
  const { source: _source, ...content } = meta;
  const h = new Fnv1a64().update(JSON.stringify(content));
  for (const { tokens: _tokens, ...entry } of entries) h.update('\n').update(JSON.stringify(entry));
  return h.hex();
}
