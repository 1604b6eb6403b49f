import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact } from './compact';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { SELF_CHECK_UNCHANGED } from './prompts';

/** Issue 17, item 12: the optional self-check pass, on a real region of the pi session. */

const messages = loadSession('piV1').path.filter((e) => e.type === 'message').slice(0, 80);
// Prepared inside each test, not when the file is collected: code run at collection counts as
// module-level for mutation testing, which then reruns every test for each of its mutants.
const preparation = () => prepareCompaction(messages, pathTokens(messages), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 1000 })!;
const FIRST = '## Goal\nWork on the pi issue.\n\n## Next Steps\n1. Continue.';
const isCheck = (prompt: string) => prompt.includes('Check it critically against the transcript');

function run(reply: (prompt: string) => string, selfCheck: boolean | undefined) {
  const { model, calls } = scriptedModel(({ prompt }) => reply(prompt));
  const base = preparation();
  const prep = { ...base, settings: { ...base.settings, ...(selfCheck !== undefined ? { selfCheck } : {}) } };
  const plan = planSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText });
  return { calls, result: compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { countTokens: countText }) };
}

describe('self-check pass', () => {
  // A fact from the transcript for the patch to add.
  const fileOf = () => {
    const { fileOps } = preparation();
    return fileOps.readFiles[0] ?? fileOps.modifiedFiles[0]!;
  };

  it('off by default: one request, no self-check recorded', async () => {
    expect(DEFAULT_COMPACTION_SETTINGS.selfCheck).toBe(false);
    const { calls, result } = run(() => FIRST, undefined);
    expect(preparation().settings.selfCheck).toBe(false);
    const r = (await result)!;
    expect(calls).toHaveLength(1);
    expect(r.details.selfCheck).toBeUndefined();
  });

  it('on: a second request sees the transcript and the summary; its patch is used and its cost recorded apart', async () => {
    const patched = `${FIRST}\n\n## Critical Context\n- Read ${fileOf()}`;
    const { calls, result } = run((prompt) => (isCheck(prompt) ? patched : FIRST), true);
    const r = (await result)!;
    expect(calls).toHaveLength(2);
    expect(isCheck(calls[1]!.prompt)).toBe(true);
    expect(calls[1]!.prompt).toContain(`<summary>\n${FIRST}\n</summary>`);
    expect(calls[1]!.prompt).toContain(calls[0]!.prompt.slice(calls[0]!.prompt.indexOf('<conversation>'), calls[0]!.prompt.indexOf('</conversation>')));
    expect(r.summary.startsWith(patched)).toBe(true);
    expect(r.details.selfCheck).toEqual({ patched: true, usage: { input: countText(calls[1]!.system + calls[1]!.prompt), output: countText(patched), totalTokens: countText(calls[1]!.system + calls[1]!.prompt) + countText(patched) } });
    // The summary's own usage is the first request's alone.
    expect(r.details.usage?.input).toBe(countText(calls[0]!.system + calls[0]!.prompt));
  });

  it(`on, and the model finds nothing missing ("${SELF_CHECK_UNCHANGED}"): the summary stays, the cost is still recorded`, async () => {
    const { calls, result } = run((prompt) => (isCheck(prompt) ? SELF_CHECK_UNCHANGED : FIRST), true);
    const r = (await result)!;
    expect(calls).toHaveLength(2);
    expect(r.summary.startsWith(FIRST)).toBe(true);
    expect(r.details.selfCheck?.patched).toBe(false);
    expect(r.details.selfCheck?.usage?.output).toBe(countText(SELF_CHECK_UNCHANGED));
  });

  it('on, and the patch is cut off at the output limit: the first summary stays', async () => {
    const { result } = run((prompt) => (isCheck(prompt) ? `${FIRST}\n${'more '.repeat(10_000)}` : FIRST), true);
    const r = (await result)!;
    expect(r.summary.startsWith(FIRST)).toBe(true);
    expect(r.summary).not.toContain('more more');
    expect(r.details.selfCheck?.patched).toBe(false);
  });
});
