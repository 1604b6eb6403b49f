import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import type { FixtureName } from '@/lib/testing/fixtures';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { MESSAGE_OVERHEAD, compactionSummaryText } from '@/lib/tokens/entryText';
import { compact } from './compact';
import { planSummary } from './plan';
import { prepareCompaction, summaryOutputBudget } from './prepare';
import type { CompactionPreparation, PlanStep } from './types';

/**
 * Issue 17, item 3: the history summary and a split turn's prefix summary
 * share one output budget, so `estimatedTokensAfter` (what the preview
 * promises as "at most", and what the over-limit rule relies on) is a true
 * upper bound even when the model writes as much as it is allowed to.
 */

const settings = DEFAULT_COMPACTION_SETTINGS;
/** Called where needed, not at collection: code run at collection counts as module-level for mutation testing. */
const budgetOf = () => summaryOutputBudget(settings);
/** A summarizer window large enough that the planner does not lower the budget (13,107 tokens here). */
const SUMMARIZER_WINDOW = 200_000;

const maxOut = (steps: readonly PlanStep[]) => Math.max(0, ...steps.map((s) => s.maxOutputTokens));

/** The compaction entry's tokens as the app counts them: the framed summary plus the message overhead. */
const entryTokens = (summary: string) => countText(compactionSummaryText(summary)) + MESSAGE_OVERHEAD;

/** Every prefix of the path where a split-turn compaction is prepared, at a few windows. */
function splitPreparations(path: readonly SessionEntry[], windows: number[], stride: number): { sub: SessionEntry[]; p: CompactionPreparation }[] {
  const out: { sub: SessionEntry[]; p: CompactionPreparation }[] = [];
  for (let n = 2; n <= path.length; n += stride) {
    const sub = path.slice(0, n);
    for (const window of windows) {
      const p = prepareCompaction(sub, pathTokens(sub), settings, { window, countText });
      if (p?.isSplitTurn) out.push({ sub, p });
    }
  }
  return out;
}

describe('split-turn summaries share one budget', () => {
  it.each([
    ['sweTraj', [16_384 + 8_000, 32_768], 1],
    ['piV1', [32_768, 65_536], 41],
  ] as [FixtureName, number[], number][])('%s: history and turn-prefix output budgets sum to at most the summary budget', (name, windows, stride) => {
    const { path } = loadSession(name);
    const preps = splitPreparations(path, windows, stride);
    expect(preps.length).toBeGreaterThan(3);
    for (const { p } of preps) {
      const plan = planSummary(p, { window: SUMMARIZER_WINDOW, maxOutputTokens: budgetOf(), countText });
      expect(plan.turnPrefix.length).toBeGreaterThan(0);
      expect(maxOut(plan.history) + maxOut(plan.turnPrefix)).toBeLessThanOrEqual(budgetOf());
    }
  });

  it('real SWE trajectory: a model writing to its limit still lands at or under estimatedTokensAfter', async () => {
    const { path } = loadSession('sweTraj');
    const preps = splitPreparations(path, [32_768], 5);
    expect(preps.length).toBeGreaterThan(0);
    for (const { p } of preps) {
      const plan = planSummary(p, { window: SUMMARIZER_WINDOW, maxOutputTokens: budgetOf(), countText });
      // Writes far more than any budget; the scripted model stops at maxOutputTokens like a real one.
      const { model, calls } = scriptedModel(() => 'lorem ipsum dolor sit amet, '.repeat(8000));
      const r = (await compact(p, { kind: 'model', summarizer: languageModelSummarizer(model), plan }))!;
      for (const c of calls) expect(countText(c.output)).toBe(c.maxOutputTokens);
      expect(p.tokensKept + entryTokens(r.summary)).toBeLessThanOrEqual(p.estimatedTokensAfter);
    }
  });

  it('the promised bound holds for the extractive summary too (pi session, 32k window)', async () => {
    const { path } = loadSession('piV1');
    for (const { p } of splitPreparations(path, [32_768], 37)) {
      const r = (await compact(p, { kind: 'extractive' }))!;
      expect(p.tokensKept + entryTokens(r.summary)).toBeLessThanOrEqual(p.estimatedTokensAfter);
    }
  });
});

describe('output budgets are whole tokens', () => {
  it('real pi session with a calibrated (fractional) request overhead: every planned request asks for a whole number of tokens', () => {
    const { path } = loadSession('piV1');
    let steps = 0;
    for (let n = 40; n <= path.length; n += 97) {
      const sub = path.slice(0, n);
      const p = prepareCompaction(sub, pathTokens(sub), settings, { window: 32_768, requestTokens: 41.37, countText });
      if (!p) continue;
      for (const v of Object.values(p.summaryBudget)) expect(Number.isInteger(v), JSON.stringify(p.summaryBudget)).toBe(true);
      const plan = planSummary(p, { window: SUMMARIZER_WINDOW, maxOutputTokens: budgetOf(), countText });
      for (const step of [...plan.history, ...plan.turnPrefix]) {
        expect(Number.isInteger(step.maxOutputTokens)).toBe(true);
        steps++;
      }
    }
    expect(steps).toBeGreaterThan(5);
  });
});
