/**
 * Token figures along a root→leaf path, shared by the context meter and the
 * cut-point search. `prefix` makes any range sum O(1): the tokens of
 * path[i..j) are prefix[j] - prefix[i].
 */
export interface PathTokens {
  /** counts[i] is the (calibrated) token count of path[i]. */
  readonly counts: ArrayLike<number>;
  /** prefix[0] = 0 and prefix[i + 1] = prefix[i] + counts[i]; length is counts.length + 1. */
  readonly prefix: ArrayLike<number>;
}

export function pathTokensFromCounts(counts: ArrayLike<number>): PathTokens {
  const prefix = new Float64Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++) prefix[i + 1] = prefix[i]! + counts[i]!;
  return { counts, prefix };
}
