import { splitUserMessages } from './userMessages';
import { describe, expect, it, vi } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { allLeafPaths, countText, entryTokens, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact, compactionEntryFrom } from './compact';
import type { SummaryEngine } from './produce';
import { EXTRACTIVE_LABEL } from './extractive';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { TURN_PREFIX_DIVIDER } from './prompts';
import { serializeItem } from './serialize';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { isAbortError } from './summarizer';
import type { CompactionPreparation, CompactionResult } from './types';

const settings: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS };

/** A model that behaves like a good summarizer for testing: it carries every FACT line of the previous summary and adds one of its own. */
function mergingModel() {
  return scriptedModel(({ prompt, call }) => {
    const prev = /<previous-summary>\n([\s\S]*?)\n<\/previous-summary>/.exec(prompt)?.[1] ?? '';
    const facts = prev.split('\n').filter((l) => l.startsWith('- FACT-'));
    return ['## Goal', 'Keep the pi session going.', '## Critical Context', ...facts, `- FACT-${call}: only call ${call} knew this`].join('\n');
  });
}

/**
 * Replays the pi session's messages (its own compactions left out), stopping
 * at `stops` (message counts) to compact with `engine(prep)`, appending our
 * compaction entry each time like the app would.
 */
async function replayCompactions(stops: number[], engine: (prep: CompactionPreparation) => SummaryEngine) {
  const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
  const path: SessionEntry[] = [];
  const results: { prep: CompactionPreparation; result: CompactionResult; entry: CompactionEntry }[] = [];
  let next = 0;
  for (const stop of stops) {
    while (next < stop) path.push(messages[next++]!);
    const prep = prepareCompaction(path, pathTokens(path), settings)!;
    expect(prep).not.toBeNull();
    const result = (await compact(prep, engine(prep)))!;
    const entry = { ...compactionEntryFrom(result), id: `cmp-${results.length + 1}`, parentId: path[path.length - 1]!.id, timestamp: Date.now() } as CompactionEntry;
    path.push(entry);
    results.push({ prep, result, entry });
  }
  return { path, results };
}

describe('iterative summaries across compactions', () => {
  it('three model compactions in a row: the third input still carries a fact only the first summary had', async () => {
    const { model, calls } = mergingModel();
    const summarizer = languageModelSummarizer(model);
    const starts: number[] = [];
    const { results } = await replayCompactions([300, 600, 900], (prep) => {
      starts.push(calls.length);
      return { kind: 'model', summarizer, plan: planSummary(prep, { window: 128_000, maxOutputTokens: 8000, countText }) };
    });
    // Each compaction's first request is its history request (split turns add a turn-prefix request after it).
    const [first, second, third] = starts.map((i) => calls[i]!);
    expect(first!.prompt).not.toContain('<previous-summary>');
    expect(first!.output).toContain('FACT-1: only call 1 knew this');
    for (const later of calls.slice(1)) expect(later.output.includes('FACT-1') ? later.prompt : 'FACT-1').toContain('FACT-1');
    expect(third!.prompt).toContain('- FACT-1: only call 1 knew this');
    expect(results[2]!.result.summary).toContain('FACT-1');
    expect(results[2]!.result.details.summarizer).toEqual({ kind: 'model', model: 'mock:summarizer' });
    // The second run updates, it doesn't re-derive: previous summary in, update instructions used.
    expect(second!.prompt).toContain('Produce an UPDATED handoff summary');
    // The file footer of a summary is not fed back to the model (it is rebuilt from details).
    const prev = /<previous-summary>\n([\s\S]*?)\n<\/previous-summary>/.exec(second!.prompt)![1]!;
    expect(prev).not.toContain('<modified-files');
    expect(results[1]!.result.summary).toContain('<modified-files');
  });

  it('PR 1585 on real data: what compaction 1 kept is in compaction 2’s input', async () => {
    const { model, calls } = mergingModel();
    const summarizer = languageModelSummarizer(model);
    const starts: number[] = [];
    const { results, path } = await replayCompactions([300, 600], (prep) => {
      starts.push(calls.length);
      return { kind: 'model', summarizer, plan: planSummary(prep, { window: 128_000, maxOutputTokens: 8000, countText }) };
    });
    const kept1 = results[0]!.result.firstKeptEntryId;
    const keptEntry = path.find((e) => e.id === kept1)!;
    if (keptEntry.type !== 'message') throw new Error('kept entry is not a message');
    expect(results[1]!.prep.messagesToSummarize[0]!.entryId).toBe(kept1);
    const text = serializeItem({ kind: 'message', entryId: kept1, message: keptEntry.message }, { toolResultMaxChars: settings.toolResultMaxChars });
    expect(calls[starts[1]!]!.prompt).toContain(text);
    // …and it was not in compaction 1's input.
    for (const c of calls.slice(0, starts[1])) expect(c.prompt).not.toContain(text);
  });

  it('three extractive compactions in a row keep the first part (the session’s first request)', async () => {
    const { results, path } = await replayCompactions([300, 600, 900], () => ({ kind: 'extractive' }));
    const third = results[2]!.result;
    expect(third.details.summarizer).toEqual({ kind: 'extractive' });
    expect(third.summary.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    // The very first user message of the real session, summarised by compaction 1 only.
    expect(splitUserMessages(third.summary).records[0]!.text).toContain('https://github.com/badlogic/pi-mono/issues/288');
    // Every user message of the three regions is in the third summary's user-messages section, oldest first.
    const users = path.filter((e) => e.type === 'message' && e.message.role === 'user' && results.some((r) => [...r.prep.messagesToSummarize, ...r.prep.turnPrefixMessages].some((i) => i.entryId === e.id)));
    expect(third.summary).toContain(`_All ${users.length} user messages of the summarised conversation`);
    // File lists are cumulative: everything modified in the first region is still listed.
    for (const f of results[0]!.result.details.modifiedFiles) expect(third.details.modifiedFiles).toContain(f);
    // And the session rebuilt at the leaf starts with the third summary.
    const ctx = buildSessionContext(path, path[path.length - 1]!.id);
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', summary: third.summary });
  });
});

/** The context the model would get at the last entry of `path`, in test tokens. */
function contextTokensAt(path: readonly SessionEntry[]): { tokens: number; firstKept: SessionEntry | undefined } {
  const ctx = buildSessionContext(path, path[path.length - 1]!.id);
  let tokens = ctx.compaction ? entryTokens(ctx.compaction) : 0;
  for (const it of ctx.items) if (it.kind === 'message') tokens += entryTokens(ctx.path.find((e) => e.id === it.entryId)!);
  return { tokens, firstKept: ctx.path[ctx.keptFromIndex] };
}

/** Appends the messages one by one and auto-compacts (extractive) whenever the context passes window − reserve. */
async function autoReplay(messages: readonly SessionEntry[], window: number, s: CompactionSettings) {
  const path: SessionEntry[] = [];
  let compactions = 0;
  for (const m of messages) {
    path.push(m);
    const before = contextTokensAt(path).tokens;
    if (before <= window - s.reserveTokens) continue;
    const prep = prepareCompaction(path, pathTokens(path), s, { window, contextTokens: before });
    if (!prep) continue;
    expect(prep.estimatedTokensAfter).toBeLessThanOrEqual(window - s.reserveTokens);
    const result = (await compact(prep, { kind: 'extractive' }))!;
    path.push({ ...compactionEntryFrom(result), id: `auto-${++compactions}`, parentId: m.id, timestamp: 0 } as CompactionEntry);
    const after = contextTokensAt(path);
    expect(after.tokens, `compaction ${compactions}`).toBeLessThanOrEqual(window - s.reserveTokens);
    expect(after.tokens).toBeLessThan(before);
    expect(after.firstKept?.type === 'message' && after.firstKept.message.role).not.toBe('toolResult');
  }
  return compactions;
}

describe('auto-compaction with realistic windows: the context after compaction is under window − reserve', () => {
  it('pi session, 64k window, default settings', async () => {
    const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
    expect(await autoReplay(messages, 64_000, settings)).toBeGreaterThanOrEqual(3);
  });

  it('SWE trajectory and the longest Claude Code sub-agent path, 8k local-model window', async () => {
    const small = { ...settings, reserveTokens: 2048 };
    expect(await autoReplay(loadSession('sweTraj').path.filter((e) => e.type === 'message'), 8192, small)).toBeGreaterThanOrEqual(1);
    const cc = loadSession('claudeViewer');
    const longest = allLeafPaths(cc).sort((a, b) => b.length - a.length)[0]!;
    expect(await autoReplay(longest.filter((e) => e.type === 'message'), 8192, small)).toBeGreaterThanOrEqual(2);
  });
});

describe('split turns', () => {
  it('history and turn prefix get separate summaries joined by a divider (SWE trajectory)', async () => {
    const { path } = loadSession('sweTraj');
    const prep = prepareCompaction(path, pathTokens(path), { ...settings, keepRecentTokens: 3000 })!;
    expect(prep.isSplitTurn).toBe(true);
    const { model, calls } = scriptedModel(({ prompt }) => (prompt.includes('FIRST PART of a single turn') ? '## Original Request\nTURN-PREFIX-SUMMARY' : '## Goal\nHISTORY-SUMMARY'));
    const plan = planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText });
    expect(plan.history.map((s) => s.purpose)).toEqual(['compaction']);
    expect(plan.turnPrefix.map((s) => s.purpose)).toEqual(['turn-prefix']);
    const result = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }))!;
    expect(calls).toHaveLength(2);
    // The issue text (turn opener) goes to the turn-prefix request, the demonstration to the history request.
    expect(calls[1]!.prompt).toContain('Pixel Representation attribute should be optional');
    expect(calls[0]!.prompt).toContain('Here is a demonstration');
    expect(result.summary.startsWith(`## Goal\nHISTORY-SUMMARY${TURN_PREFIX_DIVIDER}## Original Request\nTURN-PREFIX-SUMMARY`)).toBe(true);
    expect(result.details.isSplitTurn).toBe(true);
    expect(result.details.summarizedEntryCount).toBe(prep.messagesToSummarize.length + prep.turnPrefixMessages.length);
  });
});

describe('abort and hooks', () => {
  // Prepared inside each test, not when the file is collected: code run at collection counts as
  // module-level for mutation testing, which then reruns every test for each of its mutants.
  const setup = () => {
    const { path } = loadSession('sweTraj');
    const prep = prepareCompaction(path, pathTokens(path), { ...settings, keepRecentTokens: 3000 })!;
    return { path, prep };
  };

  it('abort mid-summary rejects with an AbortError and produces nothing', async () => {
    const { prep } = setup();
    const { model } = scriptedModel(() => 'word '.repeat(400), { chunkDelayInMs: 5, deltaChars: 10 });
    const controller = new AbortController();
    const after = vi.fn();
    let deltas = 0;
    const promise = compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }, {
      signal: controller.signal,
      hooks: { afterCompact: after },
      onDelta: () => {
        if (++deltas === 3) controller.abort();
      },
    });
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAbortError(err)).toBe(true);
    expect(deltas).toBeGreaterThanOrEqual(3);
    expect(deltas).toBeLessThan(100);
    expect(after).not.toHaveBeenCalled();
  });

  it('an already aborted signal rejects before any request', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => 'x');
    const controller = new AbortController();
    controller.abort();
    await expect(compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });

  it('a hook can cancel: no request, null result', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => 'x');
    const before = vi.fn(() => ({ cancel: true as const }));
    const r = await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }, { hooks: { beforeCompact: before } });
    expect(r).toBeNull();
    expect(before).toHaveBeenCalledWith(prep, {});
    expect(calls).toHaveLength(0);
  });

  it('a hook can supply the summary: no request, summarizer recorded as the hook; after-hooks see the result', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => 'x');
    const seen: CompactionResult[] = [];
    const r = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }, {
      hooks: [
        { name: 'observer', beforeCompact: () => undefined },
        { name: 'memory-ext', beforeCompact: () => ({ summary: 'CUSTOM SUMMARY' }), afterCompact: (res) => void seen.push(res) },
        {
          afterCompact: () => {
            throw new Error('observer failed');
          },
        },
      ],
      onHookError: (e) => expect(String(e)).toContain('observer failed'),
    }))!;
    expect(calls).toHaveLength(0);
    expect(r.summary).toBe('CUSTOM SUMMARY');
    expect(r.details.summarizer).toEqual({ kind: 'hook', name: 'memory-ext' });
    expect(r.details.modifiedFiles).toEqual(prep.fileOps.modifiedFiles);
    expect(r.firstKeptEntryId).toBe(prep.firstKeptEntryId);
    expect(seen).toEqual([r]);
  });

  it('an empty model reply never becomes an empty summary (retried, then the labelled extractive fallback)', async () => {
    const { prep } = setup();
    const { model } = scriptedModel(() => '   ');
    const r = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }))!;
    expect(r.details.fallback?.reason).toBe('empty');
    expect(r.summary).toMatch(/^\*\*Extractive summary — fallback\.\*\*/);
  });

  it('usage of all requests is summed into the details', async () => {
    const { prep } = setup();
    const { model, calls } = scriptedModel(() => 'S');
    const r = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan: planSummary(prep, { window: 32_000, maxOutputTokens: 2000, countText }) }))!;
    expect(calls).toHaveLength(2);
    const expectedInput = calls.reduce((a, c) => a + countText(c.system + c.prompt), 0);
    expect(r.details.usage?.input).toBe(expectedInput);
    expect(r.details.usage?.output).toBe(2);
  });
});
