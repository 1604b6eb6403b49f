import type { SessionEntry } from '@/lib/session/types';
import type { PathTokens } from '@/lib/tokens/pathTokens';

/**
 * How much of the recent conversation a manual compaction keeps word for
 * word, as the Compact dialog asks for it: a token budget (the settings'
 * unit) or a number of turns, which is what people think in on an ordinary
 * chat ("keep the last exchange").
 */
export type KeepRecent = { unit: 'tokens'; value: number } | { unit: 'turns'; value: number };

/**
 * Tokens of the last `turns` turns of the region from `regionStart`: from
 * the `turns`-th last user message to the leaf, counting only what reaches
 * the model. Fed to the cut search as keep-recent, it lands the cut exactly on
 * that user message (the search stops at the first valid cut that keeps at
 * least this much, and a user message always is one). More turns than the
 * region holds asks to keep all of it, so nothing is summarised.
 */
export function keepRecentTokensForTurns(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  regionStart: number,
  turns: number,
  inContext: (i: number) => boolean,
): number {
  const wanted = Math.max(1, Math.floor(turns));
  let seen = 0;
  let kept = 0;
  for (let i = path.length - 1; i >= regionStart; i--) {
    if (inContext(i)) kept += tokens.counts[i]!;
    const e = path[i]!;
    if (e.type === 'message' && e.message.role === 'user' && ++seen === wanted) return kept;
  }
  // Fewer turns than asked: everything in the region is kept.
  return kept;
}
