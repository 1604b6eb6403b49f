import type { StreamLocks } from '@/lib/flows/ports';

/**
 * Web Locks mark which entries a tab is still streaming. A reply whose lock no
 * tab holds was cut off by a closed or crashed tab: it is shown as interrupted.
 * Locks vanish with the tab that held them, which is exactly the signal needed.
 */
const PREFIX = 'longctx-stream:';

export async function holdStreamLock(entryId: string): Promise<() => void> {
  if (typeof navigator === 'undefined' || !navigator.locks) return () => {};
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await new Promise<void>((acquired) => {
    void navigator.locks.request(PREFIX + entryId, () => {
      acquired();
      return held;
    });
  });
  return release;
}

/** True when some tab holds the entry's stream lock (it is genuinely still streaming). */
export async function isStreamLockHeld(entryId: string): Promise<boolean> {
  if (typeof navigator === 'undefined' || !navigator.locks) return false;
  const state = await navigator.locks.query();
  return (state.held ?? []).some((l) => l.name === PREFIX + entryId);
}

export const webStreamLocks: StreamLocks = { hold: holdStreamLock, isHeld: isStreamLockHeld };
