import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { planLimits, planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { turnPrefixInstructions } from './prompts';
import type { CompactionPreparation } from './types';

/** The plan of a split turn whose prefix needs more than one request, on the real pi session. */

function largestSplitTurn(): CompactionPreparation {
  const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
  let best: CompactionPreparation | null = null;
  for (let n = 40; n < messages.length; n += 7) {
    const sub = messages.slice(0, n) as SessionEntry[];
    const p = prepareCompaction(sub, pathTokens(sub), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2000 });
    if (p?.isSplitTurn && p.messagesToSummarize.length > 0 && (!best || p.tokensTurnPrefix > best.tokensTurnPrefix)) best = p;
  }
  if (!best) throw new Error('no split turn in the pi session');
  return best;
}

describe('planning a split turn', () => {
  it('a prefix too large for one request is chained: every step is a turn-prefix step, the later ones told it is the same turn', () => {
    const prep = largestSplitTurn();
    const window = 6000;
    const plan = planSummary(prep, { window, maxOutputTokens: 4000, countText });
    expect(plan.turnPrefix.length).toBeGreaterThan(1);
    expect(plan.turnPrefix.every((s) => s.purpose === 'turn-prefix')).toBe(true);
    expect(plan.turnPrefix[0]!.previous).toBe('none');
    expect(plan.turnPrefix[0]!.instructions).toBe(turnPrefixInstructions());
    for (const s of plan.turnPrefix.slice(1)) {
      expect(s.previous).toBe('chain');
      expect(s.instructions).toBe(`The <previous-summary> summarises the beginning of this same turn; the transcript continues it. Merge both into one turn summary.\n\n${turnPrefixInstructions()}`);
    }
    // History steps end with the compaction step; earlier ones are chunks.
    expect(plan.history.at(-1)!.purpose).toBe('compaction');
    for (const s of plan.history.slice(0, -1)) expect(s.purpose).toBe('chunk');
    // Each summary's requests are capped by its share of the preparation's budget and by a quarter of the window.
    for (const s of plan.history) expect(s.maxOutputTokens).toBe(Math.max(1, Math.floor(Math.min(window / 4, prep.summaryBudget.history))));
    for (const s of plan.turnPrefix) expect(s.maxOutputTokens).toBe(Math.max(1, Math.floor(Math.min(window / 4, prep.summaryBudget.turnPrefix))));
    for (const s of [...plan.history, ...plan.turnPrefix]) expect(s.inputTokens + s.maxOutputTokens).toBeLessThanOrEqual(window);
    expect(plan.warnings.some((w) => /split into \d+ chunks/.test(w))).toBe(true);
  });

  it('the limits: a quarter of the window at most, at least one token, and a margin of 32 + 2 % unless given', () => {
    expect(planLimits({ window: 10_000, maxOutputTokens: 9000 })).toEqual({ maxOutputTokens: 2500, safetyMarginTokens: 232 });
    expect(planLimits({ window: 10_000, maxOutputTokens: 100.9 })).toEqual({ maxOutputTokens: 100, safetyMarginTokens: 232 });
    expect(planLimits({ window: 10_001, maxOutputTokens: 0 })).toEqual({ maxOutputTokens: 1, safetyMarginTokens: 233 });
    expect(planLimits({ window: 10_000, maxOutputTokens: 500, safetyMarginTokens: 0 }).safetyMarginTokens).toBe(0);
    expect(() => planLimits({ window: 0, maxOutputTokens: 1 })).toThrow('window must be positive, got 0');
  });
});
