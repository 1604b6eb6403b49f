import type { StoredSession } from '@/lib/session/types';
import type { LiveSession } from './liveSession';
import type { SessionHandle } from './session';

/**
 * A new session is a draft until its first message: shown and typed into,
 * but not stored, so "New session" pressed and left leaves nothing behind
 * (not on reload, not in other tabs). The first send stores the row, then the
 * message; the live session switches to the stored row when its watch sees it.
 */

/** The title a new session has until its first message names it. */
export const UNTITLED = 'New session';

/** The unsaved stand-in row a draft shows. */
export function draftRow(id: string, now: number): StoredSession {
  return { id, title: UNTITLED, createdAt: now, updatedAt: now, leafId: null, entryCount: 0, rev: 0 };
}

const storing = new WeakMap<LiveSession, Promise<void>>();

/** Stores a draft's row (once, however many sends ask); does nothing for a stored session. */
export function ensureStored(s: SessionHandle): Promise<void> {
  const { draft, row } = s.live.getSnapshot();
  if (!draft || !row) return Promise.resolve();
  let pending = storing.get(s.live);
  if (!pending) {
    pending = store(s, row);
    storing.set(s.live, pending);
    // A failed write may be retried by the next send.
    pending.catch(() => storing.delete(s.live));
  }
  return pending;
}

async function store(s: SessionHandle, row: StoredSession): Promise<void> {
  const { store } = s.ports;
  const now = s.ports.now?.() ?? Date.now();
  try {
    await store.createSession({ id: s.sessionId, title: row.title, createdAt: now, updatedAt: now, ...(row.model ? { model: row.model } : {}) });
  } catch (err) {
    // The same draft open in two tabs (a duplicated tab): the other one stored it first, which is as good.
    if (!(await store.getSession(s.sessionId))) throw err;
  }
}
