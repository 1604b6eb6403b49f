import { describe, expect, it } from 'vitest';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import { countsInKeptContext } from './cutPoint';
import { keepRecentTokensForTurns } from './keepRecent';
import { prepareCompaction } from './prepare';

/** The pi session's messages (its own compactions left out): real turns with tool work between the user messages. */
function piMessages(n: number): SessionEntry[] {
  return loadSession('piV1').path.filter((e) => e.type === 'message').slice(0, n);
}

function turns(path: readonly SessionEntry[], regionStart: number, count: number): number {
  const summaries = resolveSummaries(path);
  return keepRecentTokensForTurns(path, pathTokens(path), regionStart, count, (i) => countsInKeptContext(path[i]!, summaries));
}

const userIndexes = (path: readonly SessionEntry[]) => path.flatMap((e, i) => (e.type === 'message' && e.message.role === 'user' ? [i] : []));

describe('keep-recent given in turns', () => {
  it('is the tokens from the n-th last user message to the leaf, and the cut lands exactly on that message', () => {
    const path = piMessages(200);
    const tokens = pathTokens(path);
    const users = userIndexes(path);
    expect(users.length).toBeGreaterThan(5);
    for (const n of [1, 2, 3]) {
      const from = users[users.length - n]!;
      let expected = 0;
      for (let i = from; i < path.length; i++) expected += tokens.counts[i]!;
      const keep = turns(path, 0, n);
      expect(keep, `${n} turns`).toBe(expected);
      const p = prepareCompaction(path, tokens, { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep })!;
      expect(p.firstKeptIndex, `${n} turns`).toBe(from);
      expect(p.isSplitTurn).toBe(false);
    }
  });

  it('a fractional or non-positive number of turns means whole turns, at least one', () => {
    const path = piMessages(200);
    expect(turns(path, 0, 2.7)).toBe(turns(path, 0, 2));
    expect(turns(path, 0, 0)).toBe(turns(path, 0, 1));
    expect(turns(path, 0, -3)).toBe(turns(path, 0, 1));
  });

  it('more turns than the region holds keeps all of the region (nothing before it counts)', () => {
    const path = piMessages(200);
    const tokens = pathTokens(path);
    const users = userIndexes(path);
    const start = users[users.length - 3]! - 1;
    let region = 0;
    for (let i = start; i < path.length; i++) region += tokens.counts[i]!;
    // Three user messages lie in the region: asking for 3 keeps from the third, asking for 50 keeps it all.
    expect(turns(path, start, 3)).toBe(region - tokens.counts[start]!);
    expect(turns(path, start, 50)).toBe(region);
  });

  it('bookkeeping and summaries inside the region are stepped over: only user messages open a turn', () => {
    const path = piMessages(200);
    const users = userIndexes(path);
    const last = users.at(-1)!;
    // A label, a model change and a branch summary between the last two turns.
    const extra: SessionEntry[] = [
      { type: 'label', targetId: path[0]!.id, label: 'start', id: 'l1', parentId: null, timestamp: 0 },
      { type: 'model_change', model: 'openai:gpt-4o', id: 'm1', parentId: null, timestamp: 0 },
      { type: 'branch_summary', summary: 'Tried another way.', fromId: path[0]!.id, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } }, id: 'b1', parentId: null, timestamp: 0 },
    ];
    const mixed = [...path.slice(0, last), ...extra, ...path.slice(last)];
    const tokens = pathTokens(mixed);
    // Two turns: from the second-last user message, the extras (the branch summary counts: it reaches the model) included.
    const from = mixed.findIndex((e) => e.id === path[users.at(-2)!]!.id);
    let expected = 0;
    for (let i = from; i < mixed.length; i++) if (mixed[i]!.type !== 'label' && mixed[i]!.type !== 'model_change') expected += tokens.counts[i]!;
    expect(turns(mixed, 0, 2)).toBe(expected);
  });

  it('only what reaches the model counts: an empty failed reply adds nothing', () => {
    const path = piMessages(60);
    const users = userIndexes(path);
    const failed: SessionEntry = { type: 'message', id: 'failed', parentId: null, timestamp: 0, message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'overloaded' } };
    const withFailure = [...path, failed];
    const summaries = resolveSummaries(withFailure);
    const counts = pathTokens(withFailure);
    // The test counter gives the empty reply a few tokens of overhead; keep-recent must not include them.
    expect(counts.counts[withFailure.length - 1]).toBeGreaterThan(0);
    const keep = keepRecentTokensForTurns(withFailure, counts, 0, 1, (i) => countsInKeptContext(withFailure[i]!, summaries));
    expect(keep).toBe(turns(path, 0, 1));
    expect(users.length).toBeGreaterThan(0);
  });
});
