import type { Page } from '@playwright/test';

/**
 * What the app stored, read from IndexedDB itself: tests wait on it where the
 * screen cannot tell (a write that lands after the reply is shown), instead of
 * sleeping for "long enough".
 */

export interface StoredReply {
  text: string;
  status: string | null;
  stopReason: string | null;
}

/** An entry as stored, reduced in the page to what the waits below read (an assistant message's text only). */
interface StoredEntry {
  id: string;
  parentId: string | null;
  type: string;
  timestamp: number;
  hasTokens: boolean;
  role?: string;
  text?: string;
  status?: string;
  stopReason?: string;
}

/**
 * The most recently updated session's leaf and entries, null while no session is stored. Both the entry rows
 * and the packed entries are read: an imported session is packed (lib/db/packed.ts) until its first write.
 */
function newestSession(page: Page): Promise<{ leafId: string | null; entries: StoredEntry[] } | null> {
  return page.evaluate(
    () =>
      new Promise<{ leafId: string | null; entries: StoredEntry[] } | null>((resolve, reject) => {
        const open = indexedDB.open('longctx');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['sessions', 'entryRows', 'packedEntries']);
          const sessions = tx.objectStore('sessions').getAll();
          const rows = tx.objectStore('entryRows').getAll();
          const packed = tx.objectStore('packedEntries').getAll();
          tx.oncomplete = () => {
            db.close();
            const session = (sessions.result as { id: string; leafId: string | null; updatedAt: number }[]).sort((a, b) => b.updatedAt - a.updatedAt)[0];
            if (!session) return resolve(null);
            type Part = { type: string; text?: string };
            type Row = {
              sessionId?: string;
              id: string;
              parentId: string | null;
              type: string;
              timestamp: number;
              tokens?: unknown;
              message?: { role: string; content: Part[] | string; status?: string; stopReason?: string };
            };
            const all: Row[] = [
              ...(packed.result as { sessionId: string; entries: Row[] }[]).filter((p) => p.sessionId === session.id).flatMap((p) => p.entries),
              ...(rows.result as Row[]).filter((r) => r.sessionId === session.id),
            ];
            const entries = all.map((r): StoredEntry => {
              const base = { id: r.id, parentId: r.parentId, type: r.type, timestamp: r.timestamp, hasTokens: !!r.tokens };
              const m = r.message;
              if (!m) return base;
              if (m.role !== 'assistant') return { ...base, role: m.role };
              const text = typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
              return { ...base, role: m.role, text, status: m.status, stopReason: m.stopReason };
            });
            resolve({ leafId: session.leafId, entries });
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

/** The assistant messages of the most recently updated session, oldest first, as stored. */
export async function storedReplies(page: Page): Promise<StoredReply[]> {
  const session = await newestSession(page);
  return (session?.entries ?? [])
    .filter((e) => e.type === 'message' && e.role === 'assistant')
    .sort((a, b) => a.timestamp - b.timestamp)
    .map((e) => ({ text: e.text ?? '', status: e.status ?? null, stopReason: e.stopReason ?? null }));
}

/**
 * Messages on the stored session's active path whose token count is not stored yet (the session is the only
 * one in the browser's fresh profile). -1 while the session is not stored.
 */
export async function pathMessagesWithoutTokens(page: Page): Promise<number> {
  const session = await newestSession(page);
  if (!session) return -1;
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  let missing = 0;
  for (let e = session.leafId ? byId.get(session.leafId) : undefined; e; e = e.parentId ? byId.get(e.parentId) : undefined)
    if (e.type === 'message' && !e.hasTokens) missing++;
  return missing;
}
