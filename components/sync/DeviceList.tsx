'use client';

import { useCallback, useEffect, useState } from 'react';
import { formatRelative } from '@/lib/format/numbers';
import type { DeviceView } from '@/lib/sync/engine';
import { ConfirmDialog } from '@/components/common/ConfirmDialog';
import { useFlows } from '@/components/state/FlowsProvider';

/** The space's devices, each but this one removable. A removed device is cut off at its next request. */
export function DeviceList() {
  const sync = useFlows().sync!;
  const [devices, setDevices] = useState<DeviceView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<DeviceView | null>(null);

  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    let live = true;
    void sync.devices().then((r) => {
      if (!live) return;
      if ('error' in r) setError(r.error);
      else {
        setError(null);
        setDevices(r);
      }
    });
    return () => {
      live = false;
    };
  }, [sync, version]);

  async function revoke(d: DeviceView) {
    setPending(null);
    const r = await sync.revoke(d);
    if ('error' in r) setError(r.error);
    reload();
  }

  return (
    <section className="sync-devices" aria-labelledby="sync-devices-title">
      <h3 id="sync-devices-title">Devices</h3>
      {error && (
        <p role="alert" className="msg-error">
          {error}
        </p>
      )}
      {devices === null && !error && <p className="muted small">Loading…</p>}
      <ul aria-label="Devices in this sync space">
        {devices?.map((d) => (
          <li key={d.id} className={d.revoked ? 'revoked' : undefined}>
            <span className="sync-device-name">
              {d.name}
              {d.current && ' (this device)'}
            </span>
            <span className="muted small">
              {d.revoked ? 'removed' : d.lastSeenAt ? `seen ${formatRelative(d.lastSeenAt)}` : `added ${formatRelative(d.createdAt)}`}
            </span>
            {!d.current && !d.revoked && (
              <button type="button" className="btn small" aria-label={`Remove ${d.name}`} onClick={() => setPending(d)}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={pending !== null}
        title="Remove this device?"
        confirmLabel="Remove device"
        destructive
        onConfirm={() => pending && void revoke(pending)}
        onCancel={() => setPending(null)}
      >
        “{pending?.name}” stops syncing at its next request; the sessions already on it stay there. If it was lost or stolen, also create a new sync space
        (leave, then create) so the old code opens nothing new.
      </ConfirmDialog>
    </section>
  );
}
