'use client';

import { useFlows } from '@/components/state/FlowsProvider';
import { useUi } from '@/components/state/uiStore';

/** Starts a session and opens it: the sidebar's "New session" and the welcome screen's button do the same. */
export function useNewSession(): () => Promise<void> {
  const flows = useFlows();
  const selectSession = useUi((s) => s.selectSession);
  return async () => {
    const row = await flows.createSession();
    if (row) selectSession(row.id);
  };
}
