'use client';

import { create } from 'zustand';
import type { EntryId } from '@/lib/session/types';

/** An entry to bring into view once its session is shown (opening the source of a continued session). */
interface JumpState {
  target: { sessionId: string; entryId: EntryId; nonce: number } | null;
  jump: (sessionId: string, entryId: EntryId) => void;
  clear: () => void;
}

export const useJump = create<JumpState>((set) => ({
  target: null,
  jump: (sessionId, entryId) => set({ target: { sessionId, entryId, nonce: Date.now() } }),
  clear: () => set({ target: null }),
}));
