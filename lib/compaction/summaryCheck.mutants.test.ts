import { describe, expect, it } from 'vitest';
import { retryBudget, summaryFlaw } from './summaryCheck';

/** The flaw rules and the retry budget at their edges, with the figures worked out by hand. */

describe('summaryFlaw', () => {
  it('a summary as large as its span is larger; one token less is fine; an unknown span (0) is never exceeded', () => {
    expect(summaryFlaw({}, 100, 100)).toBe('larger');
    expect(summaryFlaw({}, 99, 100)).toBeNull();
    expect(summaryFlaw({}, 10, 0)).toBeNull();
    expect(summaryFlaw({}, 10, -5)).toBeNull();
    expect(summaryFlaw({ flaw: 'length' }, 1, 100)).toBe('length');
  });
});

describe('retryBudget', () => {
  it('half the first budget, under 60 % of what the span leaves after the added parts, the cap at most 1.5 times the target', () => {
    // Span 1000, the app adds 200: the summary must stay under 799 tokens; the target is 60 % of that.
    const r = retryBudget('larger', 100_000, 1000, 200)!;
    expect(r.maxOutputTokens).toBe(718);
    expect(r.note).toContain('at most about 479 tokens (359 words)');
    expect(r.note).toContain('rejected because it was larger than the conversation it replaces');
  });

  it('an unknown span (0) bounds nothing: half the plan budget, the cap 1.5 times that', () => {
    expect(retryBudget('empty', 4000, 0, 100)).toEqual({
      maxOutputTokens: 3000,
      note: expect.stringContaining('at most about 2000 tokens (1500 words)'),
    });
  });

  it('a target under 128 tokens is not worth a retry; 128 is', () => {
    expect(retryBudget('length', 256, 0, 0)!.maxOutputTokens).toBe(192);
    expect(retryBudget('length', 255, 0, 0)).toBeNull();
  });
});
