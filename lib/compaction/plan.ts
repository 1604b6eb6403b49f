import { planSequence, type CountText } from './chunking';
import { fileFooter, stripFileFooter } from './fileOps';
import { SCRATCHPAD_MIN_OUTPUT, SUMMARIZER_SYSTEM, initialInstructions, turnPrefixInstructions, updateInstructions } from './prompts';
import type { CompactionPreparation, SummaryPlan } from './types';

export interface PlanOptions {
  /** The summarizer model's context window. */
  window: number;
  /** Requested output budget; capped at a quarter of the window so chained chunks always fit. */
  maxOutputTokens: number;
  countText: CountText;
  customInstructions?: string;
  /** Head-room for chat framing and tokenizer drift; default 32 + 2 % of the window. */
  safetyMarginTokens?: number;
  /** Defaults to the preparation's settings. */
  toolResultMaxChars?: number;
}

export function planLimits(opts: Pick<PlanOptions, 'window' | 'maxOutputTokens' | 'safetyMarginTokens'>) {
  if (!(opts.window > 0)) throw new RangeError(`window must be positive, got ${opts.window}`);
  const maxOutputTokens = Math.max(1, Math.min(Math.floor(opts.maxOutputTokens), Math.floor(opts.window / 4)));
  const safetyMarginTokens = opts.safetyMarginTokens ?? 32 + Math.ceil(opts.window * 0.02);
  return { maxOutputTokens, safetyMarginTokens };
}

/** A note telling a chained turn-prefix step that its previous summary is the same turn's beginning. */
const TURN_PREFIX_CHAIN_NOTE =
  'The <previous-summary> summarises the beginning of this same turn; the transcript continues it. Merge both into one turn summary.\n\n';

/**
 * Decides every summarizer request of a compaction: history chunks
 * (sequential, each updating the previous summary) and, for a split turn,
 * the turn-prefix chunks. Pure; all token counting of the summary happens
 * here so `runSummaryPlan` can run anywhere without a tokenizer.
 *
 * Split turns run sequentially (history, then turn prefix) rather than
 * concurrently as pi does: local servers (Ollama, llama.cpp) serialise
 * requests anyway, chunked history is sequential already, and streamed
 * deltas then arrive in the order they appear in the final text.
 */
export function planSummary(prep: CompactionPreparation, opts: PlanOptions): SummaryPlan {
  const { maxOutputTokens, safetyMarginTokens } = planLimits(opts);
  const serialize = { toolResultMaxChars: opts.toolResultMaxChars ?? prep.settings.toolResultMaxChars };
  const previous = prep.previousSummary !== null ? stripFileFooter(prep.previousSummary) : null;
  const common = { window: opts.window, maxOutputTokens, safetyMarginTokens, countText: opts.countText, serialize, system: SUMMARIZER_SYSTEM };

  // The preparation split one budget between the two summaries (estimatedTokensAfter relies on it); the summarizer may allow less.
  const historyMax = Math.max(1, Math.floor(Math.min(maxOutputTokens, prep.summaryBudget.history)));
  const format = { scratchpad: historyMax >= SCRATCHPAD_MIN_OUTPUT };
  const history = planSequence({
    ...common,
    maxOutputTokens: historyMax,
    items: prep.messagesToSummarize,
    previousSummary: previous,
    freshInstructions: initialInstructions(opts.customInstructions, format),
    updateInstructions: updateInstructions(opts.customInstructions, format),
    purpose: 'compaction',
  });
  const turnPrefix = prep.isSplitTurn
    ? planSequence({
        ...common,
        maxOutputTokens: Math.max(1, Math.floor(Math.min(maxOutputTokens, prep.summaryBudget.turnPrefix))),
        items: prep.turnPrefixMessages,
        previousSummary: null,
        freshInstructions: turnPrefixInstructions(opts.customInstructions),
        updateInstructions: TURN_PREFIX_CHAIN_NOTE + turnPrefixInstructions(opts.customInstructions),
        purpose: 'turn-prefix',
        chunkPurpose: 'turn-prefix',
      })
    : null;

  return {
    kind: 'compaction',
    history: history.steps,
    turnPrefix: turnPrefix?.steps ?? [],
    previousSummary: history.previousSummary,
    fileOps: prep.fileOps,
    footer: fileFooter(prep.fileOps),
    ...(opts.customInstructions?.trim() ? { customInstructions: opts.customInstructions.trim() } : {}),
    window: opts.window,
    maxOutputTokens,
    warnings: [...history.warnings, ...(turnPrefix?.warnings ?? [])],
  };
}
