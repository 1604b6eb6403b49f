import type {
  BranchSummaryEntry,
  CompactionEntry,
  EntryId,
  SessionEntry,
  SummaryDetails,
  SummaryRevisionEntry,
} from './types';

export type SummaryEntry = CompactionEntry | BranchSummaryEntry;

export interface SummaryVersion {
  /** The original entry's id for version 1, the revision entry's id after that. */
  entryId: EntryId;
  action: 'original' | 'regenerate' | 'edit';
  summary: string;
  timestamp: number;
  details: SummaryDetails;
}

/** What a summary entry amounts to at a given leaf, after the revisions on the path. */
export interface EffectiveSummary {
  entry: SummaryEntry;
  summary: string;
  details: SummaryDetails;
  undone: boolean;
  versions: SummaryVersion[];
  /** Undo / redo revisions in path order. */
  toggles: SummaryRevisionEntry[];
}

export function isSummaryEntry(e: SessionEntry): e is SummaryEntry {
  return e.type === 'compaction' || e.type === 'branch_summary';
}

/**
 * Applies the `summary_revision` entries found on a root→leaf path to the
 * summaries they target. Revisions off the path are ignored on purpose: the
 * tree records history, and an undo made on another branch is not this one's.
 */
export function resolveSummaries(path: readonly SessionEntry[]): Map<EntryId, EffectiveSummary> {
  const out = new Map<EntryId, EffectiveSummary>();
  for (const e of path) {
    if (isSummaryEntry(e)) {
      out.set(e.id, {
        entry: e,
        summary: e.summary,
        details: e.details,
        undone: false,
        versions: [{ entryId: e.id, action: 'original', summary: e.summary, timestamp: e.timestamp, details: e.details }],
        toggles: [],
      });
    } else if (e.type === 'summary_revision') {
      const target = out.get(e.targetId);
      if (!target) continue;
      if (e.action === 'undo' || e.action === 'redo') {
        target.undone = e.action === 'undo';
        target.toggles.push(e);
      } else if (e.summary !== undefined) {
        const details: SummaryDetails = { ...target.details, ...e.details };
        target.summary = e.summary;
        target.details = details;
        target.versions.push({ entryId: e.id, action: e.action, summary: e.summary, timestamp: e.timestamp, details });
      }
    }
  }
  return out;
}

/** Latest label per target across the whole session (labels are bookmarks, not path state). */
export function resolveLabels(entries: Iterable<SessionEntry>): Map<EntryId, string> {
  const labels = new Map<EntryId, string>();
  for (const e of entries) {
    if (e.type !== 'label') continue;
    if (e.label === null || e.label.trim() === '') labels.delete(e.targetId);
    else labels.set(e.targetId, e.label);
  }
  return labels;
}
