'use client';

import { useCallback, useSyncExternalStore } from 'react';
import { matchesMedia, subscribeMedia } from '@/lib/browser/media';

/** Whether a media query matches now; false on the server. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback((onChange: () => void) => subscribeMedia(query, onChange), [query]);
  return useSyncExternalStore(subscribe, () => matchesMedia(query), () => false);
}

/** The phone layout: the session list is a drawer and panels are full-screen sheets (matches the CSS breakpoint). */
export const NARROW_QUERY = '(max-width: 768px)';
