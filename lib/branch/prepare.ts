import { isEmptyFailedReply } from '@/lib/compaction/cutPoint';
import { addDetails, addMessage, createFileOps, toFileLists } from '@/lib/compaction/fileOps';
import type { FileLists, SummaryItem } from '@/lib/compaction/types';
import { resolveSummaries } from '@/lib/session/revisions';
import type { CompactionEntry, EntryId, SessionEntry } from '@/lib/session/types';

export interface BranchSummaryPreparation {
  /** The old leaf: `fromId` of the branch_summary entry. */
  fromId: EntryId;
  /** What goes to the summarizer, oldest first: the newest part of the branch that fits the budget. */
  items: SummaryItem[];
  /** Tokens of `items` (caller's counts). */
  tokens: number;
  /** Items the branch had in total, and how many were left out (oldest first) to fit the budget. */
  totalItems: number;
  droppedItems: number;
  firstIncludedEntryId: EntryId | null;
  /** Cumulative over the whole branch (dropped items included): tool calls, nested branch summaries and compactions. */
  fileOps: FileLists;
  budget: number;
}

export interface PrepareBranchOptions {
  /** Token count of an entry as the model would see it (message text, or the summary of a summary entry). */
  tokensOf: (entry: SessionEntry) => number;
  /** Summarizer window − reserve; 0 or less means no limit. */
  budget: number;
}

/**
 * The branch as the model saw it at the old leaf: if a compaction on the
 * branch is in effect, its summary stands for what it replaced and only the
 * entries from its kept start follow (as buildSessionContext does). Sending
 * both the summary and the originals would repeat them.
 */
function branchContext(entries: readonly SessionEntry[]): { entry: SessionEntry; item: SummaryItem }[] {
  const summaries = resolveSummaries(entries);
  let compactionIndex = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type === 'compaction' && !summaries.get(e.id)?.undone) compactionIndex = i;
  }
  const out: { entry: SessionEntry; item: SummaryItem }[] = [];
  let from = 0;
  if (compactionIndex >= 0) {
    const c = entries[compactionIndex] as CompactionEntry;
    out.push({ entry: c, item: { kind: 'compactionSummary', entryId: c.id, summary: summaries.get(c.id)!.summary } });
    const kept = entries.findIndex((e) => e.id === c.firstKeptEntryId);
    from = kept >= 0 && kept <= compactionIndex ? kept : compactionIndex + 1;
  }
  for (let i = from; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.type === 'message' && !isEmptyFailedReply(e.message)) out.push({ entry: e, item: { kind: 'message', entryId: e.id, message: e.message } });
    else if (e.type === 'branch_summary') {
      const eff = summaries.get(e.id);
      if (eff && !eff.undone) out.push({ entry: e, item: { kind: 'branchSummary', entryId: e.id, summary: eff.summary } });
    }
  }
  return out;
}

/**
 * Fits the abandoned branch into the summarizer's budget, newest first: the
 * end of a branch says where it got to, which is what the new position needs.
 * A summary entry that would overflow is still taken while the total is below
 * 90 % of the budget (pi): it condenses much more than its size suggests.
 * File operations are collected from the whole branch, not just what fits.
 */
export function prepareBranchSummary(entries: readonly SessionEntry[], opts: PrepareBranchOptions): BranchSummaryPreparation | null {
  if (entries.length === 0) return null;
  const ctx = branchContext(entries);
  if (ctx.length === 0) return null;

  const summaries = resolveSummaries(entries);
  const ops = createFileOps();
  for (const e of entries) {
    if (e.type === 'message') addMessage(ops, e.message);
    else if (e.type === 'branch_summary' || e.type === 'compaction') {
      const eff = summaries.get(e.id);
      if (eff && !eff.undone) addDetails(ops, eff.details);
    }
  }

  const limit = opts.budget > 0 ? opts.budget : Infinity;
  const picked: SummaryItem[] = [];
  let total = 0;
  for (let i = ctx.length - 1; i >= 0; i--) {
    const { entry, item } = ctx[i]!;
    const t = Math.max(0, opts.tokensOf(entry));
    // The newest item always goes in, however large: the planner cuts it to the summarizer's window.
    if (total + t > limit && picked.length > 0) {
      if (item.kind !== 'message' && total < limit * 0.9) {
        picked.push(item);
        total += t;
      }
      break;
    }
    picked.push(item);
    total += t;
  }
  picked.reverse();

  return {
    fromId: entries[entries.length - 1]!.id,
    items: picked,
    tokens: total,
    totalItems: ctx.length,
    droppedItems: ctx.length - picked.length,
    firstIncludedEntryId: picked[0]?.entryId ?? null,
    fileOps: toFileLists(ops),
    budget: opts.budget,
  };
}
