'use client';

import { create } from 'zustand';
import { readDraft, saveDraftSoon } from '@/lib/browser/drafts';

/** Which side panel is open, by its id in the panel list (components/chat/panels.tsx), or none. */
export type SidePanel = string | null;

interface UiState {
  sessionId: string | null;
  sidePanel: SidePanel;
  /** The session drawer on a phone (on a wide screen the list is always shown and this is ignored). */
  drawerOpen: boolean;
  /** Unsent composer text per session, so switching sessions keeps drafts; saved to survive reloads. */
  drafts: Record<string, string>;
  selectSession: (id: string | null) => void;
  setSidePanel: (p: SidePanel) => void;
  setDrawerOpen: (open: boolean) => void;
  setDraft: (sessionId: string, text: string) => void;
  /** Reads a session's saved draft the first time the session is shown in this tab. */
  loadDraft: (sessionId: string) => void;
}

/** The selected session is mirrored in the URL hash so a reload reopens it. */
function writeHash(id: string | null) {
  if (typeof window === 'undefined') return;
  const next = id ? `#/s/${encodeURIComponent(id)}` : '#/';
  if (window.location.hash !== next) window.history.replaceState(null, '', next);
}

export function sessionIdFromHash(hash: string): string | null {
  const m = /^#\/s\/([^/?#]+)/.exec(hash);
  return m ? decodeURIComponent(m[1]!) : null;
}

export const useUi = create<UiState>((set, get) => ({
  sessionId: null,
  sidePanel: null,
  drawerOpen: false,
  drafts: {},
  // Picking a session (or starting one) is what the drawer was opened for: it closes.
  selectSession: (id) => {
    writeHash(id);
    set({ sessionId: id, drawerOpen: false });
  },
  setSidePanel: (p) => set({ sidePanel: p }),
  setDrawerOpen: (open) => set({ drawerOpen: open }),
  setDraft: (sessionId, text) => {
    set((s) => ({ drafts: { ...s.drafts, [sessionId]: text } }));
    saveDraftSoon(sessionId, text);
  },
  loadDraft: (sessionId) => {
    if (get().drafts[sessionId] !== undefined) return;
    const text = readDraft(sessionId);
    set((s) => ({ drafts: { ...s.drafts, [sessionId]: text } }));
  },
}));
