import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD, compactionSummaryText } from '@/lib/tokens/entryText';
import { countText, loadSession } from '@/lib/testing/compactionData';
import { fileFooter } from './fileOps';
import { TURN_PREFIX_DIVIDER } from './prompts';
import { MIN_SUMMARY_TOKENS, summaryBudget, type BudgetInput } from './summaryBudget';

/**
 * The one output budget of a compaction, split between the history summary,
 * a split turn's prefix summary and the user-messages section, with the text
 * the app adds around them counted on top. Its total is what the preview
 * promises as "at most", so every part must fit inside it.
 */

const fileOps = { readFiles: ['/repo/src/a.ts'], modifiedFiles: ['/repo/src/b.ts', '/repo/README.md'] };

/** The pi session's user requests, as the section's records. */
function piRecords() {
  return loadSession('piV1')
    .path.flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n').trim()] : []))
    .filter(Boolean)
    .slice(0, 40)
    .map((text) => ({ text, full: true }));
}

function cases(): BudgetInput[] {
  const records = piRecords();
  const out: BudgetInput[] = [];
  for (const outputBudget of [2000, 13_107])
    for (const room of [undefined, 400, 3000, 9000, 60_000])
      for (const [previousSummaryTokens, historyTokens, turnPrefixTokens, isSplitTurn] of [
        [0, 20_000, 0, false],
        [0, 300, 0, false],
        [5000, 8000, 0, false],
        [0, 20_000, 9000, true],
        [800, 300, 200, true],
        [5000, 0, 9000, true],
        [0, 0, 9000, true],
      ] as const)
        for (const userMessages of [undefined, records.slice(0, 2), records])
          out.push({ outputBudget, ...(room !== undefined ? { room } : {}), previousSummaryTokens, historyTokens, turnPrefixTokens, isSplitTurn, fileOps, ...(userMessages ? { userMessages } : {}), countText });
  return out;
}

describe('the summary budget', () => {
  it('its parts add up to the total, each a whole number of tokens, and the fixed text is counted with its joins', () => {
    for (const input of cases()) {
      const { budget } = summaryBudget(input);
      const label = JSON.stringify({ ...input, userMessages: input.userMessages?.length, fileOps: undefined, countText: undefined });
      expect(budget.total, label).toBe(budget.fixed + budget.userMessages + budget.carried + budget.history + budget.turnPrefix);
      for (const v of Object.values(budget)) expect(Number.isInteger(v), label).toBe(true);
      const fixedText = compactionSummaryText('') + (input.isSplitTurn ? TURN_PREFIX_DIVIDER : '') + '\n\n' + fileFooter(fileOps);
      expect(budget.fixed, label).toBe(countText(fixedText) + MESSAGE_OVERHEAD + (input.isSplitTurn ? 4 : 3) * 2);
    }
  });

  it('the model’s summaries and the section share the output budget, or what the room leaves (never less than the minimum)', () => {
    for (const input of cases()) {
      const { budget, userMessages } = summaryBudget(input);
      const label = JSON.stringify({ ...input, userMessages: input.userMessages?.length, fileOps: undefined, countText: undefined });
      let output = input.outputBudget;
      if (input.room !== undefined) output = Math.max(Math.min(output, MIN_SUMMARY_TOKENS), Math.min(output, Math.floor(input.room - budget.fixed)));
      const model = output - budget.userMessages;
      // The section takes at most half, and its text fits what it was given (joined by a blank line, with slack).
      expect(budget.userMessages, label).toBeLessThanOrEqual(Math.floor(output / 2));
      if (userMessages) expect(countText(`\n\n${userMessages}`) + 2, label).toBeLessThanOrEqual(budget.userMessages);
      else expect(budget.userMessages, label).toBe(0);
      if (input.userMessages?.length && output >= 4000) expect(userMessages, label).not.toBe('');
      const span = input.previousSummaryTokens + input.historyTokens;
      if (!input.isSplitTurn) {
        expect(budget.turnPrefix, label).toBe(0);
        expect(budget.carried, label).toBe(0);
        // No more than what it replaces, but room for its structure.
        expect(budget.history, label).toBe(Math.min(model, Math.max(MIN_SUMMARY_TOKENS, span)));
      } else if (input.historyTokens === 0) {
        // Only the prefix is new: the previous summary is carried as it is.
        expect(budget.history, label).toBe(0);
        expect(budget.carried, label).toBe(input.previousSummaryTokens);
        expect(budget.turnPrefix, label).toBe(Math.min(Math.max(Math.min(model, MIN_SUMMARY_TOKENS), model - input.previousSummaryTokens), Math.max(MIN_SUMMARY_TOKENS, input.turnPrefixTokens)));
      } else {
        // The prefix gets at most a third; the history what is left.
        expect(budget.turnPrefix, label).toBe(Math.min(Math.max(1, Math.floor(model / 3)), Math.max(MIN_SUMMARY_TOKENS, input.turnPrefixTokens)));
        expect(budget.history, label).toBe(Math.min(model - budget.turnPrefix, Math.max(MIN_SUMMARY_TOKENS, span)));
        expect(budget.carried, label).toBe(0);
      }
      expect(budget.history + budget.turnPrefix + budget.userMessages, label).toBeLessThanOrEqual(output);
    }
  });

  it('with room to spare the whole output budget is available; with little room the summary shrinks to it, not below the minimum', () => {
    const base = { outputBudget: 13_107, previousSummaryTokens: 0, historyTokens: 50_000, turnPrefixTokens: 0, isSplitTurn: false, fileOps, countText };
    expect(summaryBudget(base).budget.history).toBe(13_107);
    expect(summaryBudget({ ...base, room: 100_000 }).budget.history).toBe(13_107);
    const tight = summaryBudget({ ...base, room: 5000 }).budget;
    expect(tight.total).toBe(5000);
    expect(summaryBudget({ ...base, room: 10 }).budget.history).toBe(MIN_SUMMARY_TOKENS);
    // Without the chat tokenizer the fixed text is counted at 3 characters a token (rounded up).
    const { countText: _c, ...rough } = base;
    const fixedText = compactionSummaryText('') + '\n\n' + fileFooter(fileOps);
    expect(summaryBudget(rough).budget.fixed).toBe(Math.ceil(fixedText.length / 3) + MESSAGE_OVERHEAD + 6);
  });
});
