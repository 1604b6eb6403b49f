import { describe, expect, it } from 'vitest';
import { generateSession, Rng } from '@/lib/testing/generate';
import { countEntry } from './exact';
import { findCutIndex, isValidCutEntry, validCutPositions } from './cutPoint';
import { pathTokensFromCounts } from './pathTokens';

/** pi's loop, written out: walk back accumulating, stop at the budget, then take the nearest valid cut. */
function bruteForce(counts: number[], valid: boolean[], start: number, end: number, keep: number, mode: 'atOrAfter' | 'atOrBefore'): number {
  let acc = 0;
  for (let i = end - 1; i >= start; i--) {
    acc += counts[i]!;
    if (acc >= keep) {
      if (mode === 'atOrAfter') {
        for (let c = i; c < end; c++) if (valid[c]) return c > start ? c : -1;
      } else {
        for (let c = i; c >= start; c--) if (valid[c]) return c > start ? c : -1;
      }
      return -1;
    }
  }
  return -1;
}

describe('findCutIndex', () => {
  it('agrees with the backwards walk on random paths, budgets and ranges', () => {
    const r = new Rng(42);
    for (let trial = 0; trial < 400; trial++) {
      const n = r.int(0, 60);
      const counts = Array.from({ length: n }, () => (r.chance(0.15) ? 0 : r.int(1, 500)));
      const valid = Array.from({ length: n }, () => r.chance(0.5));
      const positions = valid.flatMap((v, i) => (v ? [i] : []));
      const start = r.int(0, Math.max(0, n - 1));
      const end = r.int(start, n);
      const keep = r.int(1, 6_000);
      const t = pathTokensFromCounts(counts);
      for (const mode of ['atOrAfter', 'atOrBefore'] as const) {
        const got = findCutIndex(t, positions, start, end, keep, { mode });
        expect(got.index, `trial ${trial} ${mode}`).toBe(bruteForce(counts, valid, start, end, keep, mode));
        if (got.index >= 0) {
          expect(got.keptTokens).toBe(t.prefix[end]! - t.prefix[got.index]!);
          if (mode === 'atOrBefore') expect(got.keptTokens).toBeGreaterThanOrEqual(keep);
        }
      }
    }
  });

  it('never cuts at a tool result, and keeps about the budget on a generated session', () => {
    const { entries } = generateSession({ seed: 9, entries: 3_000 });
    const counts = entries.map((e) => countEntry(e).o200k);
    const t = pathTokensFromCounts(counts);
    const positions = validCutPositions(entries);
    for (const keep of [2_000, 20_000, 80_000]) {
      const cut = findCutIndex(t, positions, 0, entries.length, keep);
      expect(cut.index).toBeGreaterThan(0);
      const first = entries[cut.index]!;
      expect(isValidCutEntry(first)).toBe(true);
      expect(first.type === 'message' && first.message.role === 'toolResult').toBe(false);
      // The threshold is the last index whose suffix holds the budget; the cut is at or after it.
      const suffix = (i: number) => t.prefix[entries.length]! - t.prefix[i]!;
      expect(suffix(cut.thresholdIndex)).toBeGreaterThanOrEqual(keep);
      expect(suffix(cut.thresholdIndex + 1)).toBeLessThan(keep);
      expect(cut.index).toBeGreaterThanOrEqual(cut.thresholdIndex);
      expect(cut.keptTokens).toBe(suffix(cut.index));
    }
  });

  it('returns -1 when everything fits', () => {
    const t = pathTokensFromCounts([10, 10, 10]);
    expect(findCutIndex(t, [0, 1, 2], 0, 3, 100).index).toBe(-1);
  });
});
