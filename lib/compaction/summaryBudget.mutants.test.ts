import { describe, expect, it } from 'vitest';
import { summaryBudget, type BudgetInput } from './summaryBudget';
import { userMessagesBudgetChars } from './userMessages';

/** The user-messages section inside the budget: rendered smaller until the given count fits, within its character cap, or left out. */

const base = (over: Partial<BudgetInput>): BudgetInput => ({
  outputBudget: 4000,
  previousSummaryTokens: 0,
  historyTokens: 20_000,
  turnPrefixTokens: 0,
  isSplitTurn: false,
  fileOps: { readFiles: [], modifiedFiles: [] },
  ...over,
});
const records = (n: number, size: number) => Array.from({ length: n }, (_, i) => ({ text: `request ${i}\n${'w'.repeat(size)}`, full: true }));

describe('the user-messages section in the budget', () => {
  it('a dense count (a token per character) shrinks the section until it fits half the budget, and it is still there', () => {
    const d = summaryBudget(base({ userMessages: records(40, 300), countText: (t) => t.length }));
    expect(d.userMessages).not.toBe('');
    expect(d.budget.userMessages).toBeLessThanOrEqual(2000);
    expect(d.budget.userMessages).toBe(`\n\n${d.userMessages}`.length + 2);
    // It uses most of what it may: the shrinking stops close to the bound.
    expect(d.budget.userMessages).toBeGreaterThan(2000 * 0.8);
  });

  it('never more characters than the span allows, however large the budget', () => {
    const span = 500;
    const d = summaryBudget(base({ outputBudget: 100_000, historyTokens: span, userMessages: records(40, 300) }));
    expect(d.userMessages.length).toBeLessThanOrEqual(userMessagesBudgetChars(span));
    expect(d.userMessages).not.toBe('');
  });

  it('no room even for the newest first line: no section, and it costs nothing', () => {
    const d = summaryBudget(base({ outputBudget: 4000, userMessages: records(3, 50), countText: (t) => t.length * 1000 }));
    expect(d.userMessages).toBe('');
    expect(d.budget.userMessages).toBe(0);
    // A span so small that its character cap holds no entry: no section either, even where an empty one would count little.
    const small = summaryBudget(base({ historyTokens: 100, userMessages: records(3, 50), countText: (t) => t.length }));
    expect(small.userMessages).toBe('');
    expect(small.budget.userMessages).toBe(0);
  });
});
