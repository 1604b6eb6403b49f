'use client';

import { useSyncExternalStore } from 'react';
import { useFlows } from '@/components/state/FlowsProvider';
import type { BatchState } from '@/lib/flows/importBatch';

const NONE: BatchState = { running: null, summary: null };

/** The folder import in progress, or the summary of the last one. */
export function useBatchImport(): BatchState {
  const batch = useFlows().batch;
  return useSyncExternalStore(batch.subscribe, batch.getSnapshot, () => NONE);
}
