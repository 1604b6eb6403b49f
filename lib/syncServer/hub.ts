import { CHANNEL, type Notice } from './store';
import type { SqlClient } from './sql';

/**
 * Live fan-out inside one app server: one LISTEN for the whole process, and
 * the open live streams subscribed by space. A push on any app server
 * NOTIFYs at commit; every server's hub hears it and wakes its own streams
 * for that space. So app servers share nothing but the database.
 */
export interface LiveHub {
  subscribe(spaceId: string, onNotice: (n: Notice) => void): Promise<() => void>;
  /** Open subscriptions (tests and the bench read it). */
  size(): number;
  close(): Promise<void>;
}

export function createLiveHub(db: Pick<SqlClient, 'listen'>): LiveHub {
  const bySpace = new Map<string, Set<(n: Notice) => void>>();
  let listening: Promise<() => Promise<void>> | null = null;

  const dispatch = (payload: string) => {
    let notice: Notice;
    try {
      notice = JSON.parse(payload) as Notice;
    } catch {
      return;
    }
    for (const fn of bySpace.get(notice.s) ?? []) fn(notice);
  };

  return {
    async subscribe(spaceId, onNotice) {
      listening ??= db.listen(CHANNEL, dispatch).catch((err: unknown) => {
        listening = null;
        throw err;
      });
      await listening;
      let set = bySpace.get(spaceId);
      if (!set) bySpace.set(spaceId, (set = new Set()));
      set.add(onNotice);
      return () => {
        set.delete(onNotice);
        if (set.size === 0 && bySpace.get(spaceId) === set) bySpace.delete(spaceId);
      };
    },
    size: () => [...bySpace.values()].reduce((n, s) => n + s.size, 0),
    async close() {
      bySpace.clear();
      const stop = await listening?.catch(() => null);
      listening = null;
      await stop?.();
    },
  };
}
