import { describe, expect, it } from 'vitest';
import { summarizeBranch, planBranchSummary } from '@/lib/branch/summarize';
import { prepareBranchSummary } from '@/lib/branch/prepare';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { countText, entryTokens, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact } from './compact';
import { EXTRACTIVE_LABEL, fallbackLabel } from './extractive';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import type { SummaryEngine } from './produce';

/**
 * Issue 17, item 7: an empty summary, one cut off at the output limit, or one
 * larger than what it replaces is never appended. One retry with a tighter
 * budget, then the extractive summary, labelled as a fallback.
 */

const { path } = loadSession('piV1');
// A real region of the pi session: its first 80 messages, compacted with a small keep-recent (a clean cut: one request per attempt).
const sub = path.filter((e) => e.type === 'message').slice(0, 80);
// Prepared inside each test, not when the file is collected: code run at collection counts as
// module-level for mutation testing, which then reruns every test for each of its mutants.
function region() {
  const prep = prepareCompaction(sub, pathTokens(sub), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 1000 })!;
  return { prep, spanTokens: prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens };
}
const RETRY_NOTE = 'IMPORTANT: a previous attempt at this summary was rejected';

function engine(reply: Parameters<typeof scriptedModel>[0]) {
  const { model, calls } = scriptedModel(reply);
  const plan = planSummary(region().prep, { window: 128_000, maxOutputTokens: 4000, countText });
  return { calls, engine: { kind: 'model', summarizer: languageModelSummarizer(model), plan } satisfies SummaryEngine };
}

const GOOD = '## Goal\nShip the compaction hooks.\n\n## Next Steps\n1. Run the checks.';

describe('a model that echoes or ignores the format never becomes the summary', () => {
  it('an echo of the request, twice: the labelled extractive summary is stored instead, and no framing tag survives', async () => {
    const { prep } = region();
    const { calls, engine: e } = engine(({ prompt }) => `Stub reply to: ${prompt.slice(0, 600)}`);
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain('it repeated the request instead of summarising it');
    expect(r.details.fallback).toEqual({ model: 'mock:summarizer', reason: 'echo', attempts: 2 });
    expect(r.summary).not.toMatch(/<\/?(?:conversation|previous-summary)>|Stub reply to/);
  });

  it('a reply to the conversation instead of a summary: retried with the format restated, and the structured retry is kept', async () => {
    const { prep } = region();
    const { calls, engine: e } = engine(({ call }) => (call === 1 ? 'Sure! I will add the hooks now and run the checks afterwards.' : GOOD));
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain('it did not have the sections a summary needs');
    expect(r.details.fallback).toBeUndefined();
    expect(r.summary.startsWith(GOOD)).toBe(true);
  });

  it('the scratchpad a model was asked for is removed before the summary is stored', async () => {
    const { prep } = region();
    const { engine: e } = engine(() => `<analysis>\n1. The user asked for hooks.\n</analysis>\n\n<summary>\n${GOOD}\n</summary>`);
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(r.summary.startsWith(GOOD)).toBe(true);
    expect(r.summary).not.toContain('The user asked for hooks');
  });
});

describe('a bad model summary is never appended', () => {
  it('the region is a real one: user requests, tool work, a span of thousands of tokens, a clean cut', () => {
    const { prep, spanTokens } = region();
    expect(prep.messagesToSummarize.filter((i) => i.kind === 'message' && i.message.role === 'user').length).toBeGreaterThanOrEqual(2);
    expect(spanTokens).toBeGreaterThan(5000);
    expect(prep.isSplitTurn).toBe(false);
  });

  it('empty twice: retried once, then the extractive fallback, labelled with the model and the reason', async () => {
    const { prep } = region();
    const { calls, engine: e } = engine(() => '  ');
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain(RETRY_NOTE);
    expect(r.details.summarizer).toEqual({ kind: 'extractive' });
    expect(r.details.fallback).toEqual({ model: 'mock:summarizer', reason: 'empty', attempts: 2 });
    expect(r.summary.startsWith(fallbackLabel(r.details.fallback!))).toBe(true);
    expect(r.summary).toContain('came back empty');
    expect(r.summary.startsWith(EXTRACTIVE_LABEL)).toBe(false);
    // What the two rejected requests cost is kept.
    expect(r.details.usage?.input).toBe(calls.reduce((a, c) => a + countText(c.system + c.prompt), 0));
  });

  it('empty once, then a good summary: the retry is used and no fallback is recorded', async () => {
    const { prep } = region();
    const { calls, engine: e } = engine(({ call }) => (call === 1 ? '' : GOOD));
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(r.summary.startsWith(GOOD)).toBe(true);
    expect(r.details.summarizer).toEqual({ kind: 'model', model: 'mock:summarizer' });
    expect(r.details.fallback).toBeUndefined();
  });

  it('cut off at the output limit: retried with a smaller target; cut off again → fallback (reason "length")', async () => {
    const { prep } = region();
    const { calls, engine: e } = engine(() => `${GOOD}\n${'detail '.repeat(20_000)}`);
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(calls[0]!.output.startsWith(GOOD)).toBe(true);
    expect(calls[1]!.prompt).toContain('because it was cut off at the output limit');
    // The note asks for half the first budget, and the cap leaves head-room above that.
    expect(calls[1]!.prompt).toMatch(/at most about 2000 tokens/);
    expect(calls[1]!.maxOutputTokens).toBeLessThanOrEqual(calls[0]!.maxOutputTokens!);
    expect(r.details.fallback).toEqual({ model: 'mock:summarizer', reason: 'length', attempts: 2 });
    expect(r.summary).not.toContain('detail detail');
  });

  it('larger than what it replaces: retried under the span; a model that follows the note is accepted', async () => {
    const { prep, spanTokens } = region();
    const { calls, engine: e } = engine(({ prompt }) => (prompt.includes(RETRY_NOTE) ? GOOD : `${GOOD}\n${'padding '.repeat(Math.ceil(spanTokens * 1.2))}`));
    // A cap high enough that the oversized first answer is not cut off: its only flaw is its size.
    e.plan = { ...e.plan, maxOutputTokens: spanTokens * 3, history: e.plan.history.map((s) => ({ ...s, maxOutputTokens: spanTokens * 3 })) };
    const r = (await compact(prep, e, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(countText(calls[0]!.output)).toBeGreaterThan(spanTokens);
    expect(calls[1]!.prompt).toContain('because it was larger than the conversation it replaces');
    expect(calls[1]!.maxOutputTokens).toBeLessThan(spanTokens);
    expect(r.details.fallback).toBeUndefined();
    expect(r.summary.startsWith(GOOD)).toBe(true);
    expect(countText(r.summary)).toBeLessThan(spanTokens);
  });

  it('larger twice → fallback (reason "larger"), and the fallback itself is smaller than the span', async () => {
    const { prep, spanTokens } = region();
    const { calls, engine: e } = engine(() => `${GOOD}\n${'padding '.repeat(Math.ceil(spanTokens * 1.2))}`);
    e.plan = { ...e.plan, maxOutputTokens: spanTokens * 3, history: e.plan.history.map((s) => ({ ...s, maxOutputTokens: spanTokens * 3 })) };
    const stubborn = { ...e, summarizer: { ...e.summarizer, complete: (req: Parameters<typeof e.summarizer.complete>[0], o: Parameters<typeof e.summarizer.complete>[1]) => e.summarizer.complete({ ...req, maxOutputTokens: spanTokens * 3 }, o) } };
    const r = (await compact(prep, stubborn, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(r.details.fallback).toEqual({ model: 'mock:summarizer', reason: 'larger', attempts: 2 });
    expect(countText(r.summary)).toBeLessThan(spanTokens);
  });

  it('branch summaries go through the same check', async () => {
    const branch = prepareBranchSummary(sub, { tokensOf: entryTokens, budget: 0 })!;
    const { model, calls } = scriptedModel(() => '');
    const plan = planBranchSummary(branch, { window: 128_000, maxOutputTokens: 4000, countText });
    const r = (await summarizeBranch(branch, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { countTokens: countText }))!;
    expect(calls).toHaveLength(2);
    expect(r.details.fallback).toEqual({ model: 'mock:summarizer', reason: 'empty', attempts: 2 });
    expect(r.summary).toContain('## Where this branch stood');
  });
});
