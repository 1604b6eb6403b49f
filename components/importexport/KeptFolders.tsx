'use client';

import './importexport.css';
import { FolderSync, RefreshCw, X } from 'lucide-react';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { watchFolders } from '@/lib/db';
import { formatRelative } from '@/lib/format/numbers';
import { useFlows } from '@/components/state/FlowsProvider';
import { useWatched } from '@/components/state/hooks';
import { useNow } from '@/components/state/useNow';
import { useUi } from '@/components/state/uiStore';
import { IconButton } from '@/components/common/IconButton';
import { useBatchImport } from './useBatchImport';

const noChanges = () => () => {};

type Folder = { id: string; name: string; checkedAt?: number; onFocus?: boolean };

/**
 * Folders kept current (Chromium's File System Access API): keep one, check
 * them all for new sessions, and per folder whether to check when the app
 * gets the focus back. Where the browser has no such API this shows nothing:
 * Import folder does the same job by hand.
 */
export function KeptFolders() {
  const flows = useFlows();
  const selectSession = useUi((s) => s.selectSession);
  const batch = useBatchImport();
  const folders = useWatched<Folder[]>(watchFolders, [], []);
  const now = useNow();
  // The choice shows at once; the stored value takes over when it arrives (`base`: what was stored when it was made).
  const [pending, setPending] = useState<Record<string, { on: boolean; base: boolean }>>({});
  const onFocusOf = (f: Folder) => {
    const p = pending[f.id];
    return p && p.base === !!f.onFocus ? p.on : !!f.onFocus;
  };
  // Known only in the browser (the server renders without it), and it does not change.
  const supported = useSyncExternalStore(noChanges, () => flows.folders.supported, () => false);

  // Folders kept "on focus" are checked when the window comes back to the front.
  useEffect(() => {
    if (!folders.some((f) => f.onFocus)) return;
    const check = () => {
      if (document.visibilityState === 'visible') void flows.folders.onFocus(selectSession);
    };
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', check);
    return () => {
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', check);
    };
  }, [flows, folders, selectSession]);

  if (!supported) return null;
  const busy = batch.running !== null;
  return (
    <div className="kept-folders">
      <button type="button" className="btn ghost block" onClick={() => void flows.folders.keep(selectSession)} disabled={busy}>
        <FolderSync aria-hidden="true" className="icon" />
        Keep a folder current
      </button>
      {folders.length > 0 && (
        <>
          <button type="button" className="btn ghost block" onClick={() => void flows.folders.checkAll(selectSession)} disabled={busy}>
            <RefreshCw aria-hidden="true" className="icon" />
            Check for new sessions
          </button>
          <details className="kept-list">
            <summary className="small">Kept folders ({folders.length})</summary>
            <ul>
              {folders.map((f) => (
                <li key={f.id}>
                  <span className="kept-name">
                    {f.name}
                    <span className="muted small">{f.checkedAt ? ` · checked ${formatRelative(f.checkedAt, now)}` : ''}</span>
                  </span>
                  <label className="check small">
                    <input
                      type="checkbox"
                      checked={onFocusOf(f)}
                      onChange={(e) => {
                        const on = e.target.checked;
                        setPending((p) => ({ ...p, [f.id]: { on, base: !!f.onFocus } }));
                        void flows.folders.setOnFocus(f.id, on);
                      }}
                    />
                    Check {f.name} when the app gets the focus
                  </label>
                  <IconButton icon={X} size="sm" label={`Forget ${f.name}`} tooltip="Forget this folder" onClick={() => void flows.folders.forget(f.id)} />
                </li>
              ))}
            </ul>
          </details>
        </>
      )}
    </div>
  );
}
