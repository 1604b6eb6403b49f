import { describe, expect, it } from 'vitest';
import { plural } from './plural';

describe('plural', () => {
  it('uses the singular for exactly one and the plural for everything else, zero included', () => {
    expect(plural(1, 'branch point')).toBe('1 branch point');
    expect(plural(0, 'branch point')).toBe('0 branch points');
    expect(plural(2, 'branch', 'branches')).toBe('2 branches');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(10200, 'entry', 'entries')).toBe('10,200 entries');
  });
});
