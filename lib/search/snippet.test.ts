import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { importText } from '@/lib/formats';
import { messageText } from '@/lib/session/messages';
import { makeSnippet } from './snippet';

/** The longest assistant reply of the pi fixture: real prose with code and lists. */
function realReply(): string {
  const [session] = importText(readFixture('piV1')).sessions;
  const texts = session!.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? [messageText(e.message)] : []));
  return texts.sort((a, b) => b.length - a.length)[0]!;
}

describe('makeSnippet', () => {
  it('cuts a one-line excerpt around the first match, on word boundaries, with ellipses where text was cut', () => {
    const text = realReply();
    const flat = text.replace(/\s+/g, ' ').trim();
    // A word from the middle of the reply, so both sides are cut.
    const words = flat.split(' ');
    const word = words.slice(Math.floor(words.length / 2)).find((w) => /^[a-z]{6,}$/.test(w))!;
    const s = makeSnippet(text, [word]);
    expect(s.match.toLowerCase()).toBe(word);
    expect(s.before.startsWith('…')).toBe(true);
    expect(s.after.endsWith('…')).toBe(true);
    // What is shown is the text as it is, around the match.
    const shown = s.before.slice(1) + s.match + s.after.slice(0, -1);
    expect(flat).toContain(shown);
    expect(flat.indexOf(shown) + s.before.length - 1).toBe(flat.toLowerCase().search(new RegExp(`(?<![\\p{L}\\p{N}_])${word}`, 'u')));
    // Whole words only at the edges: the character outside each edge is a space.
    const at = flat.indexOf(shown);
    expect(flat[at - 1]).toBe(' ');
    expect(flat[at + shown.length]).toBe(' ');
    expect(shown.length).toBeLessThan(140 + s.match.length);
  });

  it('highlights the whole word a prefix matched, and only at the start of a word', () => {
    expect(makeSnippet('Recompact later. Compaction keeps the summary.', ['compa'])).toEqual({ before: 'Recompact later. ', match: 'Compaction', after: ' keeps the summary.' });
  });

  it('takes the earliest of several terms, case-insensitively', () => {
    expect(makeSnippet('alpha Beta gamma', ['gamma', 'beta']).match).toBe('Beta');
  });

  it('without a match shows the start of the text', () => {
    expect(makeSnippet('  a short\n\ntext ', ['zzz'])).toEqual({ before: '', match: '', after: 'a short text' });
  });
});
