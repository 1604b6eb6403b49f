import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatCountShort, formatDuration, formatRelative } from './numbers';

describe('number formatting', () => {
  it('groups digits the same way everywhere, negative numbers and fractions included', () => {
    expect([0, 950, 1_000, 184_525, 1_234_567, -12_345, 999.6].map(formatCount)).toEqual(['0', '950', '1,000', '184,525', '1,234,567', '-12,345', '1,000']);
  });

  it('shortens counts for tight spaces', () => {
    expect([950, 1_234, 12_345, 999_999, 1_234_567].map(formatCountShort)).toEqual(['950', '1.2k', '12k', '1000k', '1.2M']);
  });

  it('sizes, durations and ages in words a person reads', () => {
    expect([512, 2048, 5 * 1024 * 1024, 3 * 1024 ** 3].map(formatBytes)).toEqual(['512 B', '2.0 KB', '5.0 MB', '3.00 GB']);
    expect([250, 1500, 125_000].map(formatDuration)).toEqual(['250 ms', '1.5 s', '2 min 5 s']);
    const now = 1_700_000_000_000;
    expect([now - 10_000, now - 5 * 60_000, now - 3 * 3600_000, now - 2 * 86_400_000].map((t) => formatRelative(t, now))).toEqual(['just now', '5 min ago', '3 h ago', '2 d ago']);
  });
});
