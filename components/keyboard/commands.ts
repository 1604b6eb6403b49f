'use client';

import { useEffect, useRef } from 'react';
import type { ShortcutId } from '@/lib/keyboard/shortcuts';

/**
 * Shortcuts whose action belongs to a component deeper down (the open
 * session's Compact dialog): the component registers a handler while it is
 * mounted, and the key handler runs it. A handler returns false when the
 * action does not apply right now.
 */
type Handler = () => boolean;

const handlers = new Map<ShortcutId, Handler>();

export function useCommand(id: ShortcutId, handler: Handler) {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    const run = () => latest.current();
    handlers.set(id, run);
    return () => {
      if (handlers.get(id) === run) handlers.delete(id);
    };
  }, [id]);
}

export function runCommand(id: ShortcutId): boolean {
  return handlers.get(id)?.() ?? false;
}
