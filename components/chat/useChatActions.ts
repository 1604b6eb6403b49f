'use client';

import { useLayoutEffect, useMemo, useRef } from 'react';
import { toast } from 'sonner';
import { appendEntries, renameSession, setLeaf, updateEntry, type SessionRow } from '@/lib/db';
import { runAssistantTurn, type TurnDeps } from '@/lib/chat/turn';
import { buildSessionContext } from '@/lib/session/context';
import { oneLine } from '@/lib/session/messages';
import type { EntryId, SessionEntry, UserContent } from '@/lib/session/types';
import { holdStreamLock } from '@/components/client/locks';
import { streamFromRoute } from '@/components/client/routeStream';
import type { LiveSession } from '@/components/session/liveSession';
import { throttledPatch, useRuns, type Run } from './runStore';

export interface ChatEnv {
  sessionId: string;
  live: LiveSession;
  row: SessionRow | null;
  /** Qualified model id, or undefined when no model is available. */
  model: string | undefined;
  /** Compaction plugs in here: before sending, after each turn, and on a context overflow. */
  hooks?: {
    /**
     * May compact at `leafId` (the leaf the user sent from) first; resolves with the compaction entry it
     * appended under that leaf, which the message then follows, or null.
     */
    beforeSend?: (content: UserContent[], leafId: EntryId | null) => Promise<EntryId | null>;
    afterTurn?: () => Promise<void>;
    /** Compacts with a smaller keep-recent; resolves with the new leaf to retry from, or null. */
    onOverflow?: (run: Run) => Promise<EntryId | null>;
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export type ChatActions = ReturnType<typeof createChatActions>;

/**
 * Chat actions for one session: send, edit and resend, regenerate, stop,
 * switch branch, navigate. They read the environment through `get()` at the
 * moment they run, so the object itself never changes identity.
 */
export function createChatActions(get: () => ChatEnv) {
  const turnDeps = (env: ChatEnv, run: Run): TurnDeps => {
    const patch = throttledPatch(run);
    return {
      append: async (parentId, entries) => {
        const created = await appendEntries(env.sessionId, parentId, entries);
        env.live.applyLocal(created, created[created.length - 1]!.id);
        return created;
      },
      update: async (id, fn) => {
        const next = await updateEntry(env.sessionId, id, fn);
        env.live.applyLocal([next]);
        return next;
      },
      streamChat: (req, h) => streamFromRoute('/api/chat', { model: req.model, system: req.system, context: req.context }, h),
      lock: holdStreamLock,
      onProgress: (p) => patch({ text: p.text, reasoning: p.reasoning, entryId: p.entryId }),
    };
  };

  /** Streams a reply under `parentId`, with one overflow recovery (compact, then retry) at most. */
  async function reply(parentId: EntryId) {
    const env = get();
    if (!env.model) {
      toast.error('No model is connected: the message is saved, but nothing can answer it yet.');
      return;
    }
    const abort = new AbortController();
    const run = useRuns.getState().start({ sessionId: env.sessionId, kind: 'reply', parentId, abort });
    try {
      let parent = parentId;
      for (let attempt = 0; attempt < 2; attempt++) {
        const context = buildSessionContext(env.live.getSnapshot().tree, parent);
        const out = await runAssistantTurn(
          { parentId: parent, request: { model: env.model, system: env.row?.systemPrompt, context: context.items }, signal: abort.signal },
          turnDeps(env, run),
        );
        if (out.kind === 'overflow') {
          // Recovery runs once: a second overflow after compacting is reported, never looped on.
          const recovered = attempt === 0 && env.hooks?.onOverflow ? await env.hooks.onOverflow(run) : null;
          if (!recovered) {
            toast.error(`${out.error.message} Compacting did not make it fit; try Compact with fewer kept tokens or a model with a larger window.`);
            return;
          }
          parent = recovered;
          continue;
        }
        if (out.kind === 'error') toast.error(out.error.message);
        if (out.kind === 'done' && env.hooks?.afterTurn) {
          useRuns.getState().end(env.sessionId, run);
          await env.hooks.afterTurn();
        }
        return;
      }
    } catch (err) {
      toast.error(errorMessage(err));
    } finally {
      useRuns.getState().end(env.sessionId, run);
    }
  }

  /**
   * Appends the user message under `parentId`, the leaf the user saw when
   * pressing Send, then streams the reply. The live leaf is not re-read after
   * the pre-send compaction check: another tab's message arriving meanwhile
   * extends it, and following it would chain this message under theirs (and
   * put their prompt into our request). `onStored` runs once the message is
   * in IndexedDB, before the reply.
   */
  async function sendContent(parentId: EntryId | null, content: UserContent[], onStored?: () => void) {
    const env = get();
    try {
      // An edit branches from an earlier point: move there first, so a compaction before sending happens on that path.
      if (env.live.getSnapshot().leafId !== parentId) env.live.setLeaf(parentId);
      const compactionId = env.hooks?.beforeSend ? await env.hooks.beforeSend(content, parentId) : null;
      const anchor = compactionId ?? parentId;
      const [user] = await appendEntries(env.sessionId, anchor, [{ type: 'message', message: { role: 'user', content } }]);
      onStored?.();
      env.live.applyLocal([user!], user!.id);
      const text = content.find((c) => c.type === 'text');
      if (env.row && env.row.title === 'New session' && text?.type === 'text') await renameSession(env.sessionId, oneLine(text.text, 60));
      await reply(user!.id);
    } catch (err) {
      toast.error(errorMessage(err));
    }
  }

  async function navigateTo(leafId: EntryId | null) {
    const env = get();
    env.live.setLeaf(leafId);
    try {
      await setLeaf(env.sessionId, leafId);
    } catch (err) {
      toast.error(errorMessage(err));
    }
  }

  return {
    reply,
    navigateTo,

    /**
     * Sends from the current leaf. Resolves as soon as the message is stored (true) or could not be
     * (false), not when the reply ends: the composer keeps its text and attachments until then.
     */
    send(text: string, attachments: UserContent[] = []): Promise<boolean> {
      const content: UserContent[] = [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...attachments];
      if (content.length === 0) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        // Whichever comes first wins: stored → true; the whole send ending without storing → false.
        void sendContent(get().live.getSnapshot().leafId, content, () => resolve(true)).then(() => resolve(false));
      });
    },

    /** Editing never overwrites: the new text becomes a sibling of the original, starting a branch. */
    async editAndResend(entry: SessionEntry, text: string) {
      if (entry.type !== 'message' || entry.message.role !== 'user') return;
      const kept = entry.message.content.filter((c) => c.type !== 'text');
      await sendContent(entry.parentId, [{ type: 'text', text }, ...kept]);
    },

    /** A new reply to the same prompt, as a sibling of the old one. */
    async regenerate(entry: SessionEntry) {
      if (!entry.parentId) return;
      get().live.setLeaf(entry.parentId);
      await reply(entry.parentId);
    },

    stop() {
      useRuns.getState().runs[get().sessionId]?.abort.abort();
    },

    /** Moves to the neighbouring sibling branch, landing on the newest leaf below it. */
    async switchSibling(entry: SessionEntry, direction: -1 | 1) {
      const tree = get().live.getSnapshot().tree;
      if (entry.type !== 'message') return;
      const sibs = tree.children(entry.parentId).filter((s) => s.type === 'message' && s.message.role === entry.message.role);
      const next = sibs[sibs.findIndex((s) => s.id === entry.id) + direction];
      if (!next) return;
      await navigateTo(tree.newestLeafUnder(next.id));
    },
  };
}

/** The latest environment, readable from async code without re-creating anything. */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}

export function useChatActions(env: ChatEnv): ChatActions {
  const latest = useLatest(env);
  return useMemo(() => createChatActions(() => latest.current), [latest]);
}
