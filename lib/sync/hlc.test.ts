import { describe, expect, it } from 'vitest';
import { compareHlc, formatHlc, MAX_DRIFT_MS, parseHlc, receive, tick } from './hlc';

describe('hybrid logical clock', () => {
  it('orders local events even when the wall clock stands still or goes back', () => {
    const a = tick(null, 1000, 'A');
    const b = tick(a, 1000, 'A');
    const c = tick(b, 900, 'A');
    expect([a, b, c].map(formatHlc)).toEqual([...[a, b, c].map(formatHlc)].sort(compareHlc));
    expect(new Set([a, b, c].map(formatHlc)).size).toBe(3);
    expect(parseHlc(formatHlc(c))).toEqual(c);
  });

  it('after receiving a remote clock, the next local event is later than it, and string order is clock order', () => {
    const remote = { wall: 5000, counter: 3, node: 'B' };
    const after = receive(tick(null, 1000, 'A'), remote, 1200, 'A');
    const next = tick(after, 1300, 'A');
    expect(compareHlc(formatHlc(next), formatHlc(remote))).toBe(1);
    expect(compareHlc(formatHlc({ wall: 10_000, counter: 0, node: 'A' }), formatHlc({ wall: 9_999, counter: 0xfff, node: 'Z' }))).toBe(1);
  });

  it('does not follow a remote clock days in the future', () => {
    const next = receive(null, { wall: 10_000 + MAX_DRIFT_MS + 1, counter: 0, node: 'B' }, 10_000, 'A');
    expect(next.wall).toBe(10_000);
  });

  it('ties on wall and counter break by node, so two devices never produce the same clock', () => {
    expect(compareHlc(formatHlc({ wall: 1, counter: 0, node: 'A' }), formatHlc({ wall: 1, counter: 0, node: 'B' }))).toBe(-1);
  });
});
