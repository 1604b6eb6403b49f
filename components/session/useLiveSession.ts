'use client';

import { useMemo, useSyncExternalStore } from 'react';
import type { SessionFlows } from '@/lib/flows/app';

/** The session's live tree, its context at this tab's leaf, and its labels, re-derived when the tree changes (incrementally: LiveSession.derive). */
export function useLiveSession(session: SessionFlows) {
  const store = session.live;
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const { context, labels } = useMemo(() => store.derive(state), [store, state]);
  return { state, context, labels };
}
