'use client';

import { create } from 'zustand';
import { readDraft, saveDraftSoon } from '@/lib/browser/drafts';
import { newId } from '@/lib/session/ids';
import type { EntryId } from '@/lib/session/types';

/** Which side panel is open, by its id in the panel list (components/chat/panels.tsx), or none. */
export type SidePanel = string | null;

interface UiState {
  sessionId: string | null;
  /** The selected session is this tab's new session, not stored until its first message (lib/flows/draft.ts). */
  draft: boolean;
  /** This tab's unsent new session: New session goes back to it (and its typed text) until it is sent. */
  draftId: string | null;
  /** A message to bring into view once its session shows (a search result), handled once. */
  jump: { sessionId: string; entryId: EntryId; nonce: number } | null;
  sidePanel: SidePanel;
  /** The session drawer on a phone (on a wide screen the list is always shown and this is ignored). */
  drawerOpen: boolean;
  /** Unsent composer text per session, so switching sessions keeps drafts; saved to survive reloads. */
  drafts: Record<string, string>;
  /** Settings → Providers, also opened from the "no model" notice. */
  providersOpen: boolean;
  setProvidersOpen: (open: boolean) => void;
  selectSession: (id: string | null) => void;
  /** Opens a new session: a draft with a fresh id, or the one not sent yet. */
  newSession: () => void;
  /** The draft's first message was stored: it is an ordinary session from now on. */
  draftStored: (id: string) => void;
  /** Opens a session at one of its entries. */
  openAt: (sessionId: string, entryId: EntryId | null) => void;
  /** Follows the URL hash (load, reload, back and forward). */
  openHash: (hash: string) => void;
  clearJump: () => void;
  setSidePanel: (p: SidePanel) => void;
  setDrawerOpen: (open: boolean) => void;
  setDraft: (sessionId: string, text: string) => void;
  /** Reads a session's saved draft the first time the session is shown in this tab. */
  loadDraft: (sessionId: string) => void;
}

/** The selected session is mirrored in the URL hash so a reload reopens it; a draft as #/new/<id>, which stores nothing. */
function writeHash(id: string | null, draft = false) {
  if (typeof window === 'undefined') return;
  const next = id ? `#/${draft ? 'new' : 's'}/${encodeURIComponent(id)}` : '#/';
  if (window.location.hash !== next) window.history.replaceState(null, '', next);
}

export function routeFromHash(hash: string): { sessionId: string | null; draft: boolean } {
  const m = /^#\/(s|new)\/([^/?#]+)/.exec(hash);
  return m ? { sessionId: decodeURIComponent(m[2]!), draft: m[1] === 'new' } : { sessionId: null, draft: false };
}

export const useUi = create<UiState>((set, get) => ({
  sessionId: null,
  draft: false,
  draftId: null,
  jump: null,
  sidePanel: null,
  drawerOpen: false,
  drafts: {},
  providersOpen: false,
  setProvidersOpen: (open) => set({ providersOpen: open }),
  // Picking a session (or starting one) is what the drawer was opened for: it closes.
  selectSession: (id) => {
    const draft = id !== null && id === get().draftId;
    writeHash(id, draft);
    set({ sessionId: id, draft, drawerOpen: false });
  },
  newSession: () => {
    const id = get().draftId ?? newId();
    writeHash(id, true);
    set({ sessionId: id, draft: true, draftId: id, drawerOpen: false });
  },
  draftStored: (id) => {
    if (get().draftId === id) set({ draftId: null });
    if (get().sessionId === id) {
      writeHash(id);
      set({ draft: false });
    }
  },
  openAt: (sessionId, entryId) => {
    get().selectSession(sessionId);
    set({ jump: entryId ? { sessionId, entryId, nonce: Date.now() } : null });
  },
  openHash: (hash) => {
    const route = routeFromHash(hash);
    if (route.draft && route.sessionId) {
      writeHash(route.sessionId, true);
      set({ sessionId: route.sessionId, draft: true, draftId: route.sessionId });
    } else get().selectSession(route.sessionId);
  },
  clearJump: () => set({ jump: null }),
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
