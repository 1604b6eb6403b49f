import { describe, expect, it } from 'vitest';
import { loadSession } from '@/lib/testing/compactionData';
import { TURN_PREFIX_DIVIDER } from './prompts';
import type { SummaryItem } from './types';
import { firstLineOf, mergedUserMessages, renderUserMessages, splitUserMessages, userMessageText, userMessagesBudgetChars, userMessagesOf, withUserMessages } from './userMessages';

/** The user-messages section: its wording, its bounds, and reading it back out of a summary. */

const records = (...texts: string[]) => texts.map((text) => ({ text, full: true }));

describe('rendering the section', () => {
  it('says how many messages there are and how each is kept, in the singular too', () => {
    expect(renderUserMessages(records('Fix the login form'), 10_000)).toBe(
      '## User messages\n_All 1 user message of the summarised conversation, oldest first (1 verbatim); kept by the app, not paraphrased._\n\n1.\n> Fix the login form',
    );
    expect(renderUserMessages([], 10_000)).toBe('');
  });

  it('a message already shortened by an earlier summary stays a first line, even with room to spare', () => {
    const text = renderUserMessages([{ text: 'Old request', full: false }, ...records('New request\nwith details')], 10_000);
    expect(text).toContain('(1 verbatim, 1 by their first line only)');
    expect(text).toContain('1. (first line only) Old request\n2.\n> New request\n> with details');
  });

  it('over budget: one message left out is named in the singular, and the section stays within its budget', () => {
    const recs = records(...Array.from({ length: 6 }, (_, i) => `Request number ${i + 1}: ${'details '.repeat(20)}`));
    let oneLeftOut = false;
    for (let budget = 200; budget < 2000; budget += 25) {
      const text = renderUserMessages(recs, budget);
      if (!text) continue;
      expect(text.length, `budget ${budget}`).toBeLessThanOrEqual(budget);
      const left = /… (\d+) user messages? left out for space …/.exec(text);
      if (left?.[1] === '1') {
        expect(text).toContain('… 1 user message left out for space …');
        expect(text).toContain(', 1 left out)');
        oneLeftOut = true;
      }
    }
    expect(oneLeftOut).toBe(true);
    // Not even the newest message's first line fits: no section at all.
    expect(renderUserMessages(recs, 150)).toBe('');
  });

  it('first lines are cut at 200 characters with an ellipsis; blank leading lines are skipped', () => {
    const long = `\n\n   ${'w'.repeat(250)}  \nsecond`;
    expect(firstLineOf(long)).toBe(`${'w'.repeat(199)}…`);
    expect(firstLineOf('short\nsecond')).toBe('short');
    expect(firstLineOf('abcdef', 4)).toBe('abc…');
    expect(firstLineOf('  \n ')).toBe('');
  });

  it('the section may hold up to 1.2 characters per span token, at most 60 000', () => {
    expect(userMessagesBudgetChars(1000)).toBe(1200);
    expect(userMessagesBudgetChars(100_000)).toBe(60_000);
    expect(userMessagesBudgetChars(0)).toBe(0);
    expect(userMessagesBudgetChars(-5)).toBe(0);
  });
});

describe('which messages and how they read', () => {
  it('only user messages with something to show; images and files as markers', () => {
    const items: SummaryItem[] = [
      { kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: '  look at this ' }, { type: 'image', mimeType: 'image/png', width: 2, height: 3 }, { type: 'file', name: 'a.csv', mimeType: 'text/csv', byteLength: 10 }] } },
      { kind: 'message', entryId: 'u2', message: { role: 'user', content: [{ type: 'text', text: '   ' }] } },
      { kind: 'message', entryId: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'not a user message' }] } },
      { kind: 'branchSummary', entryId: 'b', summary: 'x' },
    ];
    expect(userMessageText(items[0]!)).toBe('look at this \n[image: image/png, 2x3]\n[file: a.csv]');
    expect(userMessagesOf(items)).toEqual([{ text: 'look at this \n[image: image/png, 2x3]\n[file: a.csv]', full: true }]);
    expect(userMessageText(items[2]!)).toBeNull();
    expect(userMessageText(items[3]!)).toBeNull();
  });

  it('an earlier summary’s messages come first, then the new ones; no earlier summary, only the new ones', () => {
    const earlier = `## Goal\nG\n\n${renderUserMessages(records('first ask'), 10_000)}`;
    const items: SummaryItem[] = [{ kind: 'message', entryId: 'u', message: { role: 'user', content: [{ type: 'text', text: 'second ask' }] } }];
    expect(mergedUserMessages(earlier, items)).toEqual(records('first ask', 'second ask'));
    expect(mergedUserMessages(null, items)).toEqual(records('second ask'));
    expect(mergedUserMessages('## Goal\nno section here', items)).toEqual(records('second ask'));
  });
});

describe('reading the section back', () => {
  it('finds it at the start, in the middle before a divider or a heading, and at the end', () => {
    const section = renderUserMessages(records('one', 'two\nlines'), 10_000);
    expect(splitUserMessages(section)).toEqual({ records: records('one', 'two\nlines'), rest: '' });
    const mid = `## Goal\nG\n\n${section}${TURN_PREFIX_DIVIDER}Prefix summary`;
    expect(splitUserMessages(mid).records).toEqual(records('one', 'two\nlines'));
    expect(splitUserMessages(mid).rest).toBe(`## Goal\nG\n\n${TURN_PREFIX_DIVIDER.trim()}\n\nPrefix summary`);
    const beforeHeading = `${section}\n\n### Later\nmore`;
    expect(splitUserMessages(beforeHeading)).toEqual({ records: records('one', 'two\nlines'), rest: '### Later\nmore' });
    // A heading that merely mentions the words is not the section.
    expect(splitUserMessages('## User messages are important\ntext').records).toEqual([]);
  });

  it('replacing a body’s section: the new one goes at the end, an empty one removes it', () => {
    const body = `## Goal\nG\n\n${renderUserMessages(records('old'), 10_000)}`;
    const fresh = renderUserMessages(records('new'), 10_000);
    expect(withUserMessages(body, fresh)).toBe(`## Goal\nG\n\n${fresh}`);
    expect(withUserMessages(body, '')).toBe('## Goal\nG');
    expect(withUserMessages('', fresh)).toBe(fresh);
    expect(withUserMessages('## Goal\nG  \n\n', fresh)).toBe(`## Goal\nG\n\n${fresh}`);
  });

  it('round trip on the real pi session’s requests, with shortened ones mixed in', () => {
    const texts = loadSession('piV1')
      .path.flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n').trim()] : []))
      .filter(Boolean)
      .slice(0, 30);
    const recs = texts.map((text, i) => (i % 3 === 0 ? { text: firstLineOf(text), full: false } : { text, full: true }));
    const back = splitUserMessages(`## Goal\nx\n\n${renderUserMessages(recs, 1_000_000)}`).records;
    expect(back).toEqual(recs);
  });
});
