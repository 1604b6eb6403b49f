import { countsInKeptContext, findCutPoint } from '@/lib/compaction/cutPoint';
import { cutRule, type PrepareOptions } from '@/lib/compaction/prepare';
import type { NoCompactionReason } from '@/lib/compaction/types';
import type { CompactionSettings, EntryId } from '@/lib/session/types';
import type { PathTokenIndex } from '@/lib/tokens/pathIndex';

export interface CutResult {
  /** Path index of the first kept entry; the path's length when nothing is kept (keep-recent 0); -1 when there is no cut (see reason). */
  index: number;
  /** Null when there is no cut or nothing is kept. */
  entryId: EntryId | null;
  /** The user message that opened the turn the cut splits (that start gets a summary of its own); null for a clean cut. */
  turnStartIndex: number | null;
  /** Tokens that stay verbatim from the cut on; 0 without a cut. */
  keptTokens: number;
  /** First entry a compaction may summarise: where the kept part of the compaction in effect begins. */
  startIndex: number;
  /** Why there is no cut; null when there is one. */
  reason: NoCompactionReason | null;
}

export type CutOptions = Pick<PrepareOptions, 'keepRecentTokens' | 'window' | 'force'>;

/**
 * Where a compaction with these settings would cut the index's path now: the
 * one cut rule, lib/compaction's findCutPoint, with the inputs
 * prepareCompaction gives it (keep-recent clamped to the window, the small
 * turn-prefix allowance, the room the window leaves). The region start and
 * which summaries are undone come from the index instead of a pass over the
 * path, so the lookup costs a binary search plus a scan of the kept tail and
 * can run after every append.
 *
 * This is the rule alone: prepareCompaction also declines a path without
 * messages and a compacted tail followed only by bookkeeping entries
 * (previewCompaction says so), where this may still name a cut.
 */
export function compactionCut(index: PathTokenIndex, settings: CompactionSettings, opts: CutOptions = {}): CutResult {
  const path = index.entries();
  const startIndex = index.compactionState().keptFromIndex;
  const summaries = index.summaryStates();
  const res = findCutPoint({
    path,
    tokens: index.pathTokens(),
    boundaryStart: startIndex,
    // The meter's figure decides "over the limit", as it does for auto-compaction.
    ...cutRule(settings, { ...opts, requestTokens: index.requestOverheadTokens() }, index.figure(opts.window).tokens),
    inContext: (i) => countsInKeptContext(path[i]!, summaries),
    force: opts.force ?? false,
  });
  if ('reason' in res) return { index: -1, entryId: null, turnStartIndex: null, keptTokens: 0, startIndex, reason: res.reason };
  return { index: res.firstKeptIndex, entryId: path[res.firstKeptIndex]?.id ?? null, turnStartIndex: res.turnStartIndex, keptTokens: res.keptTokens, startIndex, reason: null };
}
