'use client';

import './sync.css';
import { useState } from 'react';
import { defaultDeviceName } from '@/lib/sync/engine';
import { ConfirmDialog } from '@/components/common/ConfirmDialog';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { DeviceList } from './DeviceList';
import { SyncCode } from './SyncCode';
import { SyncStatusLine } from './SyncStatusLine';
import { useSyncSpace, useSyncStatus } from './useSync';

/**
 * Settings → Sync: create a space or join one with its code; once in a space,
 * the status, the code (words and QR), the devices, and leaving.
 */
export function SyncDialog({ open, onClose, initialWords }: { open: boolean; onClose: () => void; initialWords?: string }) {
  const ref = useModalDialog(open);
  const space = useSyncSpace();
  return (
    <dialog
      ref={ref}
      className="dialog sync-dialog"
      aria-labelledby="sync-title"
      onClose={(e) => {
        // React passes a dialog's close event on to the dialogs around it (in its tree): the Settings dialog
        // must not close with this one, nor this one with a confirmation inside it.
        e.stopPropagation();
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <h2 id="sync-title">Sync</h2>
      <div className="dialog-body">{open && (space ? <InSpace words={space.words} /> : <NotInSpace initialWords={initialWords} />)}</div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}

const deviceName = () => defaultDeviceName(typeof navigator === 'undefined' ? '' : navigator.userAgent);

function NotInSpace({ initialWords }: { initialWords?: string }) {
  const sync = useFlows().sync!;
  // Why sync stopped, when it did not stop by the user's choice (this device was removed elsewhere).
  const status = useSyncStatus();
  const [name, setName] = useState(deviceName);
  const [words, setWords] = useState(initialWords ?? '');
  const [busy, setBusy] = useState<'create' | 'join' | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function create() {
    setBusy('create');
    setError(null);
    const r = await sync.create(name);
    setBusy(null);
    if ('error' in r) setError(r.error);
  }

  async function join(e: React.FormEvent) {
    e.preventDefault();
    setBusy('join');
    setError(null);
    const r = await sync.join(words, name);
    setBusy(null);
    if ('error' in r) setError(r.error);
  }

  return (
    <>
      {status.state === 'error' && status.message && (
        <p role="alert" className="msg-error">
          {status.message}
        </p>
      )}
      <p>
        Keep your sessions on every device. They are encrypted in this browser before they leave it: the server stores only ciphertext it cannot read. Everything
        keeps working offline; changes are sent when the connection is back.
      </p>
      <label className="field">
        <span>This device’s name (shown to your other devices)</span>
        <input type="text" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      </label>
      <section className="settings-group" aria-labelledby="sync-create-title">
        <h3 id="sync-create-title">First device</h3>
        <button type="button" className="btn primary" disabled={busy !== null} onClick={() => void create()}>
          {busy === 'create' ? 'Creating…' : 'Create a sync space'}
        </button>
      </section>
      <form className="settings-group" aria-labelledby="sync-join-title" onSubmit={(e) => void join(e)}>
        <h3 id="sync-join-title">Another device</h3>
        <label className="field">
          <span>Sync code (the 12 words shown on your other device)</span>
          <textarea rows={3} value={words} autoComplete="off" autoCapitalize="none" spellCheck={false} onChange={(e) => setWords(e.target.value)} />
        </label>
        <button type="submit" className="btn" disabled={busy !== null || !words.trim()}>
          {busy === 'join' ? 'Joining…' : 'Join'}
        </button>
      </form>
      {error && (
        <p role="alert" className="msg-error">
          {error}
        </p>
      )}
    </>
  );
}

function InSpace({ words }: { words: string }) {
  const sync = useFlows().sync!;
  const status = useSyncStatus();
  const [showCode, setShowCode] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function leave() {
    setLeaving(false);
    const r = await sync.leave();
    if ('error' in r) setError(r.error);
  }

  return (
    <>
      <SyncStatusLine status={status} />
      <div className="sync-row">
        <button type="button" className="btn" onClick={() => sync.syncNow()}>
          Sync now
        </button>
        <button type="button" className="btn" aria-expanded={showCode} onClick={() => setShowCode((v) => !v)}>
          {showCode ? 'Hide sync code' : 'Show sync code'}
        </button>
      </div>
      {showCode && <SyncCode words={words} />}
      <DeviceList />
      <button type="button" className="btn danger" onClick={() => setLeaving(true)}>
        Leave this sync space
      </button>
      {error && (
        <p role="alert" className="msg-error">
          {error}
        </p>
      )}
      <ConfirmDialog open={leaving} title="Leave the sync space?" confirmLabel="Leave" destructive onConfirm={() => void leave()} onCancel={() => setLeaving(false)}>
        This browser stops syncing and forgets the code. Its sessions stay here, and stay on your other devices.
      </ConfirmDialog>
    </>
  );
}
