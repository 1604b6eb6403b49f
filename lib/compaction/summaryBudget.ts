import { MESSAGE_OVERHEAD, compactionSummaryText } from '@/lib/tokens/entryText';
import { fileFooter } from './fileOps';
import { TURN_PREFIX_DIVIDER } from './prompts';
import type { FileLists, SummaryBudget } from './types';

/**
 * One output budget per compaction, decided when it is prepared: the history
 * summary and a split turn's prefix summary share it, and the text the app
 * adds around them (the summary framing the model receives, the split-turn
 * divider, the file lists) is counted on top. `estimatedTokensAfter` is the
 * kept tail plus this bound, so it holds however much the model writes: each
 * request's maxOutputTokens is its share.
 */

/** Room a structured summary needs (goal, progress, decisions, next steps) whatever the size of what it replaces. */
export const MIN_SUMMARY_TOKENS = 1024;

/** Tokens a join between two separately counted texts may add. */
const JOIN_SLACK = 2;

/** The turn prefix (one request and the work it started) gets at most this share of the budget when there is history too. */
const TURN_PREFIX_SHARE = 1 / 3;


export interface BudgetInput {
  /** The settings' output budget (summaryOutputBudget). */
  outputBudget: number;
  /** Most the whole summary entry may take (compaction limit − kept tail) when the window is known. */
  room?: number;
  /** Tokens of the previous summary this one updates (0 without one). */
  previousSummaryTokens: number;
  historyTokens: number;
  turnPrefixTokens: number;
  isSplitTurn: boolean;
  fileOps: FileLists;
  countText?: (text: string) => number;
}

/** A summary needs no more room than what it replaces, but at least enough for its structure. */
function need(inputTokens: number, budget: number): number {
  return Math.min(budget, Math.max(MIN_SUMMARY_TOKENS, inputTokens));
}

/**
 * Without the chat model's tokenizer, 3 characters per token: the framing is
 * English prose and the footer file paths, both above 3.5 characters per
 * token in o200k and cl100k.
 */
const roughTokens = (text: string) => Math.ceil(text.length / 3);

export function summaryBudget(b: BudgetInput): SummaryBudget {
  const count = b.countText ?? roughTokens;
  const fixedText = compactionSummaryText('') + (b.isSplitTurn ? TURN_PREFIX_DIVIDER : '') + '\n\n' + fileFooter(b.fileOps);
  // Counted apart, the pieces can miss a token or two where the tokenizer merges across a join.
  const joins = b.isSplitTurn ? 4 : 3;
  const fixed = count(fixedText) + MESSAGE_OVERHEAD + joins * JOIN_SLACK;
  let total = b.outputBudget;
  // Over the limit with a large kept tail, the summary gets what is left under the limit (never less than its minimum).
  // Output budgets are whole tokens (a request with a fractional maxOutputTokens is refused); the room comes from calibrated counts.
  if (b.room !== undefined) total = Math.max(Math.min(total, MIN_SUMMARY_TOKENS), Math.min(total, Math.floor(b.room - fixed)));
  total = Math.floor(total);
  const hasHistory = b.historyTokens > 0;
  let history = 0;
  let turnPrefix = 0;
  let carried = 0;
  if (!b.isSplitTurn) {
    history = need(b.previousSummaryTokens + b.historyTokens, total);
  } else if (!hasHistory) {
    // Only the turn prefix is new: the previous summary stays as it is and the prefix summary follows it.
    carried = b.previousSummaryTokens;
    turnPrefix = need(b.turnPrefixTokens, Math.max(Math.min(total, MIN_SUMMARY_TOKENS), total - carried));
  } else {
    turnPrefix = need(b.turnPrefixTokens, Math.max(1, Math.floor(total * TURN_PREFIX_SHARE)));
    history = need(b.previousSummaryTokens + b.historyTokens, total - turnPrefix);
  }
  return { history, turnPrefix, carried, fixed, total: fixed + carried + history + turnPrefix };
}
