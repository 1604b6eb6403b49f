import { carriedPositions } from '@/lib/session/pins';
import { resolveSummaries, type EffectiveSummary } from '@/lib/session/revisions';
import type { CompactionEntry, CompactionSettings, EntryId, SessionEntry } from '@/lib/session/types';
import type { PathTokens } from '@/lib/tokens/pathTokens';
import { countsInKeptContext, findCutPoint, isEmptyFailedReply, pendingAtEnd, type CutPoint, type PendingAtEnd } from './cutPoint';
import { addDetails, addItems, createFileOps, toFileLists } from './fileOps';
import { compactionLimit, summaryOutputBudget } from './policy';
import { MIN_SUMMARY_TOKENS, summaryBudget } from './summaryBudget';
import type { CompactionPreparation, NoCompactionReason, SummaryItem } from './types';
import { mergedUserMessages } from './userMessages';

export interface PrepareOptions {
  /** Overrides settings.keepRecentTokens (manual compaction, overflow recovery). */
  keepRecentTokens?: number;
  /** Overflow recovery / manual: compact even below keep-recent, keeping at least the last turn. */
  force?: boolean;
  /** The caller's better figure for the current context (e.g. last usage plus new entries). */
  contextTokens?: number;
  /**
   * The chat model's window. When given, keep-recent is clamped so that kept
   * tail + summary budget still fits under window − reserve (a 20k keep-recent
   * is meaningless for an 8k local model).
   */
  window?: number;
  /**
   * The chat model's tokenizer, for the fixed text around a summary (framing,
   * file lists) in the bound of the context after; rough counts without it.
   */
  countText?: (text: string) => number;
  /**
   * Tokens every request carries besides the path (system prompt, framing),
   * as the context figure counts them: the limit is compared with that
   * figure, so the room for the kept tail and the summary leaves them out,
   * and the context after includes them.
   */
  requestTokens?: number;
}

// Defined beside the limits it is sized against (policy.ts), which must not import this module.
export { summaryOutputBudget } from './policy';

/** A turn prefix this small is kept verbatim instead of being summarised on its own. */
export function smallPrefixTokens(keepRecentTokens: number): number {
  return Math.floor(keepRecentTokens * 0.1);
}

/**
 * What the kept tail may hold so that tail + summary still fit under the
 * compaction limit (window − reserve, or the fill ratio when lower);
 * undefined without a window.
 */
export function keptRoom(settings: CompactionSettings, window: number | undefined, requestTokens = 0): number | undefined {
  if (window === undefined || !(window > 0)) return undefined;
  // Tiny windows with a large reserve: never less than a tenth of the window.
  return Math.max(Math.floor(window / 10), Math.floor(compactionLimit(window, settings) - requestTokens - summaryOutputBudget(settings)));
}

/** The inputs of the cut rule that depend on settings and the window, shared by prepare and the worker's cut lookup. */
export function cutRule(settings: CompactionSettings, opts: PrepareOptions, contextTokens: number) {
  const keepRecentTokens = effectiveKeepRecent(settings, opts);
  const request = opts.requestTokens ?? 0;
  const maxKeptTokens = keptRoom(settings, opts.window, request);
  return {
    keepRecentTokens,
    smallPrefixTokens: smallPrefixTokens(keepRecentTokens),
    ...(maxKeptTokens !== undefined ? { maxKeptTokens, lastResortKeptTokens: Math.floor(compactionLimit(opts.window!, settings) - request - MIN_SUMMARY_TOKENS) } : {}),
    // Over the limit that triggers auto-compaction, doing nothing is not an option (see CutSearch.mustFit).
    mustFit: overLimit(settings, opts, contextTokens),
  };
}

function overLimit(settings: CompactionSettings, opts: PrepareOptions, contextTokens: number): boolean {
  return opts.window !== undefined && opts.window > 0 && contextTokens > compactionLimit(opts.window, settings);
}

export function effectiveKeepRecent(settings: CompactionSettings, opts: PrepareOptions): number {
  let keep = opts.keepRecentTokens ?? settings.keepRecentTokens;
  const room = keptRoom(settings, opts.window, opts.requestTokens);
  if (room !== undefined) keep = Math.min(keep, room);
  return Math.max(0, Math.floor(keep));
}

interface PathState {
  summaries: Map<EntryId, EffectiveSummary>;
  /** Index of the compaction in effect at the leaf (latest not undone), -1 without one. */
  compactionIndex: number;
  /** Where that compaction's kept range starts: the start of the region a new compaction may summarise. */
  boundaryStart: number;
}

function pathState(path: readonly SessionEntry[]): PathState {
  const summaries = resolveSummaries(path);
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'compaction' && !summaries.get(e.id)?.undone) compactionIndex = i;
  }
  let boundaryStart = 0;
  if (compactionIndex >= 0) {
    const c = path[compactionIndex] as CompactionEntry;
    const kept = path.findIndex((e) => e.id === c.firstKeptEntryId);
    // Same fallback as buildSessionContext: a firstKeptEntryId off the path keeps only what follows the compaction.
    boundaryStart = kept >= 0 && kept <= compactionIndex ? kept : compactionIndex + 1;
  }
  return { summaries, compactionIndex, boundaryStart };
}

/** Bookkeeping entries that never reach the model; they don't make a tail "new". */
function isBookkeeping(e: SessionEntry): boolean {
  return e.type === 'label' || e.type === 'custom' || e.type === 'summary_revision' || e.type === 'model_change' || e.type === 'pin' || e.type === 'tool_mask';
}

/** Context tokens at the leaf from the path's counts: the summary in effect plus what reaches the model from its kept start. */
export function contextTokensOf(path: readonly SessionEntry[], tokens: PathTokens): number {
  const st = pathState(path);
  return contextTokensFromState(path, tokens, st);
}

function contextTokensFromState(path: readonly SessionEntry[], tokens: PathTokens, st: PathState): number {
  let total = st.compactionIndex >= 0 ? tokens.counts[st.compactionIndex]! + pinnedTokens(path, tokens, st.boundaryStart) : 0;
  for (let i = st.boundaryStart; i < path.length; i++) if (countsInKeptContext(path[i]!, st.summaries)) total += tokens.counts[i]!;
  return total;
}

/** Tokens of the pinned messages (with their calls' results) before `before`: carried verbatim after the summary. */
function pinnedTokens(path: readonly SessionEntry[], tokens: PathTokens, before: number): number {
  let t = 0;
  for (const i of carriedPositions(path, before)) t += tokens.counts[i]!;
  return t;
}

function itemsOf(path: readonly SessionEntry[], from: number, to: number, summaries: Map<EntryId, EffectiveSummary>): SummaryItem[] {
  const out: SummaryItem[] = [];
  for (let i = from; i < to; i++) {
    const e = path[i]!;
    if (e.type === 'message') {
      if (!isEmptyFailedReply(e.message)) out.push({ kind: 'message', entryId: e.id, message: e.message });
    } else if (e.type === 'branch_summary') {
      const eff = summaries.get(e.id);
      if (eff && !eff.undone) out.push({ kind: 'branchSummary', entryId: e.id, summary: eff.summary });
    }
    // Compactions inside the region were merged into the one in effect; labels, custom records,
    // model changes and revisions never reach the model.
  }
  return out;
}

function sumCounts(tokens: PathTokens, path: readonly SessionEntry[], from: number, to: number, summaries: Map<EntryId, EffectiveSummary>): number {
  let t = 0;
  for (let i = from; i < to; i++) if (countsInKeptContext(path[i]!, summaries)) t += tokens.counts[i]!;
  return t;
}

export type CutDecision =
  | { ok: true; cut: CutPoint; state: PathState; keepRecentTokens: number; mustFit: boolean }
  | { ok: false; reason: NoCompactionReason; keepRecentTokens: number };

function decideCut(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  settings: CompactionSettings,
  opts: PrepareOptions,
): CutDecision {
  const keepRecentTokens = effectiveKeepRecent(settings, opts);
  if (tokens.counts.length !== path.length) throw new Error(`PathTokens has ${tokens.counts.length} counts for a path of ${path.length} entries`);
  if (!path.some((e) => e.type === 'message')) return { ok: false, reason: 'empty', keepRecentTokens };
  const st = pathState(path);

  // An already-compacted tail is not compacted again: if nothing but bookkeeping follows the
  // compaction in effect, a new one would only re-summarise the tail it deliberately kept.
  if (st.compactionIndex >= 0) {
    let tailIsNew = false;
    for (let i = path.length - 1; i > st.compactionIndex; i--) {
      if (!isBookkeeping(path[i]!)) {
        tailIsNew = true;
        break;
      }
    }
    if (!tailIsNew) return { ok: false, reason: 'already-compacted', keepRecentTokens };
  }

  const rule = cutRule(settings, opts, opts.contextTokens ?? contextTokensFromState(path, tokens, st) + (opts.requestTokens ?? 0));
  const res = findCutPoint({
    path,
    tokens,
    boundaryStart: st.boundaryStart,
    ...rule,
    inContext: (i) => countsInKeptContext(path[i]!, st.summaries),
    force: opts.force ?? false,
  });
  if ('reason' in res) return { ok: false, reason: res.reason, keepRecentTokens };
  return { ok: true, cut: res, state: st, keepRecentTokens, mustFit: rule.mustFit };
}

export type PrepareOutcome = { ok: true; prep: CompactionPreparation; forced: boolean } | { ok: false; reason: NoCompactionReason; tokensBefore: number; keepRecentTokens: number };

/**
 * prepareCompaction with the reason when there is nothing to do, for callers
 * that must tell the user why (auto-compaction over the limit, the preview).
 * Over the compaction limit the preparation always brings the context under
 * it (estimatedTokensAfter ≤ limit), or the reason is 'recent-too-large'.
 */
export function tryPrepareCompaction(path: readonly SessionEntry[], tokens: PathTokens, settings: CompactionSettings, opts: PrepareOptions = {}): PrepareOutcome {
  const { state: _state, ...outcome } = attempt(path, tokens, settings, opts);
  return outcome as PrepareOutcome;
}

/** tryPrepareCompaction, with the path state the preview reuses. */
function attempt(path: readonly SessionEntry[], tokens: PathTokens, settings: CompactionSettings, opts: PrepareOptions): PrepareOutcome & { state?: PathState } {
  const d = decideCut(path, tokens, settings, opts);
  const before = () => opts.contextTokens ?? (path.length ? contextTokensOf(path, tokens) : 0) + (opts.requestTokens ?? 0);
  if (!d.ok) return { ok: false, reason: d.reason, tokensBefore: before(), keepRecentTokens: d.keepRecentTokens };
  const prep = buildPreparation(path, tokens, settings, opts, d.cut, d.state, d.keepRecentTokens);
  if (d.mustFit && !opts.force && prep.estimatedTokensAfter > compactionLimit(opts.window!, settings)) {
    return { ok: false, reason: 'recent-too-large', tokensBefore: prep.tokensBefore, keepRecentTokens: d.keepRecentTokens };
  }
  return { ok: true, prep, forced: d.cut.forced, state: d.state };
}

/**
 * Everything a compaction needs, computed without any model call: where to
 * cut, what to summarise (the previous summary is handed over as the text to
 * update, not re-summarised), the split-turn prefix, cumulative file lists and
 * token figures. Returns null when there is nothing to compact.
 *
 * Pure and plain-data in and out, so it runs in the token worker.
 */
export function prepareCompaction(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  settings: CompactionSettings,
  opts: PrepareOptions = {},
): CompactionPreparation | null {
  const o = tryPrepareCompaction(path, tokens, settings, opts);
  return o.ok ? o.prep : null;
}

function buildPreparation(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  settings: CompactionSettings,
  opts: PrepareOptions,
  cut: CutPoint,
  st: PathState,
  keepRecentTokens: number,
): CompactionPreparation {
  const from = st.boundaryStart;
  const isSplitTurn = cut.turnStartIndex !== null;
  const historyEnd = isSplitTurn ? cut.turnStartIndex! : cut.firstKeptIndex;
  const messagesToSummarize = itemsOf(path, from, historyEnd, st.summaries);
  const turnPrefixMessages = isSplitTurn ? itemsOf(path, historyEnd, cut.firstKeptIndex, st.summaries) : [];

  let previousSummary: string | null = null;
  let previousCompactionId: EntryId | null = null;
  let previousSummaryTokens = 0;
  const ops = createFileOps();
  if (st.compactionIndex >= 0) {
    const prev = path[st.compactionIndex] as CompactionEntry;
    const eff = st.summaries.get(prev.id)!;
    previousSummary = eff.summary;
    previousCompactionId = prev.id;
    previousSummaryTokens = tokens.counts[st.compactionIndex]!;
    addDetails(ops, eff.details);
  }
  // Branch summaries carry the file lists of the branches they stand for.
  for (const it of [...messagesToSummarize, ...turnPrefixMessages]) {
    if (it.kind === 'branchSummary') addDetails(ops, st.summaries.get(it.entryId)?.details);
  }
  addItems(ops, messagesToSummarize);
  addItems(ops, turnPrefixMessages);

  const tokensSummarized = sumCounts(tokens, path, from, historyEnd, st.summaries);
  const tokensTurnPrefix = isSplitTurn ? sumCounts(tokens, path, historyEnd, cut.firstKeptIndex, st.summaries) : 0;
  const request = opts.requestTokens ?? 0;
  const tokensBefore = opts.contextTokens ?? contextTokensFromState(path, tokens, st) + request;
  // Pinned messages before the cut stay in the context after the summary: part of the figure after.
  const pinned = carriedPositions(path, cut.firstKeptIndex);
  let tokensPinned = 0;
  for (const i of pinned) tokensPinned += tokens.counts[i]!;
  const fileOps = toFileLists(ops);
  const all = [...messagesToSummarize, ...turnPrefixMessages];
  const { budget, userMessages } = summaryBudget({
    outputBudget: summaryOutputBudget(settings),
    ...(opts.window !== undefined && opts.window > 0 ? { room: compactionLimit(opts.window, settings) - request - cut.keptTokens - tokensPinned } : {}),
    previousSummaryTokens,
    historyTokens: messagesToSummarize.length ? tokensSummarized : 0,
    turnPrefixTokens: tokensTurnPrefix,
    isSplitTurn,
    fileOps,
    userMessages: mergedUserMessages(previousSummary, all),
    ...(opts.countText ? { countText: opts.countText } : {}),
  });

  return {
    leafId: path[path.length - 1]!.id,
    // Keeping nothing cuts past the end; the caller names the entry (the compaction itself).
    firstKeptEntryId: (path[cut.firstKeptIndex] ?? path[path.length - 1]!).id,
    firstKeptIndex: cut.firstKeptIndex,
    keepsNothing: cut.firstKeptIndex >= path.length,
    summarizeFromIndex: from,
    isSplitTurn,
    turnStartIndex: cut.turnStartIndex,
    messagesToSummarize,
    turnPrefixMessages,
    tokensBefore,
    tokensKept: cut.keptTokens,
    tokensSummarized,
    tokensTurnPrefix,
    previousSummaryTokens,
    tokensPinned,
    pinnedEntryIds: pinned.map((i) => path[i]!.id),
    estimatedTokensAfter: Math.ceil(request + cut.keptTokens + tokensPinned + budget.total),
    summaryBudget: budget,
    userMessages,
    previousSummary,
    previousCompactionId,
    fileOps,
    firstSummarizedEntryId: all[0]?.entryId ?? null,
    summarizedEntryCount: all.length,
    keepRecentTokens,
    force: opts.force ?? false,
    settings: { ...settings },
  };
}

/**
 * Why a compaction cannot be summarised again from the path up to it
 * (`path[0..end)`), or null when it can. 'history-missing': nothing before it could go
 * into a summary: no message, branch summary or earlier compaction. That is a
 * compaction whose history lives elsewhere: one imported from a file that
 * opens with it (the tool began a new file with the summary), or the first
 * entry of a session continued from another. 'kept-entry-gone': its first kept
 * entry is not on that path.
 */
export function regenerationProblem(
  path: readonly SessionEntry[],
  original: Pick<CompactionEntry, 'id' | 'firstKeptEntryId'>,
  end = path.length,
): 'history-missing' | 'kept-entry-gone' | null {
  let material = false;
  let kept = original.firstKeptEntryId === original.id;
  for (let i = 0; i < end && !(material && kept); i++) {
    const e = path[i]!;
    if (e.type === 'message' || e.type === 'branch_summary' || e.type === 'compaction') material = true;
    if (e.id === original.firstKeptEntryId) kept = true;
  }
  if (!material) return 'history-missing';
  return kept ? null : 'kept-entry-gone';
}

/**
 * The preparation of an existing compaction, to regenerate its summary: the
 * same cut (its firstKeptEntryId) over the path as it was when it was made
 * (`pathBefore`: the entries before the compaction entry). The previous
 * summary and file lists come from that path, so a regenerated summary covers
 * exactly what the original covered. Returns null if the kept entry is no
 * longer on that path.
 */
export function prepareRegeneration(
  pathBefore: readonly SessionEntry[],
  tokens: PathTokens,
  settings: CompactionSettings,
  original: Pick<CompactionEntry, 'id' | 'firstKeptEntryId' | 'tokensBefore'> & { details: { isSplitTurn?: boolean } },
): CompactionPreparation | null {
  if (tokens.counts.length !== pathBefore.length) throw new Error(`PathTokens has ${tokens.counts.length} counts for a path of ${pathBefore.length} entries`);
  // A compaction may keep nothing: pi writes its own index as firstKeptEntryIndex then (the second one in the pi
  // fixture), Claude Code and Codex always do (their summary replaces the whole history), and so does Keep recent 0.
  const keepsNothing = original.firstKeptEntryId === original.id;
  const firstKeptIndex = keepsNothing ? pathBefore.length : pathBefore.findIndex((e) => e.id === original.firstKeptEntryId);
  if (firstKeptIndex < 0 || pathBefore.length === 0) return null;
  const st = pathState(pathBefore);
  let turnStartIndex: number | null = null;
  if (original.details.isSplitTurn) {
    for (let i = firstKeptIndex - 1; i >= st.boundaryStart; i--) {
      const e = pathBefore[i]!;
      if (e.type === 'message' && e.message.role === 'user') {
        turnStartIndex = i;
        break;
      }
    }
  }
  const keptTokens = sumCounts(tokens, pathBefore, firstKeptIndex, pathBefore.length, st.summaries);
  const cut: CutPoint = { firstKeptIndex, turnStartIndex, keptTokens, forced: false };
  const prep = buildPreparation(pathBefore, tokens, settings, { contextTokens: original.tokensBefore }, cut, st, keptTokens);
  // Keeping nothing, the compaction's own id is its first kept entry (what buildSessionContext expects).
  return keepsNothing ? { ...prep, firstKeptEntryId: original.id } : prep;
}

// ---------------------------------------------------------------- preview

export interface RangeFigures {
  fromIndex: number;
  /** Exclusive. */
  toIndex: number;
  firstEntryId: EntryId | null;
  entryCount: number;
  messageCount: number;
  tokens: number;
}

export type CompactionPreview =
  | { ok: false; reason: NoCompactionReason; tokensBefore: number; keepRecentTokens: number }
  | {
      ok: true;
      tokensBefore: number;
      keepRecentTokens: number;
      /** The summary being updated, if any. */
      previousSummary: { entryId: EntryId; tokens: number } | null;
      summarize: RangeFigures;
      /** The split turn's prefix (its own summary), or null for a clean cut. */
      turnPrefix: RangeFigures | null;
      keep: RangeFigures;
      /**
       * Keep-recent is 0 and yet something is kept: what the end of the
       * conversation is waiting for, which has to stay (see cutPoint.ts); null otherwise.
       */
      keptBecause: PendingAtEnd;
      /** Pinned messages (with their calls' results) before the cut: carried verbatim after the summary. */
      pinned: { count: number; tokens: number };
      estimatedTokensAfter: number;
      readFiles: number;
      modifiedFiles: number;
      forced: boolean;
    };

function figures(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  from: number,
  to: number,
  summaries: Map<EntryId, EffectiveSummary>,
  items: readonly SummaryItem[] | null,
): RangeFigures {
  let messageCount = 0;
  for (let i = from; i < to; i++) if (countsInKeptContext(path[i]!, summaries)) messageCount++;
  return {
    fromIndex: from,
    toIndex: to,
    firstEntryId: items ? (items[0]?.entryId ?? null) : (path[from]?.id ?? null),
    entryCount: to - from,
    messageCount,
    tokens: sumCounts(tokens, path, from, to, summaries),
  };
}

/** What a manual compaction would summarise and keep, with token figures; no messages are copied. */
export function previewCompaction(
  path: readonly SessionEntry[],
  tokens: PathTokens,
  settings: CompactionSettings,
  opts: PrepareOptions = {},
): CompactionPreview {
  const { state, ...o } = attempt(path, tokens, settings, opts);
  if (!o.ok) return o;
  const { prep } = o;
  const summaries = state!.summaries;
  const historyEnd = prep.isSplitTurn ? prep.turnStartIndex! : prep.firstKeptIndex;
  return {
    ok: true,
    tokensBefore: prep.tokensBefore,
    keepRecentTokens: prep.keepRecentTokens,
    previousSummary: prep.previousCompactionId ? { entryId: prep.previousCompactionId, tokens: prep.previousSummaryTokens } : null,
    summarize: figures(path, tokens, prep.summarizeFromIndex, historyEnd, summaries, prep.messagesToSummarize),
    turnPrefix: prep.isSplitTurn ? figures(path, tokens, historyEnd, prep.firstKeptIndex, summaries, prep.turnPrefixMessages) : null,
    keep: figures(path, tokens, prep.firstKeptIndex, path.length, summaries, null),
    keptBecause: prep.keepRecentTokens <= 0 && !prep.keepsNothing ? pendingAtEnd(path, prep.summarizeFromIndex, (i) => countsInKeptContext(path[i]!, summaries)) : null,
    pinned: { count: prep.pinnedEntryIds.length, tokens: prep.tokensPinned },
    estimatedTokensAfter: prep.estimatedTokensAfter,
    readFiles: prep.fileOps.readFiles.length,
    modifiedFiles: prep.fileOps.modifiedFiles.length,
    forced: o.forced,
  };
}
