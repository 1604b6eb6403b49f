'use client';

import { useMemo, useSyncExternalStore } from 'react';
import type { SessionFlows } from '@/lib/flows/app';
import { buildSessionContext } from '@/lib/session/context';
import { resolveLabels } from '@/lib/session/revisions';

/** The session's live tree, its context at this tab's leaf, and its labels, re-derived when the tree changes. */
export function useLiveSession(session: SessionFlows) {
  const store = session.live;
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  // The tree object is mutated in place and `version` changes with it: derived data depends on the version.
  const { tree, leafId, version } = state;
  const context = useMemo(() => buildSessionContext(tree, leafId), [tree, leafId, version]); // eslint-disable-line react-hooks/exhaustive-deps
  const labels = useMemo(() => resolveLabels(tree.entries()), [tree, version]); // eslint-disable-line react-hooks/exhaustive-deps
  return { state, context, labels };
}
