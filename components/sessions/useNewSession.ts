'use client';

import { useUi } from '@/components/state/uiStore';

/**
 * Opens a new session: a draft, stored with its first message (lib/flows/draft.ts), so an unused one
 * leaves nothing. The sidebar's "New session" and the welcome screen's button do the same.
 */
export function useNewSession(): () => void {
  return useUi((s) => s.newSession);
}
