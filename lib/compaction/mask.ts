import { resolveMasks } from '@/lib/session/masks';
import { carriedPositions, resolvePins } from '@/lib/session/pins';
import { resolveSummaries } from '@/lib/session/revisions';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import type { PathTokens } from '@/lib/tokens/pathTokens';
import { countsInKeptContext } from './cutPoint';

/**
 * Observation masking, the cheap first stage before a summary (aura's prune,
 * JetBrains' observation masking): tool outputs older than a protected recent
 * window are shown to the model as a one-line stub. Nothing is summarised and
 * nothing is lost: the outputs stay in their entries, the mask is an entry of
 * its own that can be undone, and the calls keep their (stub) answers.
 */

/** A masked output must save at least this much: a stub for a three-line `ls` is churn, not room. */
export const MIN_MASK_SAVING = 64;

export interface MaskPlan {
  /** Tool results to mask, oldest first. */
  maskedIds: EntryId[];
  /** Context now and after masking (same figure the meter shows, minus the saving). */
  tokensBefore: number;
  tokensAfter: number;
  /** Tokens the stubs save. */
  saved: number;
  protectTokens: number;
}

export interface MaskOptions {
  /** The most recent context, in tokens, whose tool outputs are left alone. */
  protectTokens: number;
  /** Tokens a result occupies once masked (its stub as a message), counted as the path's counts are. */
  stubTokens: (entry: SessionEntry) => number;
  /** The context figure now; default: the path's counts from the kept start. */
  contextTokens?: number;
  /**
   * The counted figure now, when the figure above rests on a reported usage:
   * a mask changes the context under that report, so the figure after it is
   * the count minus the saving. Default: contextTokens.
   */
  countedTokens?: number;
}

/**
 * Which tool results a mask made now would cover: those in the context (the
 * kept part of the compaction in effect, and the results carried with pinned
 * messages are not touched) that lie entirely before the protected window,
 * are not masked yet, carry no image (a stub has none, and media are counted
 * apart), and save at least MIN_MASK_SAVING tokens. Every old output is
 * masked at once rather than just enough to pass the limit: each mask changes
 * the start of the context, which costs the provider's prompt cache, so one
 * mask that makes real room beats one per turn. Null when nothing qualifies.
 */
export function planToolMask(path: readonly SessionEntry[], tokens: PathTokens, opts: MaskOptions): MaskPlan | null {
  if (tokens.counts.length !== path.length) throw new Error(`PathTokens has ${tokens.counts.length} counts for a path of ${path.length} entries`);
  const summaries = resolveSummaries(path);
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'compaction' && !summaries.get(e.id)?.undone) compactionIndex = i;
  }
  let keptFrom = 0;
  let context = 0;
  if (compactionIndex >= 0) {
    const c = path[compactionIndex]!;
    const kept = c.type === 'compaction' ? path.findIndex((e) => e.id === c.firstKeptEntryId) : -1;
    keptFrom = kept >= 0 && kept <= compactionIndex ? kept : compactionIndex + 1;
    context += tokens.counts[compactionIndex]!;
    for (const i of carriedPositions(path, keptFrom)) context += tokens.counts[i]!;
  }
  for (let i = keptFrom; i < path.length; i++) if (countsInKeptContext(path[i]!, summaries)) context += tokens.counts[i]!;

  const masked = resolveMasks(path);
  const pinned = resolvePins(path);
  // Results answering a pinned message's calls travel with it verbatim.
  const pinnedCalls = new Set<string>();
  for (const e of path) {
    if (e.type === 'message' && e.message.role === 'assistant' && pinned.has(e.id)) for (const p of e.message.content) if (p.type === 'toolCall') pinnedCalls.add(p.id);
  }

  // The protected window: walking back from the leaf, everything until protectTokens of context is reached.
  let recent = 0;
  let protectFrom = path.length;
  while (protectFrom > keptFrom && recent < opts.protectTokens) {
    protectFrom--;
    if (countsInKeptContext(path[protectFrom]!, summaries)) recent += tokens.counts[protectFrom]!;
  }

  const maskedIds: EntryId[] = [];
  let saved = 0;
  for (let i = keptFrom; i < protectFrom; i++) {
    const e = path[i]!;
    if (e.type !== 'message' || e.message.role !== 'toolResult') continue;
    const m = e.message;
    if (masked.has(e.id) || pinnedCalls.has(m.toolCallId) || m.content.some((p) => p.type !== 'text')) continue;
    const saving = tokens.counts[i]! - opts.stubTokens(e);
    if (saving < MIN_MASK_SAVING) continue;
    maskedIds.push(e.id);
    saved += saving;
  }
  if (maskedIds.length === 0) return null;
  const tokensBefore = opts.contextTokens ?? context;
  const counted = opts.countedTokens ?? tokensBefore;
  return { maskedIds, tokensBefore, tokensAfter: Math.max(0, counted - saved), saved, protectTokens: opts.protectTokens };
}
