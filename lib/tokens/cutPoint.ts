import type { SessionEntry } from '@/lib/session/types';
import type { PathTokens } from './pathTokens';

/**
 * The cut-point lookup on prefix sums: where along a path the last
 * `keepRecentTokens` begin, moved to the nearest entry the kept part may start
 * with. O(log n) per call, so it can run after every append.
 *
 * The compaction code owns the policy (split turns, what gets summarised);
 * this is only the search it needs, kept pure so both share it.
 */

/**
 * Entries the kept part may start with: user and assistant messages and
 * branch summaries. Never a tool result: it would arrive without the call
 * that produced it. Bookkeeping entries (labels, model changes, compactions)
 * are not starts either; the compaction code may widen the cut backwards over
 * them.
 */
export function isValidCutEntry(e: SessionEntry): boolean {
  if (e.type === 'branch_summary') return true;
  return e.type === 'message' && e.message.role !== 'toolResult';
}

/** Increasing path indices of valid cut entries, for paths built from scratch. */
export function validCutPositions(path: readonly SessionEntry[]): Int32Array {
  const out = new Int32Array(path.length);
  let n = 0;
  for (let i = 0; i < path.length; i++) if (isValidCutEntry(path[i]!)) out[n++] = i;
  return out.subarray(0, n);
}

export interface CutLookup {
  /** Index of the first kept entry, or -1 when nothing needs cutting or no valid cut exists. */
  index: number;
  /** The largest index whose suffix [i, end) holds at least keepRecentTokens. -1 when the whole range holds less. */
  thresholdIndex: number;
  /** Tokens of [index, end) (0 when index is -1). */
  keptTokens: number;
}

/** First position in sorted `arr[0..len)` whose value is >= x (len if none). */
function lowerBound(arr: ArrayLike<number>, len: number, x: number): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Finds the cut in path[start..end).
 *
 * 1. Binary search on the prefix sums for the largest i with
 *    tokens(path[i..end)) >= keepRecentTokens (suffix sums only shrink as i
 *    grows). None: everything fits, nothing to cut.
 * 2. `atOrAfter` (default, pi's rule): the first valid cut at or after i —
 *    the kept part may be a little under the budget but never over it by more
 *    than one entry. `atOrBefore`: the last valid cut at or before i — keeps at
 *    least the budget.
 *
 * A cut at `start` itself would summarise nothing, so it is not a result.
 * `validCuts` holds increasing path indices (its first `validCount` values are
 * used), as PathTokenIndex maintains them or validCutPositions builds them.
 */
export function findCutIndex(
  t: PathTokens,
  validCuts: ArrayLike<number>,
  start: number,
  end: number,
  keepRecentTokens: number,
  opts: { mode?: 'atOrAfter' | 'atOrBefore'; validCount?: number } = {},
): CutLookup {
  const none: CutLookup = { index: -1, thresholdIndex: -1, keptTokens: 0 };
  const p = t.prefix;
  if (end <= start) return none;
  const total = p[end]! - p[start]!;
  if (total < keepRecentTokens) return none;
  // Invariant: suffix(lo) >= keep; find the last such index in [start, end).
  let lo = start;
  let hi = end - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (p[end]! - p[mid]! >= keepRecentTokens) lo = mid;
    else hi = mid - 1;
  }
  const threshold = lo;
  const count = opts.validCount ?? validCuts.length;
  let index = -1;
  if ((opts.mode ?? 'atOrAfter') === 'atOrAfter') {
    const k = lowerBound(validCuts, count, threshold);
    if (k < count && validCuts[k]! < end) index = validCuts[k]!;
  } else {
    const k = lowerBound(validCuts, count, threshold + 1) - 1;
    if (k >= 0) index = validCuts[k]!;
  }
  if (index <= start) return { ...none, thresholdIndex: threshold };
  return { index, thresholdIndex: threshold, keptTokens: p[end]! - p[index]! };
}
