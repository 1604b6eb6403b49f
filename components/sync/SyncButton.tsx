'use client';

import { useEffect, useState } from 'react';
import { wordsFromFragment } from '@/lib/sync/crypto/code';
import { useFlows } from '@/components/state/FlowsProvider';
import { SyncDialog } from './SyncDialog';

/**
 * The "Sync" button of the Settings dialog, and the Sync dialog it opens. A
 * page opened from a sync code's QR link (`#sync-join=…`) opens the dialog with
 * the words filled in, and takes them out of the address bar at once.
 */
export function SyncButton() {
  const sync = useFlows().sync;
  const [open, setOpen] = useState(false);
  const [linkWords, setLinkWords] = useState<string | undefined>(undefined);

  // On load, and when the link is opened in a tab that already shows the app (only the fragment changes then).
  useEffect(() => {
    const check = () => {
      const words = wordsFromFragment(window.location.hash);
      if (!words) return;
      history.replaceState(null, '', window.location.pathname + window.location.search);
      setLinkWords(words);
      setOpen(true);
    };
    const first = setTimeout(check, 0);
    window.addEventListener('hashchange', check);
    return () => {
      clearTimeout(first);
      window.removeEventListener('hashchange', check);
    };
  }, []);

  if (!sync) return null;
  return (
    <fieldset className="settings-group">
      <legend>Devices</legend>
      <p className="muted small">Sync your sessions with your other devices, end-to-end encrypted.</p>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Sync
      </button>
      <SyncDialog open={open} onClose={() => setOpen(false)} initialWords={linkWords} />
    </fieldset>
  );
}
