import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { readFixture } from '@/lib/testing/fixtures';
import { createExactCounter } from './exact';
import { PathTokenIndex, usableUsage, usageContextTokens, usageInputTokens } from './pathIndex';

/**
 * What the index takes from a provider's report (cache reads and writes are
 * context too; a report of nothing is no report), what popping a summary
 * leaves behind (nothing), and what a new calibration changes (the estimated
 * part, rescaled exactly as a fresh index with it would count).
 */

const counter = () => createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });
const CAL = { factor: 1.25, offset: 300, approximate: true };

function indexOf(entries: readonly SessionEntry[], cal = CAL, requestTokens = 7) {
  const index = new PathTokenIndex(counter(), { calibration: cal, requestTokens });
  for (const e of entries) index.push(e);
  return index;
}

/** The real pi session's active path (fixtures/real): compactions, branch summaries, tool calls. */
function piPath() {
  const { entries, meta } = importText(readFixture('piV1'), { fileName: 'pi.jsonl' }).sessions[0]!;
  return new SessionTree(entries).pathTo(meta.leafId);
}

describe('a provider’s usage report', () => {
  it('counts input, cache reads, cache writes and output as the context after the reply; the input side without the output', () => {
    const usage = { input: 120, cacheRead: 20_000, cacheWrite: 1_500, output: 640 };
    expect(usageContextTokens(usage)).toBe(22_260);
    expect(usageInputTokens(usage)).toBe(21_620);
    expect(usageContextTokens({ input: 0, output: 12 })).toBe(12);
    expect(usageInputTokens({ input: 0, output: 12, cacheRead: 8 })).toBe(8);
  });

  it('anchors the figure with the cached parts included; a report of zero tokens, or of a reply still streaming or failed, is no report', () => {
    const b = new TreeBuilder();
    b.user('summarise the build log');
    const reply = b.assistant('three warnings, no errors', undefined, { usage: { input: 90, cacheRead: 4_000, cacheWrite: 600, output: 30 }, status: 'complete' });
    expect(indexOf(b.entries).figure()).toMatchObject({ source: 'usage+estimate', usageTokens: 4_720, estimatedTokens: 0, tokens: 4_720 });
    expect(usableUsage(reply)).toEqual({ input: 90, cacheRead: 4_000, cacheWrite: 600, output: 30 });

    const zero = new TreeBuilder();
    zero.user('summarise the build log');
    zero.assistant('three warnings, no errors', undefined, { usage: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }, status: 'complete' });
    expect(indexOf(zero.entries).figure().source).toBe('estimate');
    expect(usableUsage(zero.entries.at(-1)!)).toBeNull();

    for (const patch of [{ status: 'streaming' as const }, { stopReason: 'error' as const }, { stopReason: 'aborted' as const }]) {
      const other = new TreeBuilder();
      other.user('summarise the build log');
      other.assistant('three warn', undefined, { usage: { input: 90, output: 3 }, status: 'complete', ...patch });
      expect(usableUsage(other.entries.at(-1)!), JSON.stringify(patch)).toBeNull();
      expect(indexOf(other.entries).figure().source).toBe('estimate');
    }
  });
});

describe('popping a summary', () => {
  it('leaves no trace: the index then counts what a fresh index of the same path counts', () => {
    const path = piPath();
    for (const kind of ['compaction', 'branch_summary'] as const) {
      const at = path.findIndex((e) => e.type === kind);
      if (at < 0) continue;
      const index = indexOf(path.slice(0, at + 1));
      index.pop();
      // Then on along a path without that summary: the messages after it, re-parented.
      let parentId = path[at - 1]!.id;
      const rest = path
        .slice(at + 1, at + 12)
        .filter((e) => e.type === 'message')
        .map((e) => {
          const moved = { ...e, parentId };
          parentId = e.id;
          return moved;
        });
      // And a revision naming the popped summary, which is not on this path: it changes nothing (resolveSummaries).
      const summary = path[at]!;
      const revision: SessionEntry = { type: 'summary_revision', id: `rev-${kind}`, parentId: rest.at(-1)!.id, timestamp: summary.timestamp + 1, targetId: summary.id, action: 'edit', summary: 'A much longer text. '.repeat(200) };
      for (const e of [...rest, revision]) index.push(e);
      const fresh = indexOf([...path.slice(0, at), ...rest, revision]);
      expect(Array.from(index.pathTokens().prefix), kind).toEqual(Array.from(fresh.pathTokens().prefix));
      expect(index.figure(), kind).toEqual(fresh.figure());
      expect(index.countedTokens(), kind).toBe(fresh.countedTokens());
    }
    expect(path.some((e) => e.type === 'compaction')).toBe(true);
  });
});

describe('a new calibration', () => {
  it('rescales the estimated part as a fresh index with it would count, and a new offset or request size alone moves the figure by exactly that', () => {
    const path = piPath();
    const index = indexOf(path);
    const base = index.countedTokens();
    // The same factor, a larger offset: the counts stay, the figure moves by the offset.
    index.setCalibration({ ...CAL, offset: 800 });
    expect(index.countedTokens()).toBe(base + 500);
    // Ten more tokens per request, counted at the factor.
    index.setCalibration({ ...CAL, offset: 800 }, 17);
    expect(index.countedTokens()).toBe(indexOf(path, { ...CAL, offset: 800 }, 17).countedTokens());
    expect(index.countedTokens() - (base + 500)).toBeCloseTo(12.5, -0.5);
    // Another factor: every estimated count is rescaled.
    const steeper = { factor: 1.5, offset: 300, approximate: false };
    index.setCalibration(steeper, 7);
    const fresh = indexOf(path, steeper);
    expect(index.countedTokens()).toBe(fresh.countedTokens());
    // The calibrated counts the compaction's cut search reads.
    const counts = (i: PathTokenIndex) => Array.from(i.pathTokens().counts, (c) => Math.round(c * 1e6));
    expect(counts(index)).toEqual(counts(fresh));
    expect(index.figure()).toEqual(fresh.figure());
    // And back.
    index.setCalibration(CAL, 7);
    expect(index.countedTokens()).toBe(base);
    expect(counts(index)).toEqual(counts(indexOf(path)));
  });
});
