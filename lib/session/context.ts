import { resolveSummaries, type EffectiveSummary } from './revisions';
import { SessionTree } from './tree';
import type { ChatMessage, CompactionEntry, EntryId, SessionEntry } from './types';

export type ContextItem =
  | { kind: 'message'; entryId: EntryId; message: ChatMessage }
  | { kind: 'compactionSummary'; entryId: EntryId; summary: string; tokensBefore: number }
  | { kind: 'branchSummary'; entryId: EntryId; summary: string; fromId: EntryId };

export interface SessionContext {
  /** What the model sees, in order. */
  items: ContextItem[];
  /** Root → leaf. */
  path: SessionEntry[];
  /** The compaction in effect at the leaf, if any. */
  compaction: CompactionEntry | null;
  /** Index in `path` from which entries reach the model verbatim (0 without a compaction). */
  keptFromIndex: number;
  /** Effective state of every summary on the path (after regenerate / edit / undo). */
  summaries: Map<EntryId, EffectiveSummary>;
  /** Model of the latest model_change on the path. */
  model: string | undefined;
}

/** An assistant turn that failed, was stopped or was cut off before producing anything carries nothing for the model. */
function isEmptyFailedReply(m: ChatMessage): boolean {
  return m.role === 'assistant' && m.content.length === 0 && (m.stopReason === 'error' || m.stopReason === 'aborted' || m.stopReason === 'interrupted');
}

/**
 * The messages the model sees at `leafId`: walk leaf → root, honour the latest
 * compaction still in effect (its summary, then the entries it kept, then
 * everything after it) and the branch summaries along the way.
 *
 * Earlier compactions inside the kept range are skipped: the latest summary
 * already merged them (iterative update), so sending both would repeat them.
 */
export function buildSessionContext(
  source: SessionTree | Iterable<SessionEntry>,
  leafId: EntryId | null | undefined,
): SessionContext {
  const tree = source instanceof SessionTree ? source : new SessionTree(source);
  const path = tree.pathTo(leafId);
  const summaries = resolveSummaries(path);

  let model: string | undefined;
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'model_change') model = e.model;
    if (e.type === 'compaction' && !summaries.get(e.id)?.undone) compactionIndex = i;
  }

  const items: ContextItem[] = [];
  let keptFromIndex = 0;
  let compaction: CompactionEntry | null = null;
  if (compactionIndex >= 0) {
    compaction = path[compactionIndex] as CompactionEntry;
    const effective = summaries.get(compaction.id)!;
    items.push({ kind: 'compactionSummary', entryId: compaction.id, summary: effective.summary, tokensBefore: compaction.tokensBefore });
    const kept = path.findIndex((e) => e.id === compaction!.firstKeptEntryId);
    // A firstKeptEntryId off the path (a damaged import) keeps only what follows the compaction.
    keptFromIndex = kept >= 0 && kept <= compactionIndex ? kept : compactionIndex + 1;
  }

  for (let i = keptFromIndex; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'message') {
      if (!isEmptyFailedReply(e.message)) items.push({ kind: 'message', entryId: e.id, message: e.message });
    } else if (e.type === 'branch_summary') {
      const eff = summaries.get(e.id);
      if (eff && !eff.undone) items.push({ kind: 'branchSummary', entryId: e.id, summary: eff.summary, fromId: e.fromId });
    }
  }

  return { items, path, compaction, keptFromIndex, summaries, model };
}
