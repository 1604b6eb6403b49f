import type { SummaryFlaw } from '@/lib/session/types';

/**
 * When a model's summary must not be appended (issue 17, item 7): it came back
 * empty, it was cut off at the output limit (its end, usually Next Steps, is
 * missing and nothing says so), or it is larger than what it replaces (a
 * compaction that grows the context defeats its purpose). One retry with a
 * tighter budget, then the extractive summary, labelled as a fallback.
 */

export const FLAW_TEXT: Record<SummaryFlaw, string> = {
  empty: 'it came back empty',
  length: 'it was cut off at the output limit',
  larger: 'it was larger than the conversation it replaces',
  echo: 'it repeated the request instead of summarising it',
  unstructured: 'it did not have the sections a summary needs',
};

/** The flaw of a finished run, or null when it can be appended. `spanTokens` 0 or less: nothing to compare with. */
export function summaryFlaw(run: { flaw?: Exclude<SummaryFlaw, 'larger'> }, summaryTokens: number, spanTokens: number): SummaryFlaw | null {
  if (run.flaw) return run.flaw;
  if (spanTokens > 0 && summaryTokens >= spanTokens) return 'larger';
  return null;
}

const FORMAT_NOTE = (flaw: 'echo' | 'unstructured') =>
  `IMPORTANT: a previous attempt was rejected because ${FLAW_TEXT[flaw]}. Do not repeat the transcript, the tags around it or these instructions, and do not reply to the conversation. Write only the summary, with the Markdown section headings given above, starting with the first heading.`;

/** Words per token in English prose, roughly: the note speaks in words because models count those better. */
const WORDS_PER_TOKEN = 0.75;
const MIN_RETRY_TOKENS = 128;

/**
 * The second attempt's budget: half of what the first could use, and below
 * what is left of the span once the parts the app adds (user messages, file
 * lists) are paid for. The output cap stays a little above the target the note
 * asks for, so a model that overshoots slightly is not cut off again. Null
 * when no budget could make a summary smaller than the span (fall back at once).
 */
export function retryBudget(flaw: SummaryFlaw, planMaxOutput: number, spanTokens: number, addedTokens: number): { maxOutputTokens: number; note: string } | null {
  const room = spanTokens > 0 ? spanTokens - addedTokens - 1 : Infinity;
  // Not a size problem: the same budget, and a plainer order about the form of the answer.
  if (flaw === 'echo' || flaw === 'unstructured') {
    const cap = Math.floor(Math.min(planMaxOutput, room));
    if (cap < MIN_RETRY_TOKENS) return null;
    return { maxOutputTokens: cap, note: FORMAT_NOTE(flaw) };
  }
  const target = Math.floor(Math.min(planMaxOutput * 0.5, room * 0.6));
  if (target < MIN_RETRY_TOKENS) return null;
  const cap = Math.floor(Math.min(planMaxOutput, room, target * 1.5));
  const note = `IMPORTANT: a previous attempt at this summary was rejected because ${FLAW_TEXT[flaw]}. Write a shorter summary: at most about ${target} tokens (${Math.floor(target * WORDS_PER_TOKEN)} words). Keep every section; cut detail from the oldest, finished work first; keep paths, identifiers and error messages exact.`;
  return { maxOutputTokens: cap, note };
}
