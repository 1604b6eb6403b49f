import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '@/e2e/mock-llm/server';
import { formatReport } from '@/lib/compaction/eval/report';
import { evaluateSubject, type EvalModel, type EvalRow } from '@/lib/compaction/eval/run';
import { countText, entryTokens } from '@/lib/testing/compactionData';
import { evalModelFromEnv, loadEvalSubjects } from './evalSetup';

/**
 * `npm run eval` with a model, in CI: the scripted OpenAI-compatible mock on
 * loopback stands in for the configured model, found through the same
 * environment the app's server reads. The mock's summaries are canned and its
 * answers echo the question's context, so the figures say nothing about
 * quality; what this pins is that the model path runs end to end: the
 * compaction through the model, the probes asked of the compacted and the full
 * context, the ratio, and a full context too large for the window reported
 * instead of sent.
 */

let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await mock.close();
});

describe('npm run eval with the scripted model', () => {
  it('no model in the environment: extractive only', () => {
    expect(evalModelFromEnv({ OLLAMA_BASE_URL: 'off' }, fetch)).toBeNull();
  });

  it('measures the model compaction and asks the probes from the compacted and the full context', async () => {
    const env = { OPENAI_COMPATIBLE_BASE_URL: mock.baseUrl, DEFAULT_MODEL: 'compat:mock-large', MODEL_CONTEXT_WINDOWS: 'compat:mock-large=64000', OLLAMA_BASE_URL: 'off' };
    const model = evalModelFromEnv(env, fetch) as EvalModel;
    expect(model.window).toBe(64_000);
    const rows: EvalRow[] = [];
    for (const subject of loadEvalSubjects(['claudeLog', 'piV1'])) rows.push(...(await evaluateSubject(subject, { countText, tokensOf: entryTokens, window: 128_000 }, model)));
    expect(rows.map((r) => `${r.fixture} ${r.mode}`)).toEqual(['claudeLog extractive', 'claudeLog compat:mock-large', 'piV1 extractive', 'piV1 compat:mock-large']);

    const small = rows[1]!;
    expect(small.skipped).toBeNull();
    expect(small.appended).toBe(true);
    expect(small.qa!.full).not.toBeNull();
    expect(small.qa!.ratio).toBeCloseTo(small.qa!.compacted / small.qa!.full!, 6);
    // The model's summary still carries what the app adds: every user request of the span, which its body alone does not.
    expect(small.coverage.request.hit).toBe(small.coverage.request.total);
    expect(small.bodyCoverage.request.hit).toBeLessThan(small.bodyCoverage.request.total);

    const pi = rows[3]!;
    expect(pi.skipped).toBeNull();
    expect(pi.qa!.note).toBe('full context exceeds the model window');
    expect(pi.qa!.ratio).toBeNull();
    expect(pi.qa!.compacted).toBeGreaterThan(0);

    // What reached the model: summaries (chunked for pi's span at a 64k window) and the questions.
    const kinds = mock.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.kind);
    expect(kinds.filter((k) => k === 'summarizer').length).toBeGreaterThanOrEqual(3);
    expect(kinds.filter((k) => k === 'chat').length).toBeGreaterThanOrEqual(4);
    expect(mock.requests.every((r) => r.host?.startsWith('127.0.0.1'))).toBe(true);
    expect(formatReport(rows)).toMatch(/piV1 +\| compat:mock-large .*full context exceeds the model window/);
  });
});
