'use client';

import { useEffect } from 'react';

/**
 * While `active` (a side panel is open), remembers what had focus when it
 * opened; when it closes, by Esc, its close button or its toggle, focus goes
 * back there, unless the user has put it somewhere else meanwhile.
 */
export function useFocusReturn(active: boolean) {
  useEffect(() => {
    if (!active) return;
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    return () => {
      const now = document.activeElement;
      const lost = now === null || now === document.body || !now.isConnected;
      if (lost && opener?.isConnected) opener.focus();
    };
  }, [active]);
}
