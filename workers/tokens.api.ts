/**
 * The token worker's API as a plain object. tokens.worker.ts exposes it with
 * comlink in the browser; tests call it directly and the bench runs it in a
 * Node worker thread (tokens.node-worker.ts). Everything that needs the
 * tokenizer tables happens here, off the main thread.
 *
 * Per session the worker keeps the active path in a PathTokenIndex, so after
 * `loadPath` the UI only sends what changed: appended entries, an updated
 * reply, or the new tail after a leaf switch.
 */
import { usageInputTokens, usableUsage, PathTokenIndex, type ContextFigure, type IndexCalibration } from '@/lib/tokens/pathIndex';
import { createExactCounter, countEntry, countPayload, countText, loadEncoding } from '@/lib/tokens/exact';
import { isCalibrated, updateCalibration, type Calibration } from '@/lib/tokens/calibration';
import { MESSAGE_OVERHEAD, REPLY_PRIMING, type CountingPayload } from '@/lib/tokens/entryText';
import { tokenizerFor, type Encoding, type TokenizerInfo } from '@/lib/tokens/tokenizerFor';
import type { CutLookup } from '@/lib/tokens/cutPoint';
import type { EntryId, SessionEntry, TokenCache } from '@/lib/session/types';

export interface SessionTokenOptions {
  /** Qualified model id, "provider:model". Decides the encoding, the image formula and the calibration. */
  model: string;
  /** Stored calibration of that model (lib/db); ignored for exact tokenizers. */
  calibration?: Calibration | null;
  /** Sent with every request, so counted in every estimate. */
  systemPrompt?: string;
  contextWindow?: number;
  /** When set, every update also returns the cut-point lookup for this budget. */
  keepRecentTokens?: number;
}

export interface CutResult extends CutLookup {
  entryId: EntryId | null;
  /** Where the search began: the first entry the model sees verbatim. */
  startIndex: number;
}

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
}

/** Sessions kept in memory; the least recently used one is dropped beyond this. */
const MAX_SESSIONS = 4;

export function createTokensApi() {
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

  async function build(sessionKey: string, path: readonly SessionEntry[], opts: SessionTokenOptions): Promise<SessionState> {
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
    });
    for (const e of path) index.push(e);
    const s: SessionState = { opts, info, index, pending, sampled: new Set() };
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
    const counted = s.index.requestCount(at);
    const reported = usageInputTokens(usage) - counted.media;
    const next = updateCalibration(calibrations.get(s.opts.model), reported, counted.text);
    calibrations.set(s.opts.model, next);
    s.index.setCalibration(indexCalibration(s.info, s.opts.model));
    return next;
  }

  function result(s: SessionState, calibration?: Calibration): PathUpdate {
    const { index, opts } = s;
    const computed = s.pending.splice(0);
    const cut = opts.keepRecentTokens !== undefined ? index.findCut(opts.keepRecentTokens) : null;
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

    findCut(sessionKey: string, keepRecentTokens: number, mode: 'atOrAfter' | 'atOrBefore' = 'atOrAfter'): CutResult {
      return state(sessionKey).index.findCut(keepRecentTokens, mode);
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
    // The compaction and branch-summary preparation (lib/compaction, lib/branch)
    // plug in here: both take the root→leaf path entries and a PathTokens, which
    // the session state already holds. Wiring is one method each:
    //
    //   prepareCompaction(sessionKey: string, settings: CompactionSettings) {
    //     const { index } = state(sessionKey);
    //     return prepareCompaction(index.entries(), index.pathTokens(), settings);
    //   },
    //   prepareBranchSummary(sessionKey: string, targetId: EntryId, ...) {
    //     const { index } = state(sessionKey);
    //     return prepareBranchSummary(index.entries(), index.pathTokens(), targetId, ...);
    //   },
  };
}

export type TokensApi = ReturnType<typeof createTokensApi>;
