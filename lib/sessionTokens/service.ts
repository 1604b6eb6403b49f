/**
 * Token accounting for open sessions, as a plain object: workers/tokens.worker.ts
 * hosts it with comlink in the browser, tests call it directly and the bench
 * runs it in a Node worker thread (workers/tokens.node-worker.ts). Everything
 * that needs the tokenizer tables happens here, so only a worker imports it.
 *
 * Per session the worker keeps the active path in a PathTokenIndex, so after
 * `loadPath` the UI only sends what changed: appended entries, an updated
 * reply, or the new tail after a leaf switch.
 */
import { usageInputTokens, usableUsage, PathTokenIndex, type ContextFigure, type IndexCalibration } from '@/lib/tokens/pathIndex';
import { cacheUsable, createExactCounter, countEntry, countPayload, countText, loadEncoding } from '@/lib/tokens/exact';
import { isCalibrated, updateCalibration, type Calibration } from '@/lib/tokens/calibration';
import { MESSAGE_OVERHEAD, REPLY_PRIMING, type CountingPayload } from '@/lib/tokens/entryText';
import { tokenizerFor, type Encoding, type TokenizerInfo } from '@/lib/tokens/tokenizerFor';
import type { CompactionSettings, EntryId, SessionEntry, TokenCache } from '@/lib/session/types';
// Specific modules, not the barrels: lib/compaction/summarizer.ts pulls in the AI SDK, which the worker does not need.
import { keptRoom, prepareCompaction, prepareRegeneration, previewCompaction, type CompactionPreview, type PrepareOptions } from '@/lib/compaction/prepare';
import { contextBreakdown, type ContextBreakdown } from '@/lib/tokens/breakdown';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { planSummary } from '@/lib/compaction/plan';
import type { CompactionPreparation, SummaryPlan } from '@/lib/compaction/types';
import { prepareBranchSummary, type BranchSummaryPreparation } from '@/lib/branch/prepare';
import { planBranchSummary, type BranchPurpose } from '@/lib/branch/summarize';
import { compactionSummaryText, branchSummaryText } from '@/lib/tokens/entryText';
import { countsInKeptContext } from '@/lib/compaction/cutPoint';
import { keepRecentTokensForTurns } from '@/lib/compaction/keepRecent';
import { planToolMask, type MaskPlan } from '@/lib/compaction/mask';
import { maskStubText } from '@/lib/session/masks';
import { compactionCut, type CutOptions, type CutResult } from './cut';

export interface SessionTokenOptions {
  /** Qualified model id, "provider:model". Decides the encoding, the image formula and the calibration. */
  model: string;
  /** Stored calibration of that model (lib/db); ignored for exact tokenizers. */
  calibration?: Calibration | null;
  /** Sent with every request, so counted in every estimate. */
  systemPrompt?: string;
  contextWindow?: number;
  /** When set, every update also returns where a compaction with these settings would cut (findCut). */
  compaction?: CompactionSettings;
}

/** How the summarizer requests are planned: its model (tokenizer, calibration), window and output budget. */
export interface SummaryPlanOptions {
  model: string;
  window: number;
  maxOutputTokens: number;
  customInstructions?: string;
}

/** Preparation options as the flows send them: keep-recent may be given in turns, which only the worker can turn into tokens. */
export type KeepRecentOptions = PrepareOptions & { keepRecentTurns?: number };

export interface PathUpdate {
  figure: ContextFigure;
  cut: CutResult | null;
  /** Caches counted in this call for entries that lacked a current one: persist them (setEntryTokens). */
  computed: { id: EntryId; tokens: TokenCache }[];
  /** Set when a reply's reported usage changed the model's calibration: persist it. */
  calibration?: Calibration;
  /** Entries on the path after the call. */
  length: number;
  leafId: EntryId | null;
}

interface SessionState {
  opts: SessionTokenOptions;
  info: TokenizerInfo;
  index: PathTokenIndex;
  /** Computed caches not yet handed back. */
  pending: { id: EntryId; tokens: TokenCache }[];
  /** Replies already folded into the calibration (an update may repeat one). */
  sampled: Set<EntryId>;
  /** Replies whose usage was reported under an earlier system prompt (see staleAfterPromptChange). */
  staleUsage: Set<EntryId>;
}

/** Sessions kept in memory; the least recently used one is dropped beyond this. */
const MAX_SESSIONS = 4;

export function createTokensService() {
  const sessions = new Map<string, SessionState>();
  /** Calibration per model, shared by the sessions of this worker. */
  const calibrations = new Map<string, Calibration>();

  function indexCalibration(info: TokenizerInfo, model: string): IndexCalibration {
    if (info.exact) return { factor: 1, offset: 0, approximate: false };
    const c = calibrations.get(model);
    return { factor: c?.factor ?? 1, offset: c?.offset ?? 0, approximate: !isCalibrated(c) };
  }

  function requestTokens(opts: SessionTokenOptions, encoding: Encoding): number {
    const system = opts.systemPrompt ? countText(opts.systemPrompt, encoding) + MESSAGE_OVERHEAD : 0;
    return system + REPLY_PRIMING;
  }

  function state(sessionKey: string): SessionState {
    const s = sessions.get(sessionKey);
    if (!s) throw new Error(`Token worker: session ${sessionKey} is not loaded (call loadPath first)`);
    // Most recently used last, for the eviction below.
    sessions.delete(sessionKey);
    sessions.set(sessionKey, s);
    // Another session of the same model may have moved the shared calibration.
    const cal = indexCalibration(s.info, s.opts.model);
    if (cal.factor !== s.index.calibration.factor || cal.offset !== s.index.calibration.offset || cal.approximate !== s.index.calibration.approximate) {
      s.index.setCalibration(cal);
    }
    return s;
  }

  /**
   * A reply's reported usage measured its request, system prompt included.
   * When the system prompt changes, the replies known so far measured the old
   * one: the figure must not rest on them (it would show the old prompt's
   * size) until a reply reports under the new one. Known for the life of this
   * worker; a fresh one (a reload) trusts them again until the next reply.
   */
  function staleAfterPromptChange(prev: SessionState | undefined, path: readonly SessionEntry[], opts: SessionTokenOptions): Set<EntryId> {
    const stale = new Set(prev?.staleUsage ?? []);
    if (prev && (prev.opts.systemPrompt ?? '') !== (opts.systemPrompt ?? '')) {
      for (const e of [...prev.index.entries(), ...path]) if (usableUsage(e)) stale.add(e.id);
    }
    return stale;
  }

  async function build(sessionKey: string, path: readonly SessionEntry[], opts: SessionTokenOptions): Promise<SessionState> {
    const staleUsage = staleAfterPromptChange(sessions.get(sessionKey), path, opts);
    const info = tokenizerFor(opts.model);
    await loadEncoding(info.encoding);
    if (opts.calibration && !info.exact) calibrations.set(opts.model, opts.calibration);
    const pending: SessionState['pending'] = [];
    const counter = createExactCounter({
      encoding: info.encoding,
      imageFormula: info.imageFormula,
      onComputed: (entry, tokens) => {
        // The worker's copy keeps the cache, so a replace or rebuild does not count it again.
        entry.tokens = tokens;
        pending.push({ id: entry.id, tokens });
      },
    });
    const index = new PathTokenIndex(counter, {
      calibration: indexCalibration(info, opts.model),
      requestTokens: requestTokens(opts, info.encoding),
      staleUsage,
    });
    for (const e of path) index.push(e);
    const s: SessionState = { opts, info, index, pending, sampled: new Set(), staleUsage };
    sessions.delete(sessionKey);
    sessions.set(sessionKey, s);
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    return s;
  }

  /**
   * Folds the reply at path position `at` into the model's calibration when
   * its reported usage is new: the provider's input count against our count
   * of the same request (the context before the reply).
   */
  function sample(s: SessionState, at: number): Calibration | undefined {
    if (s.info.exact) return undefined;
    const entry = s.index.entries()[at]!;
    const usage = usableUsage(entry);
    if (!usage || s.sampled.has(entry.id)) return undefined;
    // A reply written by another model measured another tokenizer.
    const m = entry.type === 'message' && entry.message.role === 'assistant' ? entry.message.model : undefined;
    if (m && m !== s.opts.model) return undefined;
    s.sampled.add(entry.id);
    const prev = calibrations.get(s.opts.model);
    // Older than what the stored calibration already saw: this usage was sampled before (a reload), not new evidence.
    if (prev?.lastSampledAt !== undefined && entry.timestamp <= prev.lastSampledAt) return undefined;
    const counted = s.index.requestCount(at);
    const reported = usageInputTokens(usage) - counted.media;
    const next = { ...updateCalibration(prev, reported, counted.text), lastSampledAt: Math.max(entry.timestamp, prev?.lastSampledAt ?? -Infinity) };
    calibrations.set(s.opts.model, next);
    s.index.setCalibration(indexCalibration(s.info, s.opts.model));
    return next;
  }

  /** The cut rule on the session's path, with the chat window the session was loaded with unless the caller gives one. */
  function cutOf(s: SessionState, settings: CompactionSettings, opts: CutOptions = {}): CutResult {
    return compactionCut(s.index, settings, { ...opts, window: opts.window ?? s.opts.contextWindow });
  }

  /** The hybrid context figure is better than the path counts alone: preparation uses it when the caller gave none. */
  function withFigure(s: SessionState, { keepRecentTurns, ...opts }: KeepRecentOptions): PrepareOptions {
    if (keepRecentTurns !== undefined) {
      const path = s.index.entries();
      const summaries = s.index.summaryStates();
      const start = s.index.compactionState().keptFromIndex;
      opts.keepRecentTokens = keepRecentTokensForTurns(path, s.index.pathTokens(), start, keepRecentTurns, (i) => countsInKeptContext(path[i]!, summaries));
    }
    const factor = s.index.calibration.factor;
    return {
      ...opts,
      contextTokens: opts.contextTokens ?? s.index.figure(s.opts.contextWindow).tokens,
      window: opts.window ?? s.opts.contextWindow,
      // The summary's framing and file lists, counted like the path (for the bound of the context after).
      countText: (t) => Math.ceil(countText(t, s.info.encoding) * factor),
      // The system prompt and framing the figure counts: "after, at most" is then a meter figure too.
      requestTokens: opts.requestTokens ?? s.index.requestOverheadTokens(),
    };
  }

  /**
   * Counts text as the summarizer model will: exact for OpenAI tokenizers, else
   * o200k scaled by that model's learned factor. Until a model is calibrated
   * the count is padded by a quarter, since Claude and Gemini tokenizers run
   * up to ~30 % above o200k on code and prose, and a plan that undercounts
   * would overflow the summarizer.
   */
  async function summarizerCounter(model: string): Promise<(text: string) => number> {
    const info = tokenizerFor(model);
    await loadEncoding(info.encoding);
    if (info.exact) return (t) => countText(t, info.encoding);
    const c = calibrations.get(model);
    const factor = isCalibrated(c) ? Math.max(1, c!.factor) : 1.25;
    return (t) => Math.ceil(countText(t, info.encoding) * factor);
  }

  function result(s: SessionState, calibration?: Calibration): PathUpdate {
    const { index, opts } = s;
    const computed = s.pending.splice(0);
    const cut = opts.compaction ? cutOf(s, opts.compaction) : null;
    return {
      figure: index.figure(opts.contextWindow),
      cut,
      computed,
      ...(calibration ? { calibration } : {}),
      length: index.length,
      leafId: index.leafId(),
    };
  }

  return {
    ping(): 'pong' {
      return 'pong';
    },

    /** Token caches for a batch of entries (import, or appends before they are stored). */
    async countEntries(entries: SessionEntry[], opts: { cl100k?: boolean } = {}): Promise<TokenCache[]> {
      if (opts.cl100k) await loadEncoding('cl100k_base');
      return entries.map((e) => countEntry(e, opts));
    },

    /**
     * Token caches for extracted payloads (countingPayload): the cheap way to
     * count many entries, since only strings cross the thread boundary. Use
     * countEntriesInBatches (countBatches.ts) rather than calling this directly.
     */
    async countPayloads(payloads: CountingPayload[], opts: { cl100k?: boolean } = {}): Promise<TokenCache[]> {
      if (opts.cl100k) await loadEncoding('cl100k_base');
      return payloads.map((p) => countPayload(p, opts));
    },

    /** Plain string counts, e.g. a draft in the composer. */
    async countTexts(texts: string[], encoding: Encoding = 'o200k_base'): Promise<number[]> {
      await loadEncoding(encoding);
      return texts.map((t) => countText(t, encoding));
    },

    /** Loads (or reloads) a session's active path, root → leaf. */
    async loadPath(sessionKey: string, path: SessionEntry[], opts: SessionTokenOptions): Promise<PathUpdate> {
      return result(await build(sessionKey, path, opts));
    },

    /** Changes model, calibration, system prompt, window or budget; a new encoding or image formula recounts the path. */
    async setOptions(sessionKey: string, patch: Partial<SessionTokenOptions>): Promise<PathUpdate> {
      const s = state(sessionKey);
      const opts = { ...s.opts, ...patch };
      const info = tokenizerFor(opts.model);
      const sameCounts = info.encoding === s.info.encoding && info.imageFormula === s.info.imageFormula && opts.systemPrompt === s.opts.systemPrompt;
      if (sameCounts && opts.model === s.opts.model) {
        if (patch.calibration && !info.exact) calibrations.set(opts.model, patch.calibration);
        s.opts = opts;
        s.index.setCalibration(indexCalibration(info, opts.model));
        return result(s);
      }
      return result(await build(sessionKey, [...s.index.entries()], opts));
    },

    /** Appends entries below the current leaf, in order. */
    append(sessionKey: string, entries: SessionEntry | SessionEntry[]): PathUpdate {
      const s = state(sessionKey);
      let calibration: Calibration | undefined;
      for (const e of Array.isArray(entries) ? entries : [entries]) {
        s.index.push(e);
        calibration = sample(s, s.index.length - 1) ?? calibration;
      }
      return result(s, calibration);
    },

    /**
     * An entry already on the path changed (a streamed reply grew or finished,
     * usage arrived). Always recounted: its stored cache may describe an
     * earlier state of it.
     */
    update(sessionKey: string, entry: SessionEntry): PathUpdate {
      const s = state(sessionKey);
      const { tokens: _stale, ...fresh } = entry;
      s.index.replace(fresh as SessionEntry);
      const calibration = sample(s, s.index.indexOf(entry.id));
      return result(s, calibration);
    },

    /**
     * Moves the leaf: `ancestorId` is the common ancestor of the old and new
     * leaf (SessionTree.commonAncestor; null when they share no root) and
     * `tail` the new path below it, root → leaf.
     */
    switchPath(sessionKey: string, ancestorId: EntryId | null, tail: SessionEntry[]): PathUpdate {
      const s = state(sessionKey);
      s.index.switchTo(ancestorId, tail);
      return result(s);
    },

    contextFigure(sessionKey: string): ContextFigure {
      const s = state(sessionKey);
      return s.index.figure(s.opts.contextWindow);
    },

    /**
     * Where a compaction with these settings would cut the active path now,
     * by the rule prepareCompaction uses (see compactionCut), cheap enough to
     * ask after every append.
     */
    findCut(sessionKey: string, settings: CompactionSettings, opts: CutOptions = {}): CutResult {
      return cutOf(state(sessionKey), settings, opts);
    },

    /** Copies of the calibrated per-entry counts and prefix sums of the active path. */
    pathTokens(sessionKey: string): { counts: Float64Array; prefix: Float64Array; ids: EntryId[] } {
      const s = state(sessionKey);
      const t = s.index.pathTokens();
      return { counts: Float64Array.from(t.counts), prefix: Float64Array.from(t.prefix), ids: s.index.entries().map((e) => e.id) };
    },

    calibration(model: string): Calibration | null {
      return calibrations.get(model) ?? null;
    },

    drop(sessionKey: string): void {
      sessions.delete(sessionKey);
    },

    // ------------------------------------------------------------ compaction

    /**
     * What a compaction at the current leaf would summarise and keep, with
     * token figures (the manual Compact dialog shows it before asking).
     */
    previewCompaction(sessionKey: string, settings: CompactionSettings, opts: KeepRecentOptions = {}): CompactionPreview {
      const s = state(sessionKey);
      return previewCompaction(s.index.entries(), s.index.pathTokens(), settings, withFigure(s, opts));
    },

    /**
     * Prepares a compaction at the current leaf and, when a summarizer model
     * is given, plans its requests so each fits that model's window. All token
     * counting of the summary happens here; the main thread only runs the plan.
     */
    async prepareCompaction(
      sessionKey: string,
      settings: CompactionSettings,
      opts: KeepRecentOptions & { plan?: SummaryPlanOptions } = {},
    ): Promise<{ prep: CompactionPreparation; plan: SummaryPlan | null } | null> {
      const s = state(sessionKey);
      const { plan: planOpts, ...prepOpts } = opts;
      const prep = prepareCompaction(s.index.entries(), s.index.pathTokens(), settings, withFigure(s, prepOpts));
      if (!prep) return null;
      const plan = planOpts ? planSummary(prep, { ...planOpts, countText: await summarizerCounter(planOpts.model) }) : null;
      return { prep, plan };
    },

    /**
     * Fits an abandoned branch (entries from the old leaf up to, not
     * including, the common ancestor; lib/branch collectBranchEntries) into
     * the summarizer's budget, newest first, and plans the request.
     */
    async prepareBranchSummary(
      entries: SessionEntry[],
      opts: { budget: number; plan?: SummaryPlanOptions; purpose?: BranchPurpose },
    ): Promise<{ prep: BranchSummaryPreparation; plan: SummaryPlan | null } | null> {
      const model = opts.plan?.model;
      const encoding = model ? tokenizerFor(model).encoding : 'o200k_base';
      await loadEncoding(encoding);
      const cl100k = encoding === 'cl100k_base';
      const tokensOf = (e: SessionEntry): number => {
        if (e.type === 'compaction' || e.type === 'branch_summary') return countText(e.summary, encoding);
        if (e.type !== 'message') return 0;
        // Stored caches are reused; an entry without one (or with an outdated one) is counted here.
        const cache = cacheUsable(e.tokens, encoding) ? e.tokens : countEntry(e, { cl100k });
        return cl100k ? (cache.cl100k ?? cache.o200k) : cache.o200k;
      };
      const prep = prepareBranchSummary(entries, { tokensOf, budget: opts.budget });
      if (!prep) return null;
      const plan = opts.plan ? planBranchSummary(prep, { ...opts.plan, purpose: opts.purpose, countText: await summarizerCounter(opts.plan.model) }) : null;
      return { prep, plan };
    },

    /**
     * Regenerating an existing compaction: its own cut over the path as it was
     * (the entries before it), planned for the summarizer. Null when the
     * compaction is not on the current path.
     */
    async prepareRegeneration(
      sessionKey: string,
      targetId: EntryId,
      settings: CompactionSettings,
      plan?: SummaryPlanOptions,
    ): Promise<{ prep: CompactionPreparation; plan: SummaryPlan | null } | null> {
      const s = state(sessionKey);
      const entries = s.index.entries();
      const at = s.index.indexOf(targetId);
      const target = entries[at];
      if (at < 0 || !target || target.type !== 'compaction') return null;
      const before = entries.slice(0, at);
      const counts = Array.from(s.index.pathTokens().counts).slice(0, at);
      const prep = prepareRegeneration(before, pathTokensFromCounts(counts), settings, target);
      if (!prep) return null;
      return { prep, plan: plan ? planSummary(prep, { ...plan, countText: await summarizerCounter(plan.model) }) : null };
    },

    /** The context at the leaf split by kind: system prompt, summaries, messages, tool results, attachments, free space. */
    contextBreakdown(sessionKey: string): ContextBreakdown {
      const s = state(sessionKey);
      return contextBreakdown(s.index, {
        imageFormula: s.info.imageFormula,
        contextWindow: s.opts.contextWindow,
      });
    },

    /**
     * The context figure right after a compaction with this summary, keeping
     * from `firstKeptEntryId` (null: keeping nothing), is appended at the leaf:
     * what the meter will show then, and so what the compaction's card records
     * as its "after".
     */
    contextAfterCompaction(sessionKey: string, summary: string, firstKeptEntryId: EntryId | null): number {
      const s = state(sessionKey);
      if (firstKeptEntryId === null) return s.index.countedAfterCompaction(s.index.entries().length, summary);
      const at = s.index.indexOf(firstKeptEntryId);
      if (at < 0) throw new Error(`Token worker: ${firstKeptEntryId} is not on the path of ${sessionKey}`);
      return s.index.countedAfterCompaction(at, summary);
    },

    /**
     * Which old tool outputs a mask made now would cover, and what it saves
     * (lib/compaction/mask.ts). The protected window is the setting, clamped
     * like keep-recent to what the chat window leaves for a kept tail. Null
     * when nothing qualifies.
     */
    planToolMask(sessionKey: string, settings: CompactionSettings, opts: { window?: number } = {}): MaskPlan | null {
      const s = state(sessionKey);
      const window = opts.window ?? s.opts.contextWindow;
      const room = keptRoom(settings, window);
      const protect = Math.min(settings.maskProtectTokens ?? settings.keepRecentTokens, room ?? Infinity);
      const f = s.index.calibration.factor;
      // The stub as the index counts a masked result, so the saving matches the figure after the mask.
      const stubTokens = (e: SessionEntry) =>
        e.type === 'message' && e.message.role === 'toolResult' ? f * (countText(maskStubText(e.message), s.info.encoding) + MESSAGE_OVERHEAD) : 0;
      return planToolMask(s.index.entries(), s.index.pathTokens(), {
        protectTokens: protect,
        stubTokens,
        contextTokens: s.index.figure(window).tokens,
        countedTokens: s.index.estimate(),
      });
    },

    /** Tokens a summary will occupy in context once appended (with the framing the model receives). */
    async summaryTokens(sessionKey: string, summary: string, kind: 'compaction' | 'branch_summary' = 'compaction'): Promise<number> {
      const s = state(sessionKey);
      const text = kind === 'compaction' ? compactionSummaryText(summary) : branchSummaryText(summary);
      const counted = countText(text, s.info.encoding) + MESSAGE_OVERHEAD;
      const cal = s.index.calibration;
      return Math.round(counted * cal.factor);
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
