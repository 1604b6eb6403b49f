'use client';

import type { PendingSummary } from '@/lib/compaction/pending';
import type { SessionFlows } from '@/lib/flows/app';
import { useWatched } from '@/components/state/hooks';

/** The summary waiting for review in this session, as stored (any tab's changes included); undefined when there is none. */
export function usePendingSummary(session: SessionFlows): PendingSummary | undefined {
  return useWatched<PendingSummary | undefined>((onValue) => session.watchPendingSummary(onValue), [session], undefined);
}
