'use client';

import { useEffect, useState, useSyncExternalStore } from 'react';
import { createPortal } from 'react-dom';
import { wordsFromFragment } from '@/lib/sync/crypto/code';
import { useFlows } from '@/components/state/FlowsProvider';
import { SyncDialog } from './SyncDialog';

/**
 * The "Sync" button of the Settings dialog, and the Sync dialog it opens. A
 * page opened from a sync code's QR link (`#sync-join=…`) opens the dialog with
 * the words filled in, and takes them out of the address bar at once.
 */
/**
 * A join link's words, read as the page's code loads: the app shell names the open session in the hash
 * (replacing it) as soon as it mounts, which is before this button exists.
 */
let wordsAtLoad: string | null = typeof window === 'undefined' ? null : wordsFromFragment(window.location.hash);

export function SyncButton() {
  const sync = useFlows().sync;
  const [open, setOpen] = useState(false);
  const [linkWords, setLinkWords] = useState<string | undefined>(undefined);

  // On load, and when the link is opened in a tab that already shows the app (only the fragment changes
  // then: read from the event, since the app shell's own listener rewrites the hash too).
  useEffect(() => {
    const take = (hash: string) => {
      const words = wordsFromFragment(hash);
      if (!words) return null;
      history.replaceState(null, '', window.location.pathname + window.location.search);
      return words;
    };
    const show = (words: string | null) => {
      if (!words) return;
      setLinkWords(words);
      setOpen(true);
    };
    const atLoad = wordsAtLoad ?? take(window.location.hash);
    if (wordsAtLoad) history.replaceState(null, '', window.location.pathname + window.location.search);
    wordsAtLoad = null;
    const first = setTimeout(() => show(atLoad), 0);
    const onHash = (e: HashChangeEvent) => show(take(new URL(e.newURL).hash));
    window.addEventListener('hashchange', onHash);
    return () => {
      clearTimeout(first);
      window.removeEventListener('hashchange', onHash);
    };
  }, []);

  // In the page's body, not inside the Settings dialog: a link opens it while Settings is closed, and a
  // dialog inside a closed one cannot show. (Rendered once hydrated: the server has no document.)
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  if (!sync) return null;
  return (
    <fieldset className="settings-group">
      <legend>Devices</legend>
      <p className="muted small">Sync your sessions with your other devices, end-to-end encrypted.</p>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Sync
      </button>
      {hydrated && createPortal(<SyncDialog open={open} onClose={() => setOpen(false)} initialWords={linkWords} />, document.body)}
    </fieldset>
  );
}

const noSubscription = () => () => {};
