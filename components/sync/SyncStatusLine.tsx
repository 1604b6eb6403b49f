'use client';

import { formatCount, formatRelative } from '@/lib/format/numbers';
import type { SyncStatus } from '@/lib/sync/ports';

/** What sync is doing, in words: synced, syncing N, offline, or the error's reason; when it last finished; the first sync's progress. */
export function SyncStatusLine({ status }: { status: SyncStatus }) {
  const text =
    status.state === 'synced'
      ? 'Synced'
      : status.state === 'syncing'
        ? status.pending > 0
          ? `Syncing ${formatCount(status.pending)} ${status.pending === 1 ? 'change' : 'changes'}…`
          : 'Syncing…'
        : status.state === 'offline'
          ? `Offline: ${status.pending > 0 ? `${formatCount(status.pending)} ${status.pending === 1 ? 'change waits' : 'changes wait'} here and` : 'changes'} will be sent when the connection is back`
          : status.state === 'error'
            ? `Sync error: ${status.message ?? 'unknown'}`
            : 'Not syncing';
  return (
    <div className="sync-status">
      <p role="status" aria-label="Sync status" className={`sync-state sync-${status.state}`}>
        {text}
      </p>
      {status.incoming && (
        <label className="sync-progress">
          <span className="small">
            Receiving sessions: {formatCount(status.incoming.done)} of {formatCount(status.incoming.total)}
          </span>
          <progress aria-label="Receiving sessions" max={status.incoming.total} value={status.incoming.done} />
        </label>
      )}
      <p className="muted small">{status.lastSyncAt ? `Last synced ${formatRelative(status.lastSyncAt)}` : 'Not synced yet'}</p>
      {status.rejected > 0 && (
        <p role="alert" className="msg-error small">
          {formatCount(status.rejected)} {status.rejected === 1 ? 'record' : 'records'} from the server failed the integrity check and {status.rejected === 1 ? 'was' : 'were'} refused: the
          server’s copy was changed or damaged. Nothing of it was shown or stored.
        </p>
      )}
    </div>
  );
}
