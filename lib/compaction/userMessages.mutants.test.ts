import { describe, expect, it } from 'vitest';
import { firstLineOf, renderUserMessages, splitUserMessages, type UserMessageRecord } from './userMessages';

/** The user-messages section: first lines, what its header says, and reading it back from a summary. */

describe('firstLineOf', () => {
  it('the first line with something on it, trimmed; cut with an ellipsis only past the limit', () => {
    expect(firstLineOf('   \n  real line  \nmore')).toBe('real line');
    expect(firstLineOf('a'.repeat(200))).toBe('a'.repeat(200));
    expect(firstLineOf('a'.repeat(201))).toBe(`${'a'.repeat(199)}…`);
    expect(firstLineOf('abcdef', 5)).toBe('abcd…');
  });
});

describe('renderUserMessages: the header counts what the section holds', () => {
  it('at every budget, verbatim, shortened and left-out counts match the entries', () => {
    const records: UserMessageRecord[] = Array.from({ length: 14 }, (_, i) => ({ text: `request ${i}\n${'detail '.repeat(i + 2)}`, full: i % 5 !== 3 }));
    let seen = 0;
    for (let budget = 0; budget <= 2000; budget += 7) {
      const s = renderUserMessages(records, budget);
      if (!s) continue;
      seen++;
      const lines = s.split('\n');
      const verbatim = lines.filter((l) => /^\d+\.$/.test(l)).length;
      const shortened = lines.filter((l) => /^\d+\. \(first line only\) /.test(l)).length;
      const omitted = [...s.matchAll(/^… (\d+) user messages? left out for space …$/gm)].reduce((a, m) => a + Number(m[1]), 0);
      expect(verbatim + shortened + omitted, `budget ${budget}`).toBe(14);
      expect(s.length, `budget ${budget}`).toBeLessThanOrEqual(budget);
      const parts = [`${verbatim} verbatim`, ...(shortened ? [`${shortened} by their first line only`] : []), ...(omitted ? [`${omitted} left out`] : [])];
      expect(lines[1], `budget ${budget}`).toBe(`_All 14 user messages of the summarised conversation, oldest first (${parts.join(', ')}); kept by the app, not paraphrased._`);
    }
    expect(seen).toBeGreaterThan(100);
  });
});

describe('splitUserMessages: reading the section back', () => {
  const section = '## User messages\n_All 3 user messages …_\n\n1. (first line only) Fix the login\n2.\n> first\n>\n> second\n3.\n> third';

  it('between other sections: the records, and the summary without it, the next heading whole', () => {
    const back = splitUserMessages(`## Goal\nX\n\n${section}\n\n## After\nY`);
    expect(back.records).toEqual([
      { text: 'Fix the login', full: false },
      { text: 'first\n\nsecond', full: true },
      { text: 'third', full: true },
    ]);
    expect(back.rest).toBe('## Goal\nX\n\n## After\nY');
  });

  it('after a single line break, and at the very start after a blank line (an edited summary), the section is still found', () => {
    expect(splitUserMessages(`## Goal\nX\n${section}`)).toEqual({ records: expect.any(Array), rest: '## Goal\nX' });
    expect(splitUserMessages(`## Goal\nX\n${section}`).records).toHaveLength(3);
    expect(splitUserMessages(`\n${section}\n\n## After\nY`)).toEqual({
      records: [
        { text: 'Fix the login', full: false },
        { text: 'first\n\nsecond', full: true },
        { text: 'third', full: true },
      ],
      rest: '## After\nY',
    });
  });

  it('numbered lines elsewhere in the summary are not user messages', () => {
    const back = splitUserMessages(`## Progress\n1. (first line only) not a request\n2.\n> not one either\n\n${section}`);
    expect(back.records.map((r) => r.text)).toEqual(['Fix the login', 'first\n\nsecond', 'third']);
  });

  it('a verbatim entry ends at the first line that is not quoted', () => {
    const back = splitUserMessages('## User messages\n_…_\n\n1.\n> kept\nstray text\n> not part of it');
    expect(back.records).toEqual([{ text: 'kept', full: true }]);
  });
});
