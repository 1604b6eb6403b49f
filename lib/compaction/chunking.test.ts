import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type EntryId, type SessionEntry } from '@/lib/session/types';
import { allLeafPaths, countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { SummaryPlanError, truncateToTokens } from './chunking';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { runSummaryPlan } from './run';
import { groupItems } from './serialize';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import type { CompactionPreparation, SummaryItem, SummaryPlan } from './types';

const WINDOW = 4000;

/** A summarizer that always writes as much as it is allowed to: the worst case for the next chained request. */
function verboseModel() {
  return scriptedModel(({ call }) => `## Goal\nchunk ${call}\n\n## Next Step\nGo on.\n\n## Findings and Names\n` + 'detail word '.repeat(1500), { deltaChars: 4096, stopAtLimit: true });
}

function owners(items: readonly SummaryItem[]): Map<string, EntryId> {
  const m = new Map<string, EntryId>();
  for (const it of items) {
    if (it.kind !== 'message' || it.message.role !== 'assistant') continue;
    for (const p of it.message.content) if (p.type === 'toolCall') m.set(p.id, it.entryId);
  }
  return m;
}

/** Every tool result lands in the same request as the assistant entry that made its call. */
function expectPairsTogether(items: readonly SummaryItem[], plan: SummaryPlan): number {
  const stepOf = new Map<EntryId, number>();
  [...plan.history, ...plan.turnPrefix].forEach((s, i) => s.entryIds.forEach((id) => stepOf.set(id, i)));
  const callOwner = owners(items);
  let pairs = 0;
  for (const it of items) {
    if (it.kind !== 'message' || it.message.role !== 'toolResult') continue;
    const owner = callOwner.get(it.message.toolCallId);
    if (!owner) continue;
    expect(stepOf.get(it.entryId), `${it.entryId} with ${owner}`).toBe(stepOf.get(owner));
    pairs++;
  }
  return pairs;
}

async function runAndMeasure(prep: CompactionPreparation) {
  const plan = planSummary(prep, { window: WINDOW, maxOutputTokens: 2000, countText });
  const { model, calls } = verboseModel();
  const out = await runSummaryPlan(plan, languageModelSummarizer(model));
  const steps = [...plan.history, ...plan.turnPrefix];
  expect(calls).toHaveLength(steps.length);
  calls.forEach((c, i) => {
    const input = countText(c.system) + countText(c.prompt);
    // The request fits the summarizer's window with its full output budget.
    expect(input + c.maxOutputTokens!, `request ${i + 1} of ${calls.length}`).toBeLessThanOrEqual(WINDOW);
    // The planner's figure is an upper bound of what was sent.
    expect(steps[i]!.inputTokens).toBeGreaterThanOrEqual(input - 8);
  });
  return { plan, calls, out };
}

describe('chunked summaries fit a small summarizer window', () => {
  it('pi session, first compaction region (~100k tokens) through a 4000-token window', async () => {
    const { path } = loadSession('piV1');
    const sub = path.slice(0, path.findIndex((e) => e.id === 'pi-669'));
    const prep = prepareCompaction(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS)!;
    const { plan, calls, out } = await runAndMeasure(prep);
    expect(plan.history.length).toBeGreaterThan(10);
    expect(plan.warnings.join(' ')).toMatch(/split into \d+ chunks/);
    // Chunks run in order, each updating the previous chunk's summary.
    expect(plan.history[0]!.previous).toBe('none');
    expect(plan.history.slice(1).every((s) => s.previous === 'chain')).toBe(true);
    expect(calls[1]!.prompt).toContain('chunk 1');
    expect(plan.history.slice(0, -1).every((s) => s.purpose === 'chunk')).toBe(true);
    expect(plan.history[plan.history.length - 1]!.purpose).toBe('compaction');
    // Every summarised entry went to exactly one request.
    const ids = plan.history.flatMap((s) => s.entryIds);
    expect(ids).toEqual(prep.messagesToSummarize.map((i) => i.entryId));
    expect(expectPairsTogether(prep.messagesToSummarize, plan)).toBeGreaterThan(100);
    expect(out.text).toContain('<modified-files');
  });

  it('SWE trajectory: a message larger than a chunk is cut with a marker; turn prefix chunked too', async () => {
    const { path } = loadSession('sweTraj');
    const prep = prepareCompaction(path, pathTokens(path), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2000 })!;
    expect(prep.isSplitTurn).toBe(true);
    const { plan } = await runAndMeasure(prep);
    // swe-1 (the ~4800-token demonstration) cannot fit a 4000-token window.
    const demo = plan.history.find((s) => s.entryIds.includes('swe-1'))!;
    expect(demo.truncatedItems).toBe(1);
    expect(demo.transcript).toMatch(/characters cut to fit the summarizer's window/);
    expect(plan.turnPrefix.length).toBeGreaterThan(1);
    expect(plan.turnPrefix.every((s) => s.purpose === 'turn-prefix')).toBe(true);
    expectPairsTogether(prep.turnPrefixMessages, plan);
  });

  it('Claude Code sub-agent paths: parallel calls written as separate entries stay with their results', () => {
    const s = loadSession('claudeViewer');
    let multi = 0;
    for (const path of allLeafPaths(s)) {
      const items: SummaryItem[] = path
        .filter((e): e is Extract<SessionEntry, { type: 'message' }> => e.type === 'message')
        .map((e) => ({ kind: 'message', entryId: e.id, message: e.message }));
      const callOwner = owners(items);
      for (const g of groupItems(items)) {
        const ids = new Set(g.map((i) => i.entryId));
        if (g.filter((i) => i.kind === 'message' && i.message.role === 'assistant').length > 1) multi++;
        for (const it of g) {
          if (it.kind !== 'message' || it.message.role !== 'toolResult') continue;
          const owner = callOwner.get(it.message.toolCallId);
          if (owner) expect(ids.has(owner)).toBe(true);
        }
      }
      // And whole plans over these paths keep the pairs together.
      const prep = prepareCompaction(path, pathTokens(path), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 500 });
      if (prep) expectPairsTogether([...prep.messagesToSummarize, ...prep.turnPrefixMessages], planSummary(prep, { window: WINDOW, maxOutputTokens: 1000, countText }));
    }
    expect(multi).toBeGreaterThan(0);
  });
});

describe('planner limits', () => {
  // Prepared inside each test, not when the file is collected: code run at collection counts as
  // module-level for mutation testing, which then reruns every test for each of its mutants.
  const preparation = () => {
    const { path } = loadSession('sweTraj');
    return prepareCompaction(path, pathTokens(path), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2000 })!;
  };

  it('refuses a window too small for the prompt itself', () => {
    expect(() => planSummary(preparation(), { window: 600, maxOutputTokens: 100, countText })).toThrow(SummaryPlanError);
  });

  it('caps the output budget at a quarter of the window', () => {
    const plan = planSummary(preparation(), { window: WINDOW, maxOutputTokens: 50_000, countText });
    expect(plan.maxOutputTokens).toBe(1000);
  });

  it('a previous summary too large for the window is cut, with a warning', () => {
    const big = { ...preparation(), previousSummary: 'Earlier: ' + 'fact '.repeat(6000) };
    const plan = planSummary(big, { window: WINDOW, maxOutputTokens: 1000, countText });
    expect(plan.warnings.join(' ')).toMatch(/previous summary was cut/);
    expect(countText(plan.previousSummary!)).toBeLessThan(WINDOW / 2);
    expect(plan.previousSummary!.startsWith('Earlier: fact')).toBe(true);
  });

  it('truncateToTokens keeps head and tail and never exceeds the limit', () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i}: value=${i * 7}`).join('\n');
    for (const max of [30, 100, 500]) {
      const t = truncateToTokens(text, max, countText);
      expect(countText(t)).toBeLessThanOrEqual(max);
      expect(t.startsWith('line 0')).toBe(true);
      if (max >= 100) expect(t).toContain('line 499');
      expect(t).toMatch(/characters cut to fit/);
    }
    expect(truncateToTokens('short', 10, countText)).toBe('short');
  });
});
