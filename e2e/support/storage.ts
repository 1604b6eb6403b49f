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

/**
 * The assistant messages of the most recently updated session, oldest first, as stored:
 * the entry rows and any packed entries (an imported session is packed until first written).
 */
export function storedReplies(page: Page): Promise<StoredReply[]> {
  return page.evaluate(
    () =>
      new Promise<StoredReply[]>((resolve, reject) => {
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
            const session = (sessions.result as { id: string; updatedAt: number }[]).sort((a, b) => b.updatedAt - a.updatedAt)[0];
            if (!session) return resolve([]);
            type Part = { type: string; text?: string };
            type Row = { sessionId?: string; type: string; timestamp: number; message?: { role: string; content: Part[] | string; status?: string; stopReason?: string } };
            const all: Row[] = [
              ...(packed.result as { sessionId: string; entries: Row[] }[]).filter((p) => p.sessionId === session.id).flatMap((p) => p.entries),
              ...(rows.result as Row[]).filter((r) => r.sessionId === session.id),
            ];
            resolve(
              all
                .filter((r) => r.type === 'message' && r.message?.role === 'assistant')
                .sort((a, b) => a.timestamp - b.timestamp)
                .map((r) => {
                  const c = r.message!.content;
                  const text = typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
                  return { text, status: r.message!.status ?? null, stopReason: r.message!.stopReason ?? null };
                }),
            );
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

/**
 * Messages on the stored session's active path whose token count is not stored yet, read from IndexedDB
 * itself (the only session in the browser's fresh profile). -1 while the session is not stored.
 */
export function pathMessagesWithoutTokens(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('longctx');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['sessions', 'entryRows', 'packedEntries']);
          const sessions = tx.objectStore('sessions').getAll();
          const rows = tx.objectStore('entryRows').getAll();
          // An imported session's entries are packed (lib/db/packed.ts) until its first token caches unpack it into rows: read both.
          const packed = tx.objectStore('packedEntries').getAll();
          tx.oncomplete = () => {
            db.close();
            const session = (sessions.result as { id: string; leafId: string | null }[])[0];
            if (!session) return resolve(-1);
            type Row = { sessionId: string; id: string; parentId: string | null; type: string; tokens?: unknown };
            const all = [
              ...(packed.result as { sessionId: string; entries: Row[] }[]).filter((p) => p.sessionId === session.id).flatMap((p) => p.entries),
              ...(rows.result as Row[]).filter((r) => r.sessionId === session.id),
            ];
            const byId = new Map(all.map((r) => [r.id, r]));
            let missing = 0;
            for (let e = session.leafId ? byId.get(session.leafId) : undefined; e; e = e.parentId ? byId.get(e.parentId) : undefined)
              if (e.type === 'message' && !e.tokens) missing++;
            resolve(missing);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}
