'use client';

import { useEffect } from 'react';
import { updateEntry } from '@/lib/db';
import type { SessionTree } from '@/lib/session/tree';
import { isStreamLockHeld } from '@/components/client/locks';

/**
 * A reply stored as "streaming" with no tab holding its stream lock was cut off
 * by a closed or crashed tab. Mark it interrupted, keeping its text. The lock
 * is checked twice, a moment apart, so a reply whose tab is just acquiring the
 * lock is not mislabelled.
 */
export function useInterruptedRepair(sessionId: string, tree: SessionTree, version: number) {
  useEffect(() => {
    const candidates = tree
      .entries()
      .filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.status === 'streaming')
      .map((e) => e.id);
    if (candidates.length === 0) return;
    let cancelled = false;
    const timer = setTimeout(async () => {
      for (const id of candidates) {
        if (cancelled || (await isStreamLockHeld(id))) continue;
        await new Promise((r) => setTimeout(r, 1000));
        if (cancelled || (await isStreamLockHeld(id))) continue;
        await updateEntry(sessionId, id, (e) =>
          e.type === 'message' && e.message.role === 'assistant' && e.message.status === 'streaming'
            ? { ...e, message: { ...e.message, status: 'complete', stopReason: 'interrupted' } }
            : e,
        ).catch(() => {});
      }
    }, 500);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [sessionId, tree, version]);
}
