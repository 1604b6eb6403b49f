import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact } from './compact';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { TURN_PREFIX_DIVIDER, continuationInstructions } from './prompts';
import { joinSplitTurn, runSummaryPlan } from './run';
import { selfCheckSummary } from './selfCheck';
import type { TextSummarizer } from './summarizer';
import type { CompactionPreparation } from './types';

/** How a summary is produced around the model: hooks, plans with missing parts, the self-check's choice of transcript. */

/** The pi session's first 80 messages, compacted with a small keep-recent (a clean cut). */
function piPreparation(extra: Partial<CompactionPreparation['settings']> = {}): CompactionPreparation {
  const messages = loadSession('piV1').path.filter((e) => e.type === 'message').slice(0, 80);
  return prepareCompaction(messages, pathTokens(messages), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 1000, ...extra })!;
}

/** A split turn of the pi session: one request followed by long tool work, cut inside it. */
function piSplitTurn(): CompactionPreparation {
  const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
  for (let n = 40; n < messages.length; n += 3) {
    const sub = messages.slice(0, n) as SessionEntry[];
    const p = prepareCompaction(sub, pathTokens(sub), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2000 });
    if (p?.isSplitTurn && p.messagesToSummarize.length > 0) return p;
  }
  throw new Error('no split turn in the pi session');
}

const modelEngine = (prep: CompactionPreparation, reply: Parameters<typeof scriptedModel>[0]) => {
  const { model, calls } = scriptedModel(reply);
  return { calls, engine: { kind: 'model' as const, summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText }) } };
};

describe('hooks around a summary', () => {
  it('a hook without a name that throws is reported as "unnamed"; a supplied summary keeps the hook’s file lists and usage', async () => {
    const prep = piPreparation();
    const r = (await compact(prep, { kind: 'extractive' }, {
      hooks: [
        {
          beforeCompact: () => {
            throw new Error('boom');
          },
        },
        { beforeCompact: () => ({ summary: 'FROM HOOK', details: { readFiles: ['/hook/read'], modifiedFiles: ['/hook/mod'], usage: { input: 5, output: 7 } } }) },
      ],
    }))!;
    expect(r.warnings).toEqual(['The summary hook "unnamed" failed and was skipped: boom']);
    expect(r.summary).toBe('FROM HOOK');
    // Neither the hook nor the decision named itself: "hook".
    expect(r.details.summarizer).toEqual({ kind: 'hook', name: 'hook' });
    expect(r.details.readFiles).toEqual(['/hook/read']);
    expect(r.details.modifiedFiles).toEqual(['/hook/mod']);
    expect(r.details.usage).toEqual({ input: 5, output: 7 });
    // A decision's own name wins over the hook's; lists it does not give come from the preparation.
    const named = (await compact(prep, { kind: 'extractive' }, { hooks: { name: 'ext', beforeCompact: () => ({ summary: 'S', name: 'memory', details: { readFiles: [] } }) } }))!;
    expect(named.details.summarizer).toEqual({ kind: 'hook', name: 'memory' });
    expect(named.details.readFiles).toEqual([]);
    expect(named.details.modifiedFiles).toEqual(prep.fileOps.modifiedFiles);
    expect(named.details.usage).toBeUndefined();
  });

  it('a model fallback names the summarizer, or "model" when it is not one', async () => {
    const prep = piPreparation();
    const { engine } = modelEngine(prep, () => '');
    const anonymous: TextSummarizer = { ...engine.summarizer, info: { kind: 'extractive' } };
    const r = (await compact(prep, { ...engine, summarizer: anonymous }, { countTokens: countText }))!;
    expect(r.details.fallback).toMatchObject({ model: 'model', reason: 'empty', attempts: 2 });
  });

  it('custom instructions reach the plan trimmed, and a fallback keeps them', async () => {
    const prep = piPreparation();
    const { model, calls } = scriptedModel(() => '');
    const plan = planSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText, customInstructions: '  focus on the CLI flags \n' });
    expect(plan.customInstructions).toBe('focus on the CLI flags');
    expect(planSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText, customInstructions: '   ' }).customInstructions).toBeUndefined();
    const r = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { countTokens: countText }))!;
    expect(calls[0]!.prompt).toContain('Additional focus requested by the user (apply it while keeping all sections):\nfocus on the CLI flags');
    expect(r.details.fallback?.reason).toBe('empty');
    expect(r.details.customInstructions).toBe('focus on the CLI flags');
  });
});

describe('plans with a missing part', () => {
  it('a split turn with no new history: the previous summary stands as the history text, the prefix follows the divider', async () => {
    const prep = piSplitTurn();
    const { calls, engine } = modelEngine(prep, ({ call }) => `## Goal\nSummary ${call}`);
    const plan = { ...engine.plan, history: [], previousSummary: 'EARLIER SUMMARY' };
    const run = await runSummaryPlan(plan, engine.summarizer);
    expect(run.historyText).toBe('EARLIER SUMMARY');
    expect(run.text.startsWith(`EARLIER SUMMARY${TURN_PREFIX_DIVIDER}## Goal\nSummary 1`)).toBe(true);
    expect(calls).toHaveLength(plan.turnPrefix.length);
    const none = await runSummaryPlan({ ...plan, previousSummary: null }, engine.summarizer);
    expect(none.historyText).toBe('');
    expect(none.text.startsWith(`${TURN_PREFIX_DIVIDER.trimStart()}## Goal\nSummary`)).toBe(true);
  });

  it('joining: a history alone is itself; a prefix alone starts with the divider, without leading blank lines', () => {
    expect(joinSplitTurn('H', '')).toBe('H');
    expect(joinSplitTurn('', 'P')).toBe(`${TURN_PREFIX_DIVIDER.trimStart()}P`);
    expect(joinSplitTurn('', 'P').startsWith('---')).toBe(true);
    expect(joinSplitTurn('H', 'P')).toBe(`H${TURN_PREFIX_DIVIDER}P`);
  });

  it('a retry note follows every step’s instructions and caps its output', async () => {
    const prep = piSplitTurn();
    const { calls, engine } = modelEngine(prep, () => '## Goal\nS');
    await runSummaryPlan(engine.plan, engine.summarizer, { tighten: { maxOutputTokens: 50, note: 'BE BRIEF' } });
    expect(calls.length).toBe(engine.plan.history.length + engine.plan.turnPrefix.length);
    for (const c of calls) {
      expect(c.prompt.endsWith('\n\nBE BRIEF')).toBe(true);
      expect(c.maxOutputTokens).toBe(50);
    }
  });
});

describe('self-check', () => {
  it('checks against the last history step, or the turn prefix when there is no history; without steps it asks nothing', async () => {
    const prep = piSplitTurn();
    const { calls, engine } = modelEngine(prep, () => 'NO CHANGES.');
    const lastHistory = engine.plan.history.at(-1)!;
    const r = await selfCheckSummary(engine.plan, engine.summarizer, 'BODY');
    expect(r).toMatchObject({ body: 'BODY', patched: false });
    expect(calls[0]!.prompt).toContain(lastHistory.transcript);
    expect(calls[0]!.maxOutputTokens).toBe(engine.plan.maxOutputTokens);
    const prefixOnly = { ...engine.plan, history: [] };
    await selfCheckSummary(prefixOnly, engine.summarizer, 'BODY');
    expect(calls[1]!.prompt).toContain(engine.plan.turnPrefix.at(-1)!.transcript);
    const empty = await selfCheckSummary({ ...prefixOnly, turnPrefix: [] }, engine.summarizer, 'BODY');
    expect(empty).toEqual({ body: 'BODY', patched: false });
    expect(calls).toHaveLength(2);
    const aborted = new AbortController();
    aborted.abort();
    await expect(selfCheckSummary(engine.plan, engine.summarizer, 'BODY', { signal: aborted.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(2);
  });

  it('a patch counted without the chat tokenizer (4 characters a token) is refused when not smaller than the span', async () => {
    const prep = piPreparation({ selfCheck: true });
    const span = prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens;
    const isCheck = (p: string) => p.includes('Check it critically against the transcript');
    const { engine } = modelEngine(prep, ({ prompt }) => (isCheck(prompt) ? `## Goal\n${'detail '.repeat(span)}` : '## Goal\nShort.'));
    const r = (await compact(prep, engine))!;
    expect(r.details.selfCheck?.patched).toBe(false);
    expect(r.summary.startsWith('## Goal\nShort.')).toBe(true);
    const small = modelEngine(prep, ({ prompt }) => (isCheck(prompt) ? '## Goal\nShort, with /src/x.ts.' : '## Goal\nShort.'));
    const s = (await compact(prep, small.engine))!;
    expect(s.details.selfCheck?.patched).toBe(true);
    expect(s.summary.startsWith('## Goal\nShort, with /src/x.ts.')).toBe(true);
  });
});

describe('continuation prompt', () => {
  it('says the new session starts from the summary alone, asks for the sections, and appends the focus', () => {
    const text = continuationInstructions(' keep the API names ');
    expect(text.startsWith('The transcript above is finished history given to you as data.')).toBe(true);
    expect(text).toContain('The new session begins with this summary and nothing else');
    expect(text).toContain('## Next Step');
    expect(text).toContain('## Current Work');
    expect(text).toContain('Keep these exactly as they appear in the transcript');
    expect(text).toContain('The application attaches every user message of the transcript');
    expect(text.endsWith('Additional focus requested by the user (apply it while keeping all sections):\nkeep the API names')).toBe(true);
    expect(continuationInstructions()).not.toContain('Additional focus');
  });
});
