import { describe, expect, it } from 'vitest';
import { abortError, addUsage, isAbortError } from './summarizer';

describe('abort errors', () => {
  it('the default message, and only objects named AbortError count', () => {
    const e = abortError();
    expect(e.message).toBe('Summary aborted');
    expect(isAbortError(e)).toBe(true);
    expect(isAbortError({ name: 'AbortError' })).toBe(true);
    expect(isAbortError(null)).toBe(false);
    expect(isAbortError(undefined)).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
    // A function has a name too; it is no error.
    expect(isAbortError(function AbortError() {})).toBe(false);
  });
});

describe('addUsage', () => {
  it('either side missing: the other one as it is', () => {
    const a = { input: 1, output: 2 };
    expect(addUsage(a, undefined)).toBe(a);
    expect(addUsage(undefined, a)).toBe(a);
  });

  it('sums every figure either side reports, and leaves out those neither does', () => {
    expect(addUsage({ input: 1, output: 2, cacheRead: 3, cost: 0.5 }, { input: 10, output: 20, cacheWrite: 7, totalTokens: 40 })).toStrictEqual({
      input: 11,
      output: 22,
      cacheRead: 3,
      cacheWrite: 7,
      totalTokens: 40,
      cost: 0.5,
    });
    expect(addUsage({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 5, cost: 1 }, { input: 1, output: 1, cacheRead: 2, cacheWrite: 3, totalTokens: 4, cost: 2 })).toStrictEqual({
      input: 2,
      output: 3,
      cacheRead: 5,
      cacheWrite: 7,
      totalTokens: 9,
      cost: 3,
    });
    expect(addUsage({ input: 1, output: 2 }, { input: 3, output: 4 })).toStrictEqual({ input: 4, output: 6 });
  });
});
