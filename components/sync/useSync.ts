'use client';

import { useSyncExternalStore } from 'react';
import { watchSyncSpace, watchSyncStatus } from '@/lib/db';
import { OFF_STATUS, type SyncStatus } from '@/lib/sync/ports';

type Space = Parameters<Parameters<typeof watchSyncSpace>[0]>[0];

/**
 * Sync's state as the UI reads it: one subscription per page to each of
 * lib/db's sync watchers, shared by every component (the session list has a
 * marker per row; a subscription each would be hundreds of live queries).
 */
function shared<T>(watch: (cb: (v: T) => void) => () => void, initial: T) {
  let value = initial;
  const listeners = new Set<() => void>();
  let stop: (() => void) | null = null;
  return {
    subscribe(fn: () => void) {
      listeners.add(fn);
      stop ??= watch((v) => {
        value = v;
        for (const l of listeners) l();
      });
      return () => {
        listeners.delete(fn);
        if (listeners.size === 0) {
          stop?.();
          stop = null;
        }
      };
    },
    get: () => value,
    initial: () => initial,
  };
}

const status = shared<SyncStatus>(watchSyncStatus, OFF_STATUS);
const space = shared<Space>(watchSyncSpace, null);

export const useSyncStatus = (): SyncStatus => useSyncExternalStore(status.subscribe, status.get, status.initial);
export const useSyncSpace = (): Space => useSyncExternalStore(space.subscribe, space.get, space.initial);
