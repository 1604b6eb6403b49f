'use client';

import { useEffect, useRef } from 'react';

/**
 * A native <dialog> shown modally while `open`: the browser provides the
 * dialog role, focus trapping, the inert page behind it and Escape to cancel.
 * When it closes, focus goes back to what had it before it opened: the
 * browser does that for a dialog that closes, this does it for one that is
 * unmounted while open (dialogs rendered only while open).
 */
export function useModalDialog(open = true) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d || !open) return;
    const before = document.activeElement;
    const opener = before instanceof HTMLElement && before !== document.body ? before : null;
    if (!d.open) d.showModal();
    return () => {
      if (d.open) d.close();
      const now = document.activeElement;
      if ((now === null || now === document.body || d.contains(now)) && opener?.isConnected) opener.focus();
    };
  }, [open]);
  return ref;
}
