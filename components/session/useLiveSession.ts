'use client';

import { useMemo, useSyncExternalStore } from 'react';
import { buildSessionContext } from '@/lib/session/context';
import { resolveLabels } from '@/lib/session/revisions';
import { liveSession, type LiveSessionState } from './liveSession';

const SERVER_SNAPSHOT: LiveSessionState | null = null;

export function useLiveSession(sessionId: string) {
  const store = liveSession(sessionId);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, () => SERVER_SNAPSHOT ?? store.getSnapshot());
  // The tree object is mutated in place and `version` changes with it: derived data depends on the version.
  const { tree, leafId, version } = state;
  const context = useMemo(() => buildSessionContext(tree, leafId), [tree, leafId, version]); // eslint-disable-line react-hooks/exhaustive-deps
  const labels = useMemo(() => resolveLabels(tree.entries()), [tree, version]); // eslint-disable-line react-hooks/exhaustive-deps
  return { store, state, context, labels };
}
