import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { MESSAGE_OVERHEAD, compactionSummaryText } from '@/lib/tokens/entryText';
import { compact } from './compact';
import { planSummary } from './plan';
import { prepareCompaction, summaryOutputBudget } from './prepare';
import type { CompactionPreparation } from './types';
import { mergedUserMessages, splitUserMessages } from './userMessages';

/**
 * Issue 17, items 3 and 8 together: the user-messages section the app appends
 * to a model summary is part of the compaction's one budget, so
 * `estimatedTokensAfter` stays a true upper bound when the model writes all
 * it is allowed to, and the section still carries every user message of the
 * span.
 */

const settings = DEFAULT_COMPACTION_SETTINGS;
/** Large enough that the planner does not lower the preparation's budgets. */
const SUMMARIZER_WINDOW = 200_000;

const entryTokens = (summary: string) => countText(compactionSummaryText(summary)) + MESSAGE_OVERHEAD;

/**
 * Compactions prepared at prefixes of the real pi session that summarise user
 * messages, and whose full budget is still smaller than what they replace (so
 * a model summary written to the limit is accepted, not judged too large).
 */
function preparations(window: number, stride: number): CompactionPreparation[] {
  const { path } = loadSession('piV1');
  const out: CompactionPreparation[] = [];
  for (let n = 60; n <= path.length; n += stride) {
    const sub = path.slice(0, n);
    const p = prepareCompaction(sub, pathTokens(sub), settings, { window, countText });
    if (!p || mergedUserMessages(p.previousSummary, [...p.messagesToSummarize, ...p.turnPrefixMessages]).length === 0) continue;
    if (p.summaryBudget.total < p.tokensSummarized + p.tokensTurnPrefix + p.previousSummaryTokens) out.push(p);
  }
  return out;
}

describe('the user-messages section shares the compaction budget', () => {
  it.each([32_768, 131_072])(
    'real pi session, %i window: a model writing exactly its maxOutputTokens lands at or under estimatedTokensAfter, and the section holds every user message',
    async (window) => {
      const preps = preparations(window, 71);
      expect(preps.length).toBeGreaterThan(3);
      for (const p of preps) {
        const plan = planSummary(p, { window: SUMMARIZER_WINDOW, maxOutputTokens: summaryOutputBudget(settings), countText });
        // Stops right at its limit and reports a normal finish: the largest summary that is accepted.
        const { model, calls } = scriptedModel(() => '## Goal\n' + 'lorem ipsum dolor sit amet, '.repeat(10_000), { stopAtLimit: true, deltaChars: 1 << 20 });
        const r = (await compact(p, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { countTokens: countText }))!;
        expect(r.details.summarizer.kind).toBe('model');
        for (const c of calls) expect(countText(c.output)).toBe(c.maxOutputTokens);
        expect(p.tokensKept + entryTokens(r.summary), `prepared at ${p.leafId}`).toBeLessThanOrEqual(p.estimatedTokensAfter);

        const span = mergedUserMessages(p.previousSummary, [...p.messagesToSummarize, ...p.turnPrefixMessages]);
        const got = splitUserMessages(r.summary).records;
        expect(got).toHaveLength(span.length);
        // The newest is verbatim; the others verbatim or by their first line.
        expect(got.at(-1)).toEqual(span.at(-1));
        got.forEach((g, i) => {
          const s = span[i]!;
          if (g.full) expect(g.text).toBe(s.text);
          else expect(s.text.split('\n').find((l) => l.trim())!.trim().startsWith(g.text.replace(/…$/, ''))).toBe(true);
        });
        // Newest first: a message newer than a verbatim one is shortened only because it is longer.
        const verbatim = got.flatMap((g, i) => (g.full && span[i]!.full ? [i] : []));
        const oldest = Math.min(...verbatim);
        for (let i = oldest + 1; i < got.length; i++) if (!got[i]!.full && span[i]!.full) expect(span[i]!.text.length).toBeGreaterThan(span[oldest]!.text.length);
      }
    },
  );
});
