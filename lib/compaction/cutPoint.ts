import type { EffectiveSummary } from '@/lib/session/revisions';
import type { ChatMessage, EntryId, SessionEntry } from '@/lib/session/types';
import type { PathTokens } from '@/lib/tokens/pathTokens';
import type { NoCompactionReason } from './types';

/**
 * Where to cut a path for compaction.
 *
 * Rules (pi, Opal, phi-core agree on these):
 * - A cut lands on a user or an assistant message, never on a tool result:
 *   a kept tool result without its call is an orphan every provider rejects.
 *   Cutting at an assistant message keeps the tool results that follow it.
 * - Compaction, branch_summary, custom, label, model_change and revision
 *   entries are never cut points: `firstKeptEntryId` always names a message.
 *   (pi also allows cutting at a branch summary; we summarise it instead, so
 *   the invariant "the kept part starts with a message" holds everywhere.)
 * - At least `keepRecentTokens` of context stay verbatim when the path has that
 *   much. We pick the nearest valid cut AT OR BEFORE the point where the
 *   budget is reached. pi picks the one at or after it, which keeps less than
 *   promised and, when the newest entries are tool results, finds nothing
 *   (pi issues 7201 / 6879). Walking back always reaches the assistant message
 *   that owns a run of tool results, so that trap cannot happen here.
 * - Keep-recent 0 keeps nothing when the conversation is at rest (its last
 *   message the model sees is a reply that asked for no tool): the whole
 *   region goes into the summary, as Claude Code's and Codex's compactions do,
 *   and the compaction names itself as its first kept entry. The cut is then
 *   `path.length`, past the last entry. When the path ends in something that
 *   is still waiting (a prompt not answered yet, a tool call or results the
 *   model has not answered), that part stays: the next request answers it, a
 *   result cannot be sent without its call, and a summary would ask the model
 *   to answer a paraphrase. The usual rule then finds the smallest tail that
 *   holds it (`pendingAtEnd` says which, for the Compact dialog). Keeping
 *   something unasked "to be safe" was the surprise this rule removes.
 */

/** What the end of the region is still waiting for: a reply to a prompt, the model's next step after tool calls, or nothing. */
export type PendingAtEnd = 'unanswered-prompt' | 'tool-turn' | null;

/** What the last message of path[from..] that reaches the model leaves pending (see PendingAtEnd). */
export function pendingAtEnd(path: readonly SessionEntry[], from: number, inContext: (i: number) => boolean): PendingAtEnd {
  for (let i = path.length - 1; i >= from; i--) {
    const e = path[i]!;
    if (e.type !== 'message' || !inContext(i)) continue;
    const m = e.message;
    if (m.role === 'user') return 'unanswered-prompt';
    if (m.role === 'toolResult') return 'tool-turn';
    return m.content.some((p) => p.type === 'toolCall') ? 'tool-turn' : null;
  }
  return null;
}

/** A user or assistant message: the only entries a kept range may start at. */
export function isValidCutPoint(e: SessionEntry | undefined): boolean {
  return e?.type === 'message' && (e.message.role === 'user' || e.message.role === 'assistant');
}

/** An assistant reply that failed before producing anything: buildSessionContext drops it. */
export function isEmptyFailedReply(m: ChatMessage): boolean {
  return m.role === 'assistant' && m.content.length === 0 && (m.stopReason === 'error' || m.stopReason === 'aborted' || m.stopReason === 'interrupted');
}

/**
 * Whether path entry `e` reaches the model when it lies in a kept range, as in
 * buildSessionContext: messages (not empty failed replies) and branch summaries
 * that are not undone. Compactions inside a kept range are superseded.
 * Only the undone state is read, so the token worker's index can answer from
 * the states it keeps instead of resolving the path's revisions again.
 */
export function countsInKeptContext(e: SessionEntry, summaries: ReadonlyMap<EntryId, Pick<EffectiveSummary, 'undone'>>): boolean {
  if (e.type === 'message') return !isEmptyFailedReply(e.message);
  if (e.type === 'branch_summary') return !summaries.get(e.id)?.undone;
  return false;
}

export interface CutSearch {
  path: readonly SessionEntry[];
  tokens: PathTokens;
  /** First index that may be summarised. */
  boundaryStart: number;
  keepRecentTokens: number;
  /** countsInKeptContext bound to the path's summaries. */
  inContext: (i: number) => boolean;
  /**
   * A turn prefix at most this large is not worth a summary of its own: the
   * cut moves back to the turn's user message instead (see splitTurn).
   */
  smallPrefixTokens: number;
  /**
   * Largest kept tail the chat window allows (window − reserve − summary
   * budget), when the window is known. Only used when the cut at or before
   * the keep-recent line overshoots it.
   */
  maxKeptTokens?: number;
  /**
   * The context is over the compaction limit: a cut must leave at most
   * `maxKeptTokens`, keeping less than keep-recent if it has to (down to the
   * newest turn) and summarising a large entry at the region start itself.
   * When no cut can, the reason says so ('recent-too-large') instead of
   * "nothing to do".
   */
  mustFit?: boolean;
  /**
   * With mustFit, when no cut leaves at most maxKeptTokens: the most the kept
   * tail may hold with the smallest useful summary under the limit (the
   * summary then gets a smaller budget).
   */
  lastResortKeptTokens?: number;
  force: boolean;
}

export interface CutPoint {
  /** Where the kept part starts; `path.length` when nothing is kept (keep-recent 0 on a conversation at rest). */
  firstKeptIndex: number;
  /** User message that opened the turn when the cut falls inside it; null for a clean cut. */
  turnStartIndex: number | null;
  keptTokens: number;
  /** The cut came from the force fallback (keep only the last turn). */
  forced: boolean;
}

/** Largest i in [lo, hi] with prefix[i] <= target (prefix is non-decreasing); lo - 1 when none. */
function lastPrefixAtMost(prefix: ArrayLike<number>, lo: number, hi: number, target: number): number {
  let ans = lo - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (prefix[mid]! <= target) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

function hasMessageIn(path: readonly SessionEntry[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (path[i]!.type === 'message' || path[i]!.type === 'branch_summary') return true;
  return false;
}

/** The user message that opened the turn containing `cut`, searched back to `from`; null if none in range. */
export function findTurnStart(path: readonly SessionEntry[], cut: number, from: number): number | null {
  for (let i = cut - 1; i >= from; i--) {
    const e = path[i]!;
    if (e.type === 'message' && e.message.role === 'user') return i;
  }
  return null;
}

/**
 * Tool-call bookkeeping of a kept tail grown backwards one entry at a time: a
 * cut is only valid when every tool result in the tail has its call in the
 * tail. Checking the cut entry's role is not enough: Claude Code writes
 * parallel calls as consecutive assistant entries (call A, call B, result A,
 * result B), and cutting at "call B" would orphan result A.
 */
class TailCalls {
  private readonly calls = new Set<string>();
  private readonly waiting = new Set<string>();
  constructor(private readonly ignore: ReadonlySet<string>) {}

  /** Adds path[i]; entries must be added from the end backwards. */
  add(e: SessionEntry): void {
    if (e.type !== 'message') return;
    const m = e.message;
    if (m.role === 'toolResult') {
      if (!this.calls.has(m.toolCallId) && !this.ignore.has(m.toolCallId)) this.waiting.add(m.toolCallId);
    } else if (m.role === 'assistant') {
      for (const p of m.content) {
        if (p.type !== 'toolCall') continue;
        this.calls.add(p.id);
        this.waiting.delete(p.id);
      }
    }
  }

  get complete(): boolean {
    return this.waiting.size === 0;
  }

  /** Results still waiting for their call. */
  unanswered(): Set<string> {
    return new Set(this.waiting);
  }
}

/**
 * Finds the cut. O(log n) to locate where keep-recent is reached through the
 * prefix sums, then a scan over the kept tail only (to correct for entries
 * that do not reach the model, to keep tool calls with their results, and to
 * step back to a valid cut point).
 */
export function findCutPoint(s: CutSearch): CutPoint | { reason: NoCompactionReason } {
  const end = s.path.length;
  if (s.keepRecentTokens <= 0 && hasMessageIn(s.path, s.boundaryStart, end) && pendingAtEnd(s.path, s.boundaryStart, s.inContext) === null) {
    return { firstKeptIndex: end, turnStartIndex: null, keptTokens: 0, forced: false };
  }
  let res = searchCut(s, new Set());
  // Results whose call lies before the region (source-data orphans, or calls already summarised)
  // can never be matched; ignore them and search again rather than refuse to cut.
  let ignore: ReadonlySet<string> = new Set();
  if (!res.found && res.unanswered.size > 0) {
    ignore = res.unanswered;
    res = searchCut(s, ignore);
  }
  const unanswered = new Set([...ignore, ...res.unanswered]);
  const { path, boundaryStart, inContext } = s;
  const keep = Math.max(0, s.keepRecentTokens);
  const maxKept = s.maxKeptTokens ?? Infinity;
  let c = res.c;
  let kept = res.kept;
  if (!res.found) {
    // Over the limit, "keep-recent cannot be kept" is no reason to do nothing: the walk back hit
    // the region start (a large entry there), so keep the most that fits and summarise the rest.
    const fit = s.mustFit && maxKept < Infinity ? (fitFromRegionStart(s, maxKept, unanswered) ?? lastResort(s, (m) => fitFromRegionStart(s, m, unanswered))) : null;
    if (fit) ({ c, kept } = fit);
    else if (s.force) return forcedCut(s, unanswered);
    else if (s.mustFit) return { reason: 'recent-too-large' };
    else return { reason: res.c >= boundaryStart && res.kept >= keep ? 'nothing-to-summarize' : 'below-keep-recent' };
  } else if (kept > maxKept) {
    // Stepping back to a valid cut overshot what the window allows (a huge entry sits at the
    // budget line): fitting the window wins over keep-recent, so take the latest valid cut after it.
    const from = { c, kept };
    // Last resort over the limit: this cut itself when it leaves room for a smaller summary, else a later one.
    const fit = fitForward(s, from.c, maxKept, unanswered) ?? (s.mustFit ? lastResort(s, (m) => (from.kept <= m ? from : fitForward(s, from.c, m, unanswered))) : null);
    if (fit) ({ c, kept } = fit);
    else if (s.mustFit && !s.force) return { reason: 'recent-too-large' };
  }
  const cutEntry = path[c] as { message: ChatMessage };
  const turnStart = cutEntry.message.role === 'user' ? null : findTurnStart(path, c, boundaryStart);
  if (turnStart !== null && !s.force) {
    // A short turn prefix is kept whole rather than summarised separately (a user message is always a valid cut).
    let prefixTokens = 0;
    for (let i = turnStart; i < c; i++) if (inContext(i)) prefixTokens += s.tokens.counts[i]!;
    if (
      prefixTokens <= s.smallPrefixTokens &&
      kept + prefixTokens <= maxKept &&
      turnStart > boundaryStart &&
      hasMessageIn(path, boundaryStart, turnStart) &&
      userCutKeepsPairs(path, turnStart, unanswered)
    ) {
      return { firstKeptIndex: turnStart, turnStartIndex: null, keptTokens: kept + prefixTokens, forced: false };
    }
  }
  return { firstKeptIndex: c, turnStartIndex: turnStart, keptTokens: kept, forced: false };
}

/**
 * The first valid cut after `from` whose kept tail is at most `maxKept`, with
 * every tool result still next to its call. Scans the kept tail only.
 */
function fitForward(s: CutSearch, from: number, maxKept: number, ignore: ReadonlySet<string>): { c: number; kept: number } | null {
  const { path, inContext, tokens } = s;
  const end = path.length;
  // A cut at j is invalid when a result at r >= j answers a call made before j.
  const callAt = new Map<string, number>();
  const blocked = new Uint8Array(end - from + 1);
  for (let i = from; i < end; i++) {
    const e = path[i]!;
    if (e.type !== 'message') continue;
    if (e.message.role === 'assistant') {
      for (const p of e.message.content) if (p.type === 'toolCall') callAt.set(p.id, i);
    } else if (e.message.role === 'toolResult' && !ignore.has(e.message.toolCallId)) {
      const ci = callAt.get(e.message.toolCallId);
      if (ci !== undefined) for (let j = ci + 1; j <= i; j++) blocked[j - from] = 1;
    }
  }
  let kept = 0;
  for (let i = from; i < end; i++) if (inContext(i)) kept += tokens.counts[i]!;
  for (let j = from + 1; j < end; j++) {
    if (inContext(j - 1)) kept -= tokens.counts[j - 1]!;
    if (kept <= maxKept && isValidCutPoint(path[j]) && !blocked[j - from]) return { c: j, kept };
  }
  return null;
}

/** With mustFit, the same search again with the last-resort room (a smaller summary), when that room is larger. */
function lastResort(s: CutSearch, fit: (maxKept: number) => { c: number; kept: number } | null): { c: number; kept: number } | null {
  const m = s.lastResortKeptTokens;
  return m !== undefined && m > (s.maxKeptTokens ?? Infinity) ? fit(m) : null;
}

/** The largest kept tail of at most `maxKept` whose cut leaves a message before it to summarise. */
function fitFromRegionStart(s: CutSearch, maxKept: number, ignore: ReadonlySet<string>): { c: number; kept: number } | null {
  let from = s.boundaryStart;
  while (from < s.path.length && !hasMessageIn(s.path, from, from + 1)) from++;
  return from < s.path.length ? fitForward(s, from, maxKept, ignore) : null;
}

/** A cut at `at` keeps every tool result with its call (checked by scanning the tail). */
function userCutKeepsPairs(path: readonly SessionEntry[], at: number, ignore: ReadonlySet<string>): boolean {
  const tail = new TailCalls(ignore);
  for (let i = path.length - 1; i >= at; i--) tail.add(path[i]!);
  return tail.complete;
}

function searchCut(s: CutSearch, ignore: ReadonlySet<string>): { c: number; kept: number; found: boolean; unanswered: Set<string> } {
  const { path, tokens, boundaryStart, inContext } = s;
  const end = path.length;
  const counts = tokens.counts;
  const keep = Math.max(0, s.keepRecentTokens);
  const tail = new TailCalls(ignore);
  let c = lastPrefixAtMost(tokens.prefix, boundaryStart, end, tokens.prefix[end]! - keep);
  if (c < boundaryStart) {
    // The whole region holds less than keep-recent. Nothing is found, but a forced cut still has to know
    // which results can never be matched, or one such result at the end would block every cut.
    for (let i = end - 1; i >= boundaryStart; i--) tail.add(path[i]!);
    return { c, kept: 0, found: false, unanswered: tail.unanswered() };
  }
  let kept = 0;
  // Exact kept tokens from c: only what reaches the model counts.
  for (let i = end - 1; i >= c; i--) {
    tail.add(path[i]!);
    if (inContext(i)) kept += counts[i]!;
  }
  while (c > boundaryStart && (kept < keep || !isValidCutPoint(path[c]) || !tail.complete)) {
    c--;
    tail.add(path[c]!);
    if (inContext(c)) kept += counts[c]!;
  }
  const found = isValidCutPoint(path[c]) && tail.complete && kept >= keep && c > boundaryStart && hasMessageIn(path, boundaryStart, c);
  return { c, kept, found, unanswered: tail.unanswered() };
}

/**
 * Overflow recovery / manual compaction when the normal search found nothing:
 * keep only the last turn (from its user message). When the whole region is a
 * single turn, keep from its last assistant message instead, which splits the
 * turn. Opal's equivalent keeps the last two messages; keeping a whole turn is
 * kinder to the model (it still sees the request it is working on) and the
 * last-assistant fallback covers the case where that turn alone is too big.
 */
function forcedCut(s: CutSearch, ignore: ReadonlySet<string>): CutPoint | { reason: NoCompactionReason } {
  const { path, boundaryStart, inContext, tokens } = s;
  const end = path.length;
  let userCut = -1;
  let assistantCut = -1;
  const tail = new TailCalls(ignore);
  let firstContent = boundaryStart;
  while (firstContent < end && !hasMessageIn(path, firstContent, firstContent + 1)) firstContent++;
  for (let i = end - 1; i > firstContent; i--) {
    const e = path[i]!;
    tail.add(e);
    if (!isValidCutPoint(e) || !tail.complete) continue;
    if ((e as { message: ChatMessage }).message.role === 'user') {
      userCut = i;
      break;
    }
    if (assistantCut < 0) assistantCut = i;
  }
  const cut = userCut >= 0 ? userCut : assistantCut;
  if (cut < 0) return { reason: 'nothing-to-summarize' };
  let kept = 0;
  for (let i = cut; i < end; i++) if (inContext(i)) kept += tokens.counts[i]!;
  const isUser = (path[cut] as { message: ChatMessage }).message.role === 'user';
  return { firstKeptIndex: cut, turnStartIndex: isUser ? null : findTurnStart(path, cut, boundaryStart), keptTokens: kept, forced: true };
}
