'use client';

import { useCallback } from 'react';

/**
 * The message box of the open session, for "focus the message box" (Shift+Esc,
 * a search result, a new session). One is mounted at a time.
 */
let current: HTMLTextAreaElement | null = null;

/** On a touch screen focusing would pop up the keyboard over the conversation the user came to read. */
const touchFirst = () => typeof window !== 'undefined' && window.matchMedia?.('(pointer: coarse)').matches === true;

/**
 * The ref of the message box: registers it, and focuses it when it appears,
 * which is when a session opens (the session view mounts it once loaded).
 */
export function useComposerRef() {
  return useCallback((el: HTMLTextAreaElement | null) => {
    if (el) {
      current = el;
      // Not over an open dialog (the search dialog that opened this session closes on its own).
      if (!touchFirst() && !document.querySelector('dialog[open]')) el.focus({ preventScroll: true });
    } else if (current && !current.isConnected) current = null;
  }, []);
}

/** Focuses the message box; false when no session is open. */
export function focusComposer(): boolean {
  if (!current?.isConnected) return false;
  current.focus();
  return true;
}
