'use client';

import { useEffect, useRef } from 'react';

/**
 * A native <dialog> shown modally while `open`: the browser provides the
 * dialog role, focus trapping, the inert page behind it and Escape to cancel.
 */
export function useModalDialog(open = true) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}
