import { describe, expect, it, vi } from 'vitest';
import { prepareBranchSummary } from '@/lib/branch/prepare';
import { planBranchSummary, summarizeBranch, type BranchSummaryHooks } from '@/lib/branch/summarize';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { countText, entryTokens, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact } from './compact';
import { EXTRACTIVE_LABEL } from './extractive';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { isAbortError } from './summarizer';
import type { CompactionHooks } from './types';

/**
 * A before-hook is someone else's code: when it throws, the summary the user
 * asked for must still be written (by the engine, as if the hook were not
 * there), and the failure must be reported, not swallowed.
 */

const broken = (name: string): CompactionHooks & BranchSummaryHooks => ({
  name,
  beforeCompact: () => {
    throw new Error(`${name} exploded`);
  },
  beforeBranchSummary: async () => {
    throw new Error(`${name} exploded`);
  },
});

describe('a throwing before-compaction hook is reported and skipped', () => {
  // Prepared inside each test, not when the file is collected: code run at collection counts as
  // module-level for mutation testing, which then reruns every test for each of its mutants.
  const setup = () => {
    const { path } = loadSession('piV1');
    const sub = path.slice(0, path.findIndex((e) => e.id === 'pi-669'));
    const prep = prepareCompaction(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS)!;
    return { prep };
  };

  it('real pi session, model engine: the default summary runs, the error reaches onHookError and the result warns', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => '## Goal\nkeep going\n\n## Next Step\nGo on.');
    const onHookError = vi.fn();
    const r = await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText }) }, { hooks: broken('memory-ext'), onHookError });
    expect(r).not.toBeNull();
    expect(calls.length).toBeGreaterThan(0);
    expect(r!.summary.startsWith('## Goal\nkeep going')).toBe(true);
    expect(r!.details.summarizer).toEqual({ kind: 'model', model: 'mock:summarizer' });
    expect(onHookError).toHaveBeenCalledTimes(1);
    expect(String(onHookError.mock.calls[0]![0])).toContain('memory-ext exploded');
    expect(r!.warnings).toEqual([expect.stringMatching(/memory-ext.*memory-ext exploded/)]);
  });

  it('extractive engine: a later hook still cancels or supplies after an earlier one threw', async () => {
    const { prep } = setup();
    const supplied = await compact(prep, { kind: 'extractive' }, { hooks: [broken('first'), { name: 'second', beforeCompact: () => ({ summary: 'FROM SECOND' }) }] });
    expect(supplied!.summary).toBe('FROM SECOND');
    expect(supplied!.details.summarizer).toEqual({ kind: 'hook', name: 'second' });
    expect(supplied!.warnings).toHaveLength(1);
    expect(await compact(prep, { kind: 'extractive' }, { hooks: [broken('first'), { beforeCompact: () => ({ cancel: true }) }] })).toBeNull();
    const plain = await compact(prep, { kind: 'extractive' }, { hooks: [broken('a'), broken('b')] });
    expect(plain!.summary.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    expect(plain!.warnings).toHaveLength(2);
  });

  it('an abort raised inside a hook is still an abort, not a skipped hook', async () => {
    const { prep } = setup();
    const ctl = new AbortController();
    const hook: CompactionHooks = {
      beforeCompact: () => {
        ctl.abort();
        throw new DOMException('stop', 'AbortError');
      },
    };
    const err = await compact(prep, { kind: 'extractive' }, { signal: ctl.signal, hooks: hook }).catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
  });
});

describe('a throwing before-branch-summary hook is reported and skipped', () => {
  // Prepared inside each test, not when the file is collected: code run at collection counts as
  // module-level for mutation testing, which then reruns every test for each of its mutants.
  const setup = () => {
    const { path } = loadSession('piV1');
    // The first 120 entries of the real session, standing in for a branch the user left.
    const branch = path.slice(0, 120).filter((e) => e.type === 'message');
    const prep = prepareBranchSummary(branch, { tokensOf: entryTokens, budget: 0 })!;
    return { prep };
  };

  it('real pi session: the branch summary is written by the engine, the error reported', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => '## Goal\nBranch: tried things\n\n## Outcome\nNothing worked.');
    const onHookError = vi.fn();
    const plan = planBranchSummary(prep, { window: 128_000, maxOutputTokens: 4000, countText });
    const r = await summarizeBranch(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { hooks: broken('memory-ext'), onHookError });
    expect(r).not.toBeNull();
    expect(calls).toHaveLength(1);
    expect(r!.summary.startsWith('## Goal\nBranch: tried things')).toBe(true);
    expect(onHookError).toHaveBeenCalledTimes(1);
    expect(r!.warnings).toEqual([expect.stringMatching(/memory-ext/)]);
  });
});
