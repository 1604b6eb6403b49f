import type { SessionMeta } from '@/lib/session/types';
import { formatRelative } from './numbers';

/**
 * When a session was last changed, as the session list says it. A session
 * from a file without times carries its import time, which must not read as
 * the conversation's date: it says "no date" and when it was imported, until
 * something is written to it here.
 */
export function sessionWhen(row: Pick<SessionMeta, 'createdAt' | 'updatedAt' | 'undated'>, now = Date.now()): string {
  if (row.undated && row.updatedAt <= row.createdAt) return `no date · imported ${formatRelative(row.createdAt, now)}`;
  return formatRelative(row.updatedAt, now);
}
