/**
 * Composer drafts kept in localStorage, one key per session, so a reload or a
 * closed tab does not lose what was typed. Writes are batched (at most one
 * per session every SAVE_EVERY_MS while typing) and flushed when the page is
 * hidden or unloaded, so a reload straight after typing still keeps the text.
 * localStorage, not IndexedDB: it is synchronous, which is what a pagehide
 * handler needs to finish before the page goes.
 */

const PREFIX = 'longctx:draft:';
const SAVE_EVERY_MS = 400;

const pending = new Map<string, string>();
let timer: ReturnType<typeof setTimeout> | null = null;
let listening = false;

export function readDraft(sessionId: string): string {
  try {
    return window.localStorage.getItem(PREFIX + sessionId) ?? '';
  } catch {
    return ''; // storage disabled: drafts live in memory only
  }
}

export function flushDrafts() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  for (const [sessionId, text] of pending) {
    try {
      if (text) window.localStorage.setItem(PREFIX + sessionId, text);
      else window.localStorage.removeItem(PREFIX + sessionId);
    } catch {
      // Storage full or disabled: the draft stays in this tab's memory; nothing else depends on it.
    }
  }
  pending.clear();
}

function listen() {
  if (listening || typeof window === 'undefined') return;
  listening = true;
  window.addEventListener('pagehide', flushDrafts);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushDrafts();
  });
}

/** Records the draft for saving soon; an empty draft removes the key. */
export function saveDraftSoon(sessionId: string, text: string) {
  if (typeof window === 'undefined') return;
  listen();
  pending.set(sessionId, text);
  if (timer === null) timer = setTimeout(flushDrafts, SAVE_EVERY_MS);
}
