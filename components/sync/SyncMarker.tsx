'use client';

import type { SessionRow } from '@/lib/db';
import { useSyncSpace } from './useSync';

/** “Not synced” beside a session whose changes have not reached the sync server yet (only while this browser syncs). */
export function SyncMarker({ row }: { row: Pick<SessionRow, 'syncDirty'> }) {
  const space = useSyncSpace();
  if (!space || row.syncDirty !== 1) return null;
  return (
    <span className="sync-marker" title="Changes to this session have not reached the sync server yet">
      {' · '}Not synced
    </span>
  );
}
