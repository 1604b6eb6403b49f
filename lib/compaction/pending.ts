import { resolveSummaries } from '@/lib/session/revisions';
import type { CompactionEntry, EntryId, SessionEntry } from '@/lib/session/types';

/**
 * A compaction summary prepared by automatic compaction and waiting for the
 * user (review before apply). It is not an entry: until it is applied, the
 * session's tree, its sync log and every other device know nothing of it.
 * One per session, kept in this browser (lib/db) so it survives a reload and
 * every tab sees the same one.
 */
export interface PendingSummary {
  sessionId: string;
  /** The compaction as it will be appended; its id is chosen now, so two tabs applying it cannot append it twice. */
  entry: Omit<CompactionEntry, 'parentId' | 'timestamp'>;
  /** Nothing was to stay verbatim where it was prepared (entry.firstKeptEntryId names the entry itself then). */
  keepsNothing: boolean;
  /** The leaf it was prepared at: the summary covers the path up to here. */
  preparedAt: EntryId;
  /** The compaction in effect there (null: none). Applied over another one, it would drop that one's summary. */
  basedOn: EntryId | null;
  createdAt: number;
  /** The user changed its text (Edit). */
  edited?: boolean;
}

export type PendingProblem = 'other-branch' | 'superseded';

export const PENDING_PROBLEM_TEXT: Record<PendingProblem, string> = {
  'other-branch': 'It was prepared on another branch of this conversation: go back there to apply it, or discard it.',
  superseded: 'Another compaction was applied (or undone) since it was prepared, so it no longer fits this conversation: discard it.',
};

/** What applying a pending summary at the end of `path` would do. */
export type PendingPlacement =
  | {
      ok: true;
      /** The first entry the model keeps verbatim: the prepared cut, or (when it kept nothing) the first message since. Null: still nothing. */
      firstKeptEntryId: EntryId | null;
      /** Messages written since it was prepared: they join the kept part. */
      newMessages: number;
      /** The entries it summarises, on this path. */
      summarized: SessionEntry[];
      /** Entries kept verbatim as prepared (the cut to where it was prepared). */
      kept: SessionEntry[];
    }
  | { ok: false; problem: PendingProblem };

function inEffect(path: readonly SessionEntry[]): EntryId | null {
  const summaries = resolveSummaries(path);
  let id: EntryId | null = null;
  for (const e of path) if (e.type === 'compaction' && !summaries.get(e.id)?.undone) id = e.id;
  return id;
}

/**
 * A pending summary applies to a later state of the conversation with its
 * original cut: what came after it was prepared simply joins the kept part.
 * It does not apply on a path that does not pass through where it was
 * prepared, or once another compaction is in effect there (or the one it
 * updated was undone): its summary was written against that one.
 */
export function placePending(path: readonly SessionEntry[], pending: Pick<PendingSummary, 'entry' | 'keepsNothing' | 'preparedAt' | 'basedOn'>): PendingPlacement {
  const at = path.findIndex((e) => e.id === pending.preparedAt);
  if (at < 0) return { ok: false, problem: 'other-branch' };
  if (inEffect(path) !== pending.basedOn) return { ok: false, problem: 'superseded' };
  const after = path.slice(at + 1);
  const newMessages = after.filter((e) => e.type === 'message').length;
  const from = pending.entry.details.firstSummarizedEntryId;
  let keptAt = at + 1;
  if (!pending.keepsNothing) {
    const k = path.findIndex((e) => e.id === pending.entry.firstKeptEntryId);
    keptAt = k >= 0 && k <= at ? k : at + 1;
  }
  const fromAt = from ? path.findIndex((e) => e.id === from) : -1;
  const summarized = path.slice(fromAt >= 0 && fromAt <= keptAt ? fromAt : 0, keptAt);
  const kept = path.slice(keptAt, at + 1);
  // Only a user or assistant message starts a kept range (docs/compaction.md).
  const firstNew = after.find((e) => e.type === 'message' && (e.message.role === 'user' || e.message.role === 'assistant'));
  const firstKeptEntryId = pending.keepsNothing ? (firstNew?.id ?? null) : pending.entry.firstKeptEntryId;
  return { ok: true, firstKeptEntryId, newMessages, summarized, kept };
}

/** The compaction to append for a pending summary placed on the current path, with the figures counted there. */
export function appliedEntry(pending: PendingSummary, firstKeptEntryId: EntryId | null, figures: { tokensBefore: number; tokensAfter: number }): Omit<CompactionEntry, 'parentId' | 'timestamp'> {
  return { ...pending.entry, firstKeptEntryId: firstKeptEntryId ?? pending.entry.id, tokensBefore: figures.tokensBefore, tokensAfter: figures.tokensAfter };
}
