import { runAssistantTurn, type TurnDeps } from '@/lib/chat/turn';
import { errorMessage } from '@/lib/errors';
import { buildSessionContext } from '@/lib/session/context';
import { wordTitle } from '@/lib/chat/title';
import { messageText } from '@/lib/session/messages';
import type { EntryId, SessionEntry, UserContent } from '@/lib/session/types';
import { autoTitle } from './autoTitle';
import { autoCompactIfNeeded, compactBeforeSendIfNeeded, recoverFromOverflow } from './compaction';
import { moveLeaf } from './branch';
import { ensureStored, UNTITLED } from './draft';
import type { Run } from './runs';
import type { SessionHandle } from './session';

function turnDeps(s: SessionHandle, run: Run): TurnDeps {
  const { store, transport, locks } = s.ports;
  const patch = s.runs.throttled(run);
  return {
    append: async (parentId, entries) => {
      const created = await store.appendEntries(s.sessionId, parentId, entries);
      s.live.applyLocal(created, created[created.length - 1]!.id);
      return created;
    },
    update: async (id, fn) => {
      const next = await store.updateEntry(s.sessionId, id, fn);
      s.live.applyLocal([next]);
      return next;
    },
    streamChat: (req, h) => transport.streamChat(req, h),
    lock: (id) => locks.hold(id),
    onProgress: (p) => patch({ text: p.text, reasoning: p.reasoning, entryId: p.entryId }),
  };
}

/**
 * Streams a reply under `parentId`, with one overflow recovery (compact, then
 * retry) at most. Resolves with the reply's text when it completed, else null.
 */
export async function reply(s: SessionHandle, parentId: EntryId): Promise<string | null> {
  const { notify } = s.ports;
  const model = s.env().chatModel?.id;
  if (!model) {
    notify.error('No model is connected: the message is saved, but nothing can answer it yet.');
    return null;
  }
  const run = s.runs.start({ sessionId: s.sessionId, kind: 'reply', parentId, abort: new AbortController() });
  try {
    let parent = parentId;
    for (let attempt = 0; attempt < 2; attempt++) {
      const context = buildSessionContext(s.live.getSnapshot().tree, parent);
      const { systemPrompt, temperature, maxOutputTokens } = s.env();
      const request = { model, system: systemPrompt, context: context.items, ...(temperature !== undefined ? { temperature } : {}), ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) };
      const out = await runAssistantTurn({ parentId: parent, request, signal: run.abort.signal }, turnDeps(s, run));
      if (out.kind === 'overflow') {
        // Recovery runs once: a second overflow after compacting is reported, never looped on.
        const recovered = attempt === 0 ? await recoverFromOverflow(s, run) : null;
        if (!recovered) {
          notify.error(`${out.error.message} Compacting did not make it fit; try Compact with fewer kept tokens or a model with a larger window.`);
          return null;
        }
        parent = recovered;
        continue;
      }
      if (out.kind === 'error') notify.error(out.error.message);
      if (out.kind === 'done') {
        s.runs.end(run);
        await autoCompactIfNeeded(s);
        return out.entry.type === 'message' ? messageText(out.entry.message) : '';
      }
      return null;
    }
  } catch (err) {
    notify.error(errorMessage(err));
  } finally {
    s.runs.end(run);
  }
  return null;
}

/**
 * Appends the user message under `parentId`, the leaf the user saw when
 * pressing Send, then streams the reply. The live leaf is not re-read after
 * the pre-send compaction check: another tab's message arriving meanwhile
 * extends it, and following it would chain this message under theirs (and
 * put their prompt into our request). `onStored` runs once the message is
 * stored, before the reply.
 */
async function sendContent(s: SessionHandle, parentId: EntryId | null, content: UserContent[], onStored?: () => void): Promise<void> {
  const { store, notify } = s.ports;
  try {
    // An edit branches from an earlier point: move there first, so a compaction before sending happens on that path.
    if (s.live.getSnapshot().leafId !== parentId) s.live.setLeaf(parentId);
    const compactionId = await compactBeforeSendIfNeeded(s, content, parentId);
    const anchor = compactionId ?? parentId;
    await ensureStored(s);
    const [user] = await store.appendEntries(s.sessionId, anchor, [{ type: 'message', message: { role: 'user', content } }]);
    onStored?.();
    s.live.applyLocal([user!], user!.id);
    const text = content.find((c) => c.type === 'text');
    // A new session is named after its first prompt at once, and by the model after the first reply.
    const provisional = s.env().title === UNTITLED && text?.type === 'text' ? wordTitle(text.text) : null;
    if (provisional) await store.renameSession(s.sessionId, provisional);
    const answer = await reply(s, user!.id);
    if (provisional && answer !== null && text?.type === 'text') await autoTitle(s, provisional, text.text, answer);
  } catch (err) {
    // The meter may show the message as sent (compactBeforeSendIfNeeded previews it); it was not stored.
    s.sync.dropPreview();
    notify.error(errorMessage(err));
  }
}

/**
 * Sends from the current leaf. `stored` resolves as soon as the message is stored (true) or could
 * not be (false), not when the reply ends: the composer keeps its text and attachments until then.
 * `finished` resolves when the reply (and any compaction after it) is done.
 */
export function send(s: SessionHandle, text: string, attachments: UserContent[] = []): { stored: Promise<boolean>; finished: Promise<void> } {
  const content: UserContent[] = [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...attachments];
  if (content.length === 0) return { stored: Promise.resolve(false), finished: Promise.resolve() };
  let markStored: (ok: boolean) => void = () => {};
  const stored = new Promise<boolean>((resolve) => (markStored = resolve));
  // Whichever comes first wins: stored → true; the whole send ending without storing → false.
  const finished = sendContent(s, s.live.getSnapshot().leafId, content, () => markStored(true)).then(() => markStored(false));
  return { stored, finished };
}

/** Editing never overwrites: the new text becomes a sibling of the original, starting a branch. */
export async function editAndResend(s: SessionHandle, entry: SessionEntry, text: string): Promise<void> {
  if (entry.type !== 'message' || entry.message.role !== 'user') return;
  const kept = entry.message.content.filter((c) => c.type !== 'text');
  await sendContent(s, entry.parentId, [{ type: 'text', text }, ...kept]);
}

/** A new reply to the same prompt, as a sibling of the old one. */
export async function regenerateReply(s: SessionHandle, entry: SessionEntry): Promise<void> {
  if (!entry.parentId) return;
  s.live.setLeaf(entry.parentId);
  await reply(s, entry.parentId);
}

export function stop(s: SessionHandle): void {
  s.runs.get(s.sessionId)?.abort.abort();
}

/** Moves to the neighbouring sibling branch, landing on the newest leaf below it. */
export async function switchSibling(s: SessionHandle, entry: SessionEntry, direction: -1 | 1): Promise<void> {
  const tree = s.live.getSnapshot().tree;
  if (entry.type !== 'message') return;
  const sibs = tree.children(entry.parentId).filter((x) => x.type === 'message' && x.message.role === entry.message.role);
  const next = sibs[sibs.findIndex((x) => x.id === entry.id) + direction];
  if (!next) return;
  await moveLeaf(s, tree.newestLeafUnder(next.id));
}

/** A model change is part of the history: recorded on the path, and remembered by the session. */
export async function changeModel(s: SessionHandle, model: string): Promise<void> {
  const { store, notify } = s.ports;
  // A draft has no history yet: the model is remembered and stored with the session.
  if (s.live.getSnapshot().draft) return s.live.patchDraft({ model });
  try {
    const created = await store.appendEntries(s.sessionId, s.live.getSnapshot().leafId, [{ type: 'model_change', model }]);
    s.live.applyLocal(created, created[0]!.id);
    await store.updateSession(s.sessionId, { model });
  } catch (err) {
    notify.error(errorMessage(err));
  }
}
