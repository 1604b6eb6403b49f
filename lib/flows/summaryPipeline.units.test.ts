import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { tokenizerFor } from '@/lib/tokens/tokenizerFor';
import { AppFlows } from './app';
import { countingModel, runSummaryJob, summaryChecks, summaryEngine, summaryPlanOptions } from './summaryPipeline';

/**
 * The pieces every summary run is made of, one at a time: the job's outcome
 * when it is aborted late or fails, the output budget, the count and
 * self-check a summary is judged by, the engine, and the model whose
 * tokenizer counts the session.
 */

const model = testModel('compat:mock-large', 128_000, 4_000);

async function opened(settings = DEFAULT_COMPACTION_SETTINGS) {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: model, summarizer: model, settings, title: row.title });
  return { ports, flows, s };
}

describe('runSummaryJob', () => {
  type Execute = Parameters<typeof runSummaryJob<string>>[1]['execute'];
  const cases: { name: string; what: string; execute: (stop: () => void) => Execute; notice: { level: string; message: string } }[] = [
    {
      name: 'a summary that completes after its run was cancelled is not kept, and the user hears it was cancelled',
      what: 'Compaction',
      // The user pressed Stop just as the model finished.
      execute: (stop) => async () => (stop(), 'a finished summary'),
      notice: { level: 'info', message: 'Compaction cancelled — nothing changed.' },
    },
    {
      name: 'an abort error from below (a transport stopped on its own) counts as cancelled even when the run was not aborted',
      what: 'Branch summary',
      execute: () => async () => Promise.reject(new DOMException('The operation was aborted.', 'AbortError')),
      notice: { level: 'info', message: 'Branch summary cancelled — nothing changed.' },
    },
    {
      name: 'any other failure names the job and the error, and keeps nothing',
      what: 'Regeneration',
      execute: () => async () => Promise.reject(new Error('The provider is overloaded.')),
      notice: { level: 'error', message: 'Regeneration failed: The provider is overloaded. Nothing changed.' },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { ports, flows, s } = await opened();
      const stop = () => flows.runs.get(s.sessionId)!.abort.abort();
      const out = await runSummaryJob(s, { kind: 'compaction', status: 'Summarizing…', what: c.what, parentId: null, execute: c.execute(stop) });
      expect(out).toBeNull();
      expect(ports.notices).toEqual([c.notice]);
      expect(flows.runs.get(s.sessionId)).toBeUndefined();
    });
  }
});

describe('summaryPlanOptions', () => {
  it('asks for the smaller of the settings’ summary budget and the summarizer’s own output limit', () => {
    const budget = DEFAULT_COMPACTION_SETTINGS;
    const small = testModel('compat:small-out', 32_000, 512);
    const large = testModel('compat:large-out', 200_000, 1_000_000);
    const unlimited = testModel('compat:no-limit', 200_000);
    const env = (summarizer: typeof model) => ({ summarizer, settings: budget }) as Parameters<typeof summaryPlanOptions>[0];
    expect(summaryPlanOptions(env(small))!.maxOutputTokens).toBe(512);
    const fromSettings = summaryPlanOptions(env(unlimited))!.maxOutputTokens;
    expect(fromSettings).toBeGreaterThan(512);
    expect(fromSettings).toBeLessThan(1_000_000);
    expect(summaryPlanOptions(env(large))!.maxOutputTokens).toBe(fromSettings);
    expect(summaryPlanOptions(env(small), 'keep the file names')).toMatchObject({ model: small.id, window: 32_000, customInstructions: 'keep the file names' });
    expect(summaryPlanOptions(env(small))).not.toHaveProperty('customInstructions');
    expect(summaryPlanOptions({ settings: budget } as Parameters<typeof summaryPlanOptions>[0])).toBeUndefined();
  });
});

describe('summaryChecks', () => {
  it('counts a summary with the token worker, and asks for the self-check only when the setting is on', async () => {
    const off = await opened();
    const text = 'The user asked about ownership; the assistant explained moves and borrows.';
    const [expected] = await off.ports.tokens.countTexts([text]);
    const checks = summaryChecks(off.s);
    expect(expected).toBeGreaterThan(5);
    expect(await checks.countTokens(text)).toBe(expected);
    expect(checks).not.toHaveProperty('selfCheck');
    const on = await opened({ ...DEFAULT_COMPACTION_SETTINGS, selfCheck: true });
    expect(summaryChecks(on.s).selfCheck).toBe(true);
  });
});

describe('summaryEngine', () => {
  it('the model when there is a plan and a summarizer; the extractive summarizer without a plan', async () => {
    const { s } = await opened();
    expect(summaryEngine(s, null)).toEqual({ kind: 'extractive' });
    const plan = { model: model.id } as unknown as Parameters<typeof summaryEngine>[1];
    expect(summaryEngine(s, plan)).toMatchObject({ kind: 'model', plan });
    s.setEnv({ ...s.env(), summarizer: undefined });
    expect(summaryEngine(s, plan)).toEqual({ kind: 'extractive' });
  });
});

describe('countingModel', () => {
  it('the chat model first, then the summarizer, then an o200k model when nothing is connected', () => {
    const chat = testModel('anthropic:claude-sonnet-4-5', 200_000);
    const summarizer = testModel('openai:gpt-4.1-mini', 1_000_000);
    expect(countingModel({ chatModel: chat, summarizer })).toBe(chat.id);
    expect(countingModel({ summarizer })).toBe(summarizer.id);
    const fallback = tokenizerFor(countingModel({}));
    expect(fallback).toMatchObject({ provider: 'openai', encoding: 'o200k_base', exact: true });
  });
});
