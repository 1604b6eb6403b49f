import { describe, expect, it } from 'vitest';
import { ageGroup, groupByAge } from './ageGroups';

// Local-time constructors, so the expectations hold in any time zone the tests run in.
const now = new Date(2026, 2, 15, 9, 30).getTime(); // 15 March 2026, 09:30

describe('ageGroup', () => {
  it('splits by calendar day, not by 24-hour spans', () => {
    expect(ageGroup(new Date(2026, 2, 15, 0, 1).getTime(), now)).toBe('Today');
    expect(ageGroup(new Date(2026, 2, 14, 23, 59).getTime(), now)).toBe('Yesterday');
    expect(ageGroup(new Date(2026, 2, 14, 0, 0).getTime(), now)).toBe('Yesterday');
    expect(ageGroup(new Date(2026, 2, 13, 23, 0).getTime(), now)).toBe('Previous 7 days');
  });

  it('goes from weeks to months', () => {
    expect(ageGroup(new Date(2026, 2, 8).getTime(), now)).toBe('Previous 7 days');
    expect(ageGroup(new Date(2026, 2, 7).getTime(), now)).toBe('Previous 30 days');
    expect(ageGroup(new Date(2026, 1, 13).getTime(), now)).toBe('Previous 30 days');
    expect(ageGroup(new Date(2026, 1, 12).getTime(), now)).toBe('February 2026');
    expect(ageGroup(new Date(2025, 11, 31).getTime(), now)).toBe('December 2025');
  });

  it('never dates a missing time to 1970, and puts future times (another device’s clock) under Today', () => {
    expect(ageGroup(0, now)).toBe('Undated');
    expect(ageGroup(Number.NaN, now)).toBe('Undated');
    expect(ageGroup(now + 3_600_000, now)).toBe('Today');
  });
});

describe('groupByAge', () => {
  it('keeps the input order inside and across groups', () => {
    const rows = [
      { id: 'a', t: new Date(2026, 2, 15, 8).getTime() },
      { id: 'b', t: new Date(2026, 2, 15, 7).getTime() },
      { id: 'c', t: new Date(2026, 2, 14, 20).getTime() },
      { id: 'd', t: new Date(2025, 5, 1).getTime() },
    ];
    const groups = groupByAge(rows, (r) => r.t, now);
    expect(groups.map((g) => [g.label, g.items.map((r) => r.id)])).toEqual([
      ['Today', ['a', 'b']],
      ['Yesterday', ['c']],
      ['June 2025', ['d']],
    ]);
  });
});
