import { MESSAGE_OVERHEAD, compactionSummaryText } from '@/lib/tokens/entryText';
import { fileFooter } from './fileOps';
import { TURN_PREFIX_DIVIDER } from './prompts';
import type { FileLists, SummaryBudget } from './types';
import { renderUserMessages, userMessagesBudgetChars, type UserMessageRecord } from './userMessages';

/**
 * One output budget per compaction, decided when it is prepared: the history
 * summary and a split turn's prefix summary share it, and the text the app
 * adds around them (the summary framing the model receives, the split-turn
 * divider, the file lists) is counted on top. The user-messages section the
 * app appends to every model summary (userMessages.ts) is decided here too,
 * out of the same output budget, so `estimatedTokensAfter` (the kept tail plus
 * this bound) holds however much the model writes: each request's
 * maxOutputTokens is its share of what the section leaves.
 */

/** Room a structured summary needs (goal, progress, decisions, next steps) whatever the size of what it replaces. */
export const MIN_SUMMARY_TOKENS = 1024;

/** Tokens a join between two separately counted texts may add. */
const JOIN_SLACK = 2;

/** The turn prefix (one request and the work it started) gets at most this share of the budget when there is history too. */
const TURN_PREFIX_SHARE = 1 / 3;

/**
 * The user-messages section takes at most half of the output budget, and only
 * what it needs: what it leaves goes to the model. Half, because the section
 * is text the app already has (the newest messages verbatim hold the task in
 * hand, the rest cost a first line each), while the model's summary is the
 * only place for progress, decisions and file state, which must not be
 * starved: at the default budget either side gets some 6.5k tokens, about
 * what Codex keeps of user messages.
 */
const USER_MESSAGES_SHARE = 1 / 2;

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
  /** The user messages of the span (an earlier summary's included), oldest first: the section every model summary ends with. */
  userMessages?: readonly UserMessageRecord[];
  countText?: (text: string) => number;
}

/** The budget, and the user-messages section it has room for ('' without messages or room). */
export interface BudgetDecision {
  budget: SummaryBudget;
  userMessages: string;
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

/**
 * The section for `records` in at most `maxTokens` as `count` counts it
 * (joined to the summary by a blank line), and in at most `maxChars`. Rendered
 * by characters, so re-rendered smaller until the count fits: messages in
 * other scripts or code run below 4 characters per token.
 */
function fitUserMessages(records: readonly UserMessageRecord[], maxTokens: number, maxChars: number, count: (text: string) => number): { text: string; tokens: number } {
  let chars = Math.min(maxChars, maxTokens * 4);
  for (let i = 0; i < 8 && chars > 0; i++) {
    const text = renderUserMessages(records, chars);
    if (!text) break;
    const tokens = count(`\n\n${text}`) + JOIN_SLACK;
    if (tokens <= maxTokens) return { text, tokens };
    chars = Math.floor((chars * maxTokens * 0.95) / tokens);
  }
  return { text: '', tokens: 0 };
}

export function summaryBudget(b: BudgetInput): BudgetDecision {
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
  const records = b.userMessages ?? [];
  const span = b.previousSummaryTokens + b.historyTokens + b.turnPrefixTokens;
  const section = records.length ? fitUserMessages(records, Math.floor(total * USER_MESSAGES_SHARE), userMessagesBudgetChars(span), count) : { text: '', tokens: 0 };
  // The model's summaries share what the section leaves.
  const model = total - section.tokens;
  const hasHistory = b.historyTokens > 0;
  let history = 0;
  let turnPrefix = 0;
  let carried = 0;
  if (!b.isSplitTurn) {
    history = need(b.previousSummaryTokens + b.historyTokens, model);
  } else if (!hasHistory) {
    // Only the turn prefix is new: the previous summary stays as it is and the prefix summary follows it.
    carried = b.previousSummaryTokens;
    turnPrefix = need(b.turnPrefixTokens, Math.max(Math.min(model, MIN_SUMMARY_TOKENS), model - carried));
  } else {
    turnPrefix = need(b.turnPrefixTokens, Math.max(1, Math.floor(model * TURN_PREFIX_SHARE)));
    history = need(b.previousSummaryTokens + b.historyTokens, model - turnPrefix);
  }
  return {
    budget: { history, turnPrefix, carried, userMessages: section.tokens, fixed, total: fixed + section.tokens + carried + history + turnPrefix },
    userMessages: section.text,
  };
}
