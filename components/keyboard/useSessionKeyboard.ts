'use client';

import { useEffect } from 'react';
import type { SessionFlows } from '@/lib/flows/app';
import type { LiveSessionState } from '@/lib/flows/liveSession';
import type { EntryId } from '@/lib/session/types';
import { useUi } from '@/components/state/uiStore';
import { useCommand } from './commands';
import { useFocusReturn } from './useFocusReturn';

/**
 * What the open session view does for keyboard and focus: the Compact
 * shortcut, focus back where it was when a side panel closes, a search
 * result's message brought into view, and the draft's address becoming the
 * stored session's once its first message is stored.
 */
export function useSessionKeyboard({
  session,
  state,
  panelOpen,
  canCompact,
  openCompact,
  scrollTo,
}: {
  session: SessionFlows;
  state: LiveSessionState;
  panelOpen: boolean;
  canCompact: boolean;
  openCompact: () => void;
  scrollTo: (id: EntryId) => void;
}) {
  useCommand('compact', () => {
    if (!canCompact) return false;
    openCompact();
    return true;
  });
  useFocusReturn(panelOpen);

  const uiDraft = useUi((s) => s.draft && s.sessionId === session.sessionId);
  const stored = state.status === 'ready' && !state.draft;
  useEffect(() => {
    if (uiDraft && stored) useUi.getState().draftStored(session.sessionId);
  }, [uiDraft, stored, session.sessionId]);

  const jump = useUi((s) => (s.jump?.sessionId === session.sessionId ? s.jump : null));
  const ready = state.status === 'ready';
  useEffect(() => {
    if (!jump || !ready) return;
    useUi.getState().clearJump();
    void session.showEntry(jump.entryId).then((found) => {
      if (found) scrollTo(jump.entryId);
    });
  }, [jump, ready, session, scrollTo]);
}
