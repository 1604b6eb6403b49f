import { appliedEntry, placePending, PENDING_PROBLEM_TEXT, type PendingSummary } from '@/lib/compaction/pending';
import { formatCount } from '@/lib/format/numbers';
import { errorMessage } from '@/lib/errors';
import { resolveSummaries } from '@/lib/session/revisions';
import type { EntryId } from '@/lib/session/types';
import type { Unsubscribe } from './ports';
import type { SessionHandle } from './session';
import { syncTarget, syncTokens } from './summaryPipeline';

/**
 * Review before apply. Automatic compaction prepares its summary and stores
 * it as a draft (lib/compaction/pending.ts, kept in lib/db); the
 * conversation goes on uncompacted until the user applies it, or until the
 * context no longer fits (policy.ts reviewLimit), when it is applied on its
 * own and the user is told. Applied later, the draft keeps its cut: what was
 * written since simply joins the kept part.
 */

export const APPLIED_ON_ITS_OWN = 'The context no longer fit: the prepared summary was applied.';

/** The compaction in effect on the path to `leafId` (null: none): a draft records what it was written against. */
export function inEffectAt(s: SessionHandle, leafId: EntryId | null): EntryId | null {
  const path = s.live.getSnapshot().tree.pathTo(leafId);
  const summaries = resolveSummaries(path);
  let id: EntryId | null = null;
  for (const e of path) if (e.type === 'compaction' && !summaries.get(e.id)?.undone) id = e.id;
  return id;
}

export function watchPendingSummary(s: SessionHandle, onValue: (p: PendingSummary | undefined) => void): Unsubscribe {
  return s.ports.store.watchPendingSummary(s.sessionId, onValue, (err) => s.ports.notify.error(errorMessage(err)));
}

/**
 * Appends the draft named `id` as a compaction at `leafId` (default: this
 * tab's leaf), counted on that path. Resolves with the compaction's id, or
 * null when it was not applied (gone, replaced, not placeable here, or it
 * would not make the context smaller), having said why.
 */
export async function applyPendingSummary(s: SessionHandle, id: EntryId, opts: { leafId?: EntryId | null; auto?: boolean } = {}): Promise<EntryId | null> {
  const { ports } = s;
  if (!opts.auto && s.runs.get(s.sessionId)) {
    ports.notify.info('Wait until the reply or summary in progress has finished, then apply the summary.');
    return null;
  }
  try {
    const leafId = opts.leafId === undefined ? s.live.getSnapshot().leafId : opts.leafId;
    const pending = await ports.store.getPendingSummary(s.sessionId);
    if (pending?.entry.id !== id) {
      ports.notify.info('That summary was already applied or discarded (in another tab?).');
      return null;
    }
    const target = syncTarget(s, leafId);
    const placed = placePending(target.path, pending);
    if (!placed.ok) {
      ports.notify.warning(`The summary cannot be applied here. ${PENDING_PROBLEM_TEXT[placed.problem]}`);
      return null;
    }
    const figures = await s.sync.pinned(target.path, target.opts, async () => ({
      before: s.sync.figure?.tokens ?? pending.entry.tokensBefore,
      after: await ports.tokens.contextAfterCompaction(s.sessionId, pending.entry.summary, placed.firstKeptEntryId),
    }));
    if (figures.after >= figures.before) {
      ports.notify.warning(`Not applied: it would not make the context smaller now (${formatCount(figures.before)} → ${formatCount(figures.after)} tokens). Discard it, or compact by hand.`);
      return null;
    }
    // Only one tab gets the draft; the one that does appends it.
    const taken = await ports.store.takePendingSummary(s.sessionId, id);
    if (!taken) {
      ports.notify.info('That summary was already applied or discarded (in another tab?).');
      return null;
    }
    const entry = appliedEntry(taken, placed.firstKeptEntryId, { tokensBefore: Math.round(figures.before), tokensAfter: Math.round(figures.after) });
    let created;
    try {
      [created] = await ports.store.appendEntries(s.sessionId, leafId, [entry]);
    } catch (err) {
      // Not applied after all: the draft goes back for another try.
      await ports.store.offerPendingSummary(taken);
      throw err;
    }
    s.live.applyLocal([created!], created!.id);
    if (opts.auto) ports.notify.warning(APPLIED_ON_ITS_OWN);
    else ports.notify.success(`Compacted: ${formatCount(entry.tokensBefore)} → ${formatCount(entry.tokensAfter!)} tokens`);
    return created!.id;
  } catch (err) {
    ports.notify.error(`The summary was not applied: ${errorMessage(err)}`);
    return null;
  }
}

/** Saves the user's text as the draft's summary; it stays a draft until applied. */
export async function editPendingSummary(s: SessionHandle, id: EntryId, summary: string): Promise<boolean> {
  const { ports } = s;
  try {
    const pending = await ports.store.getPendingSummary(s.sessionId);
    if (pending?.entry.id !== id) {
      ports.notify.info('That summary was already applied or discarded (in another tab?).');
      return false;
    }
    await syncTokens(s);
    const summaryTokens = await ports.tokens.summaryTokens(s.sessionId, summary);
    const entry = { ...pending.entry, summary, details: { ...pending.entry.details, summaryTokens } };
    const saved = await ports.store.updatePendingSummary(s.sessionId, id, { entry, edited: true });
    if (!saved) ports.notify.info('That summary was already applied or discarded (in another tab?).');
    return saved;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return false;
  }
}

export async function discardPendingSummary(s: SessionHandle, id: EntryId): Promise<boolean> {
  try {
    const taken = await s.ports.store.takePendingSummary(s.sessionId, id);
    if (taken) s.ports.notify.info('Summary discarded. If the context is still full after the next reply, a new one is prepared.');
    return taken !== undefined;
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
    return false;
  }
}

/** Before a send that no longer fits: applies the draft that belongs to this path, if there is one. */
export async function applyDueDraft(s: SessionHandle, leafId: EntryId | null): Promise<EntryId | null> {
  const pending = await s.ports.store.getPendingSummary(s.sessionId);
  if (!pending || !placePending(s.live.getSnapshot().tree.pathTo(leafId), pending).ok) return null;
  return applyPendingSummary(s, pending.entry.id, { leafId, auto: true });
}

/** After a compaction was appended by other means: a draft written against the state before it can never apply. */
export async function dropSupersededDraft(s: SessionHandle): Promise<void> {
  const pending = await s.ports.store.getPendingSummary(s.sessionId);
  if (!pending) return;
  const placed = placePending(s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId), pending);
  if (!placed.ok && placed.problem === 'superseded' && (await s.ports.store.takePendingSummary(s.sessionId, pending.entry.id)))
    s.ports.notify.info('The summary that was waiting for review was dropped: this compaction replaces it.');
}
