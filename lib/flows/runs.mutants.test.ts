import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunRegistry } from './runs';

/**
 * The run registry's edges the other run tests leave open: a run starts with
 * no text and no reasoning, ending one session's run leaves the others'
 * alone, and a throttled patcher applies at most one update per interval,
 * also when updates keep coming after one was applied.
 */

afterEach(() => vi.useRealTimers());

describe('RunRegistry', () => {
  it('a run starts with nothing streamed: no text, no reasoning, no entry yet', () => {
    const runs = new RunRegistry();
    const run = runs.start({ sessionId: 's', kind: 'reply', parentId: 'p1', abort: new AbortController() });
    expect(run).toEqual({ sessionId: 's', kind: 'reply', parentId: 'p1', entryId: null, text: '', reasoning: '', abort: run.abort });
    expect(runs.get('s')).toBe(run);
  });

  it('ending one session’s run leaves the other sessions’ runs running', () => {
    const runs = new RunRegistry();
    const a = runs.start({ sessionId: 'a', kind: 'reply', parentId: null, abort: new AbortController() });
    const b = runs.start({ sessionId: 'b', kind: 'compaction', parentId: null, abort: new AbortController(), status: 'Compacting…' });
    runs.end(a);
    expect(runs.get('a')).toBeUndefined();
    expect(runs.get('b')).toBe(b);
    expect(Object.keys(runs.getSnapshot())).toEqual(['b']);
  });

  it('a throttled patcher applies at most one update per interval, also when updates go on after one landed', () => {
    vi.useFakeTimers();
    const runs = new RunRegistry();
    const run = runs.start({ sessionId: 's', kind: 'reply', parentId: null, abort: new AbortController() });
    const applied: string[] = [];
    runs.subscribe(() => applied.push(runs.get('s')!.text));
    const patch = runs.throttled(run, 50);
    patch({ text: 'a' }); // t = 0: the interval starts
    vi.advanceTimersByTime(10);
    patch({ text: 'ab' }); // t = 10: waits for the same interval
    vi.advanceTimersByTime(45); // t = 55: the interval ended at 50
    expect(applied).toEqual(['ab']);
    patch({ text: 'abc' }); // t = 55: a new interval, ending at 105
    vi.advanceTimersByTime(10); // t = 65
    expect(applied).toEqual(['ab']);
    vi.advanceTimersByTime(40); // t = 105
    expect(applied).toEqual(['ab', 'abc']);
    vi.advanceTimersByTime(500);
    expect(applied).toEqual(['ab', 'abc']);
  });
});
