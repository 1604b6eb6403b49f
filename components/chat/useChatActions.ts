'use client';

import { useCallback } from 'react';
import { toast } from 'sonner';
import { appendEntries, renameSession, setLeaf, updateEntry, type SessionRow } from '@/lib/db';
import { runAssistantTurn, type TurnDeps } from '@/lib/chat/turn';
import { buildSessionContext } from '@/lib/session/context';
import { oneLine } from '@/lib/session/messages';
import type { EntryId, SessionEntry, UserContent } from '@/lib/session/types';
import { holdStreamLock } from '@/components/client/locks';
import { streamFromRoute } from '@/components/client/routeStream';
import type { LiveSession } from '@/components/session/liveSession';
import { useRuns } from './runStore';

export interface ChatEnv {
  sessionId: string;
  live: LiveSession;
  row: SessionRow | null;
  /** Qualified model id, or undefined when no model is available. */
  model: string | undefined;
  /**
   * Called before a user message is sent and after each completed turn;
   * compaction plugs in here (auto-compaction, overflow recovery).
   */
  hooks?: {
    beforeSend?: (parentId: EntryId | null, content: UserContent[]) => Promise<EntryId | null>;
    afterTurn?: (leafId: EntryId) => Promise<void>;
    onOverflow?: (leafId: EntryId, signal: AbortSignal) => Promise<EntryId | null>;
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Chat actions for one session: send, edit and resend, regenerate, stop, switch branch. */
export function useChatActions(env: ChatEnv) {
  const { sessionId, live, model, row, hooks } = env;

  const turnDeps = useCallback(
    (): TurnDeps => ({
      append: async (parentId, entries) => {
        const created = await appendEntries(sessionId, parentId, entries);
        live.applyLocal(created, created[created.length - 1]!.id);
        return created;
      },
      update: async (id, fn) => {
        const next = await updateEntry(sessionId, id, fn);
        live.applyLocal([next]);
        return next;
      },
      streamChat: (req, h) => streamFromRoute('/api/chat', { model: req.model, system: req.system, context: req.context }, h),
      lock: holdStreamLock,
      onProgress: (p) => useRuns.getState().patch(sessionId, { text: p.text, reasoning: p.reasoning, entryId: p.entryId }),
    }),
    [sessionId, live],
  );

  /** Streams a reply under `parentId`, with one overflow recovery (compact, then retry) at most. */
  const reply = useCallback(
    async (parentId: EntryId) => {
      if (!model) {
        toast.error('No model is connected: the message is saved, but nothing can answer it yet.');
        return;
      }
      const abort = new AbortController();
      const run = useRuns.getState().start({ sessionId, kind: 'reply', parentId, abort });
      try {
        let parent = parentId;
        for (let attempt = 0; attempt < 2; attempt++) {
          const context = buildSessionContext(live.getSnapshot().tree, parent);
          const out = await runAssistantTurn(
            { parentId: parent, request: { model, system: row?.systemPrompt, context: context.items }, signal: abort.signal },
            turnDeps(),
          );
          if (out.kind === 'overflow') {
            // Recovery runs once: a second overflow after compacting is reported, never looped on.
            const recovered = attempt === 0 && hooks?.onOverflow ? await hooks.onOverflow(parent, abort.signal) : null;
            if (!recovered) {
              toast.error(`${out.error.message} Compacting did not make it fit; try Compact with fewer kept tokens or a model with a larger window.`);
              return;
            }
            parent = recovered;
            continue;
          }
          if (out.kind === 'error') toast.error(out.error.message);
          if (out.kind === 'done' && hooks?.afterTurn) await hooks.afterTurn(out.entry.id);
          return;
        }
      } catch (err) {
        toast.error(errorMessage(err));
      } finally {
        useRuns.getState().end(sessionId, run);
      }
    },
    [model, sessionId, live, row?.systemPrompt, turnDeps, hooks],
  );

  const sendContent = useCallback(
    async (parentId: EntryId | null, content: UserContent[]) => {
      try {
        const parent = hooks?.beforeSend ? await hooks.beforeSend(parentId, content) : parentId;
        const [user] = await appendEntries(sessionId, parent, [{ type: 'message', message: { role: 'user', content } }]);
        live.applyLocal([user!], user!.id);
        const text = content.find((c) => c.type === 'text');
        if (row && row.title === 'New session' && text?.type === 'text') await renameSession(sessionId, oneLine(text.text, 60));
        await reply(user!.id);
      } catch (err) {
        toast.error(errorMessage(err));
      }
    },
    [sessionId, live, reply, row, hooks],
  );

  const send = useCallback(
    async (text: string, attachments: UserContent[] = []) => {
      const content: UserContent[] = [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...attachments];
      if (content.length === 0) return;
      await sendContent(live.getSnapshot().leafId, content);
    },
    [live, sendContent],
  );

  /** Editing never overwrites: the new text becomes a sibling of the original, starting a branch. */
  const editAndResend = useCallback(
    async (entry: SessionEntry, text: string) => {
      if (entry.type !== 'message' || entry.message.role !== 'user') return;
      const kept = entry.message.content.filter((c) => c.type !== 'text');
      await sendContent(entry.parentId, [{ type: 'text', text }, ...kept]);
    },
    [sendContent],
  );

  /** A new reply to the same prompt, as a sibling of the old one. */
  const regenerate = useCallback(
    async (entry: SessionEntry) => {
      if (!entry.parentId) return;
      live.setLeaf(entry.parentId);
      await reply(entry.parentId);
    },
    [live, reply],
  );

  const stop = useCallback(() => {
    useRuns.getState().runs[sessionId]?.abort.abort();
  }, [sessionId]);

  const navigateTo = useCallback(
    async (leafId: EntryId | null) => {
      live.setLeaf(leafId);
      try {
        await setLeaf(sessionId, leafId);
      } catch (err) {
        toast.error(errorMessage(err));
      }
    },
    [live, sessionId],
  );

  /** Moves to the neighbouring sibling branch, landing on the newest leaf below it. */
  const switchSibling = useCallback(
    async (entry: SessionEntry, direction: -1 | 1) => {
      const tree = live.getSnapshot().tree;
      if (entry.type !== 'message') return;
      const sibs = tree.children(entry.parentId).filter((s) => s.type === 'message' && s.message.role === entry.message.role);
      const next = sibs[sibs.findIndex((s) => s.id === entry.id) + direction];
      if (!next) return;
      await navigateTo(tree.newestLeafUnder(next.id));
    },
    [live, navigateTo],
  );

  return { send, editAndResend, regenerate, stop, switchSibling, navigateTo, reply };
}
