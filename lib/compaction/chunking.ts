import type { EntryId } from '@/lib/session/types';
import { ITEM_SEPARATOR, groupItems, serializeItem, truncateMiddle, type SerializeOptions } from './serialize';
import { wrapConversation, wrapPrevious } from './prompts';
import type { PlanStep, SummaryItem, SummaryPurpose } from './types';

/**
 * Splitting a transcript into summarizer requests that each fit the
 * summarizer's window (aura's chunked compaction): chunks are summarised in
 * order, each one updating the summary of the chunk before. All token
 * counting of a summary happens here, at plan time, in the worker; running a
 * plan only concatenates strings.
 */

export type CountText = (text: string) => number;

const TRUNCATE_WHY = "cut to fit the summarizer's window";

/**
 * `text` cut (head and tail kept, marker in between) to at most `maxTokens`.
 * Binary search over the kept length: tokenizers are not linear in characters.
 */
export function truncateToTokens(text: string, maxTokens: number, countText: CountText): string {
  if (countText(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length - 1;
  let best = truncateMiddle(text, 0, TRUNCATE_WHY);
  // A budget smaller than the full marker would otherwise get the marker anyway, and a step planned to fit
  // would go over the window: a shorter note, or nothing, keeps every cut text within its budget.
  if (countText(best) > maxTokens) return [`[… ${text.length} characters cut …]`, '[…]'].find((m) => countText(m) <= maxTokens) ?? '';
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const candidate = truncateMiddle(text, mid, TRUNCATE_WHY);
    if (countText(candidate) <= maxTokens) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

interface SerializedGroup {
  ids: EntryId[];
  texts: string[];
  tokens: number[];
}

export interface SequenceSpec {
  items: readonly SummaryItem[];
  /** Input previous summary for the first step (null: none). */
  previousSummary: string | null;
  system: string;
  /** Instructions for a step without / with a previous-summary block. */
  freshInstructions: string;
  updateInstructions: string;
  /** Purpose of the last step; earlier steps of a chunked sequence are 'chunk' unless `chunkPurpose` says otherwise. */
  purpose: SummaryPurpose;
  chunkPurpose?: SummaryPurpose;
  window: number;
  maxOutputTokens: number;
  safetyMarginTokens: number;
  countText: CountText;
  serialize: SerializeOptions;
}

export interface SequencePlan {
  steps: PlanStep[];
  /** The previous summary as it will be sent (possibly cut to fit). */
  previousSummary: string | null;
  warnings: string[];
}

/** Smallest transcript share a request may have; below this the window is too small to summarise anything. */
const MIN_TRANSCRIPT_TOKENS = 64;

export class SummaryPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummaryPlanError';
  }
}

/** Fits one tool-call group (or a lone message) into `budget` by cutting its largest members first (water-filling). */
function fitGroup(g: SerializedGroup, budget: number, sepTokens: number, countText: CountText): { group: SerializedGroup; truncated: number } {
  const k = g.texts.length;
  const total = g.tokens.reduce((a, b) => a + b, 0) + sepTokens * k;
  if (total <= budget) return { group: g, truncated: 0 };
  let remaining = Math.max(0, budget - sepTokens * k);
  const order = g.tokens.map((t, i) => [t, i] as const).sort((a, b) => a[0] - b[0]);
  const alloc = new Array<number>(k).fill(0);
  let left = k;
  for (const [t, i] of order) {
    const share = Math.floor(remaining / left);
    alloc[i] = Math.min(t, share);
    remaining -= alloc[i]!;
    left--;
  }
  const texts = [...g.texts];
  const tokens = [...g.tokens];
  let truncated = 0;
  for (let i = 0; i < k; i++) {
    if (alloc[i]! < g.tokens[i]!) {
      texts[i] = truncateToTokens(g.texts[i]!, alloc[i]!, countText);
      tokens[i] = countText(texts[i]!);
      truncated++;
    }
  }
  return { group: { ids: g.ids, texts, tokens }, truncated };
}

/**
 * Plans the sequential requests for one transcript. The first request carries
 * the input previous summary (if any); each later one carries the previous
 * request's output, whose size is bounded by maxOutputTokens, so the planner
 * reserves exactly that much for it.
 */
export function planSequence(spec: SequenceSpec): SequencePlan {
  const { countText, window } = spec;
  const warnings: string[] = [];
  const maxOut = spec.maxOutputTokens;
  const sepTokens = Math.max(1, countText(ITEM_SEPARATOR));
  const sysT = countText(spec.system);
  const convWrapT = countText(wrapConversation(''));
  const prevWrapT = countText(wrapPrevious(''));
  const freshT = countText(spec.freshInstructions);
  const updateT = countText(spec.updateInstructions);

  let previousSummary = spec.previousSummary;
  const fixed = (instrT: number) => window - maxOut - spec.safetyMarginTokens - sysT - convWrapT - instrT;

  let firstPrevT = 0;
  if (previousSummary !== null) {
    firstPrevT = prevWrapT + countText(previousSummary);
    const avail = fixed(updateT) - prevWrapT;
    const minTranscript = Math.max(MIN_TRANSCRIPT_TOKENS, Math.floor(avail / 3));
    if (avail - (firstPrevT - prevWrapT) < minTranscript) {
      const allowed = avail - minTranscript;
      if (allowed < MIN_TRANSCRIPT_TOKENS) throw new SummaryPlanError(`The summarizer's window (${window} tokens) is too small for the prompt and previous summary.`);
      previousSummary = truncateToTokens(previousSummary, allowed, countText);
      firstPrevT = prevWrapT + countText(previousSummary);
      warnings.push(`The previous summary was cut to ${allowed} tokens to fit the summarizer's window.`);
    }
  }
  const chainBudget = fixed(updateT) - prevWrapT - maxOut;
  const budgetFor = (stepIndex: number): number => {
    if (stepIndex === 0) return previousSummary !== null ? fixed(updateT) - firstPrevT : fixed(freshT);
    return chainBudget;
  };
  if (budgetFor(0) < MIN_TRANSCRIPT_TOKENS) throw new SummaryPlanError(`The summarizer's window (${window} tokens) is too small for the summary prompt.`);

  const groups: SerializedGroup[] = groupItems(spec.items).map((g) => {
    const texts = g.map((it) => serializeItem(it, spec.serialize));
    return { ids: g.map((it) => it.entryId), texts, tokens: texts.map((t) => countText(t)) };
  });

  interface Draft {
    ids: EntryId[];
    texts: string[];
    tokens: number;
    truncated: number;
  }
  const drafts: Draft[] = [];
  let cur: Draft = { ids: [], texts: [], tokens: 0, truncated: 0 };
  for (const g0 of groups) {
    let budget = budgetFor(drafts.length);
    const gTokens = g0.tokens.reduce((a, b) => a + b, 0) + sepTokens * g0.texts.length;
    if (cur.texts.length > 0 && cur.tokens + gTokens > budget) {
      drafts.push(cur);
      cur = { ids: [], texts: [], tokens: 0, truncated: 0 };
      budget = budgetFor(drafts.length);
    }
    if (budget < MIN_TRANSCRIPT_TOKENS) throw new SummaryPlanError(`The summarizer's window (${window} tokens) leaves no room for a chunk.`);
    const { group, truncated } = fitGroup(g0, budget, sepTokens, countText);
    cur.ids.push(...group.ids);
    cur.texts.push(...group.texts);
    cur.tokens += group.tokens.reduce((a, b) => a + b, 0) + sepTokens * group.texts.length;
    cur.truncated += truncated;
  }
  if (cur.texts.length > 0) drafts.push(cur);

  const chunkPurpose = spec.chunkPurpose ?? 'chunk';
  const steps: PlanStep[] = drafts.map((d, i) => {
    const previous: PlanStep['previous'] = i === 0 ? (previousSummary !== null ? 'input' : 'none') : 'chain';
    const instructions = previous === 'none' ? spec.freshInstructions : spec.updateInstructions;
    const prevT = previous === 'input' ? firstPrevT : previous === 'chain' ? prevWrapT + maxOut : 0;
    return {
      purpose: i === drafts.length - 1 ? spec.purpose : chunkPurpose,
      system: spec.system,
      previous,
      transcript: d.texts.join(ITEM_SEPARATOR),
      instructions,
      maxOutputTokens: maxOut,
      entryIds: d.ids,
      truncatedItems: d.truncated,
      inputTokens: sysT + prevT + convWrapT + d.tokens + countText(instructions),
    };
  });
  if (drafts.length > 1) warnings.push(`The transcript was split into ${drafts.length} chunks summarised one after another.`);
  return { steps, previousSummary, warnings };
}
