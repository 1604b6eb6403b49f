import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { isValidCutPoint } from './cutPoint';
import { prepareCompaction } from './prepare';

/** Every message's token count is its text length, so the budgets below can be read off the test. */
const len = (e: SessionEntry) => (e.type === 'message' ? e.message.content.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0) : 0);

/** u1 a1 u2 a2 u3 a3, 100 tokens each. */
function sixMessages(): SessionEntry[] {
  const b = new TreeBuilder();
  for (const turn of [1, 2, 3]) {
    b.user('u'.repeat(100), `u${turn}`);
    b.assistant('a'.repeat(100), `a${turn}`);
  }
  return b.entries.slice();
}

const prepare = (path: SessionEntry[], keep: number) =>
  prepareCompaction(path, pathTokensFromCounts(path.map(len)), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep });

describe('the cut is the nearest valid one (keeps no more than keep-recent needs)', () => {
  it('keep-recent exactly reached at a valid cut: keeps a2 with 300 tokens, not u2 with 400', () => {
    const p = prepare(sixMessages(), 300);
    expect(p?.firstKeptEntryId).toBe('a2');
    expect(p?.tokensKept).toBe(300);
  });

  it('for every keep-recent, the kept tail is the shortest one starting at a valid cut that still holds keep-recent tokens', () => {
    const path = sixMessages();
    const counts = path.map(len);
    for (let keep = 1; keep < 500; keep += 7) {
      // Independent reference: scan back from the end for the first valid cut whose suffix reaches keep.
      let expected: number | null = null;
      let suffix = 0;
      for (let i = path.length - 1; i > 0; i--) {
        suffix += counts[i]!;
        if (suffix >= keep && isValidCutPoint(path[i])) {
          expected = i;
          break;
        }
      }
      const p = prepare(path, keep);
      const firstKept = p ? path.findIndex((e) => e.id === p.firstKeptEntryId) : null;
      const kept = firstKept === null ? null : counts.slice(firstKept).reduce((a, b) => a + b, 0);
      // A short turn prefix (≤ 10 % of keep-recent) may be kept whole: then the cut moves to the turn's user message.
      if (p && expected !== null && firstKept !== expected) {
        expect(firstKept, `keep ${keep}`).toBe(expected - 1);
        expect(counts[expected - 1]!, `keep ${keep}`).toBeLessThanOrEqual(Math.floor(keep * 0.1));
      } else expect(firstKept, `keep ${keep}`).toBe(expected);
      if (p) expect(p.tokensKept, `keep ${keep}`).toBe(kept);
    }
  });
});
