import { describe, expect, it } from 'vitest';
import { newId } from './ids';

describe('newId', () => {
  it('is 12 URL-safe characters by default, or the length asked for', () => {
    expect(newId()).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(newId(1)).toMatch(/^[A-Za-z0-9_-]$/);
    expect(newId(40)).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(encodeURIComponent(newId(64))).toHaveLength(64);
  });

  it('does not repeat, and draws on all 64 letters evenly', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(64);
    // 240,000 letters: 3,750 of each expected; a letter drawn twice as often (or never) is far outside chance.
    for (const n of counts.values()) expect(n).toBeGreaterThan(3_000);
    for (const n of counts.values()) expect(n).toBeLessThan(4_500);
  });
});
