import { errorMessage } from '@/lib/errors';
import { forkSession } from '@/lib/session/fork';
import { isPinnable } from '@/lib/session/pins';
import type { EntryId } from '@/lib/session/types';
import type { SessionHandle } from './session';

/** Labels are entries too (appended at the leaf, as pi does), so they travel with exports and forks. */
export async function setLabel(s: SessionHandle, targetId: EntryId, label: string | null): Promise<void> {
  try {
    const created = await s.ports.store.appendEntries(s.sessionId, s.live.getSnapshot().leafId, [{ type: 'label', targetId, label }]);
    s.live.applyLocal(created, created[0]!.id);
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
  }
}

/**
 * Pins a message so no compaction summarises it away, or unpins it. A pin is
 * an entry appended at the leaf (so it is recorded, exported and applies to
 * this path), not a flag written into the message. Not while a reply or a
 * summary runs here: the entry would land under a leaf that is still moving.
 */
export async function setPinned(s: SessionHandle, targetId: EntryId, pinned: boolean): Promise<boolean> {
  if (s.runs.get(s.sessionId)) {
    s.ports.notify.info('Wait until the reply or summary in progress has finished, then pin the message.');
    return false;
  }
  const snap = s.live.getSnapshot();
  const target = snap.tree.get(targetId);
  if (!target || !isPinnable(target)) {
    s.ports.notify.error('Only your messages and the model’s replies can be kept verbatim.');
    return false;
  }
  try {
    const created = await s.ports.store.appendEntries(s.sessionId, snap.leafId, [{ type: 'pin', targetId, pinned }]);
    s.live.applyLocal(created, created[0]!.id);
    return true;
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
    return false;
  }
}

/** A new session holding the path from the root to this tab's position. Resolves with its id. */
export async function forkHere(s: SessionHandle): Promise<string | null> {
  const at = s.live.getSnapshot().leafId;
  if (!at) return null;
  try {
    const snapshot = await s.ports.store.exportSnapshot(s.sessionId);
    if (!snapshot) throw new Error('The session no longer exists.');
    const fork = forkSession(snapshot.meta, snapshot.entries, at);
    const { imported } = await s.ports.store.importSnapshots([fork], { allowDuplicates: true });
    s.ports.notify.success(`Forked into “${fork.meta.title}”`);
    return imported[0]!.id;
  } catch (err) {
    s.ports.notify.error(`Fork failed: ${errorMessage(err)}`);
    return null;
  }
}

/**
 * A reply stored as "streaming" with no tab holding its stream lock was cut off
 * by a closed or crashed tab: it is marked interrupted, its text kept. The
 * lock is checked twice, `recheckMs` apart, so a reply whose tab is just
 * acquiring the lock is not mislabelled.
 */
export async function repairInterrupted(s: SessionHandle, opts: { recheckMs?: number; cancelled?: () => boolean } = {}): Promise<number> {
  const cancelled = opts.cancelled ?? (() => false);
  const candidates = s.live
    .getSnapshot()
    .tree.entries()
    .filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.status === 'streaming')
    .map((e) => e.id);
  let repaired = 0;
  for (const id of candidates) {
    if (cancelled() || (await s.ports.locks.isHeld(id))) continue;
    await new Promise((r) => setTimeout(r, opts.recheckMs ?? 1000));
    if (cancelled() || (await s.ports.locks.isHeld(id))) continue;
    const next = await s.ports.store
      .updateEntry(s.sessionId, id, (e) =>
        e.type === 'message' && e.message.role === 'assistant' && e.message.status === 'streaming'
          ? { ...e, message: { ...e.message, status: 'complete', stopReason: 'interrupted' } }
          : e,
      )
      .catch(() => null);
    if (next) {
      s.live.applyLocal([next]);
      repaired++;
    }
  }
  return repaired;
}
