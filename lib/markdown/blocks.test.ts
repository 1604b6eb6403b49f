import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { messageText } from '@/lib/session/messages';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { splitBlocks, tailOf, type BlockSplit } from './blocks';
import { renderMarkdownToHtml } from './render';

/** The markdown the real transcripts hold: every reply and prompt of every fixture, as the chat renders them. */
function fixtureTexts(): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  for (const name of Object.keys(FIXTURES) as FixtureName[]) {
    const result = importText(readFixture(name), { fileName: FIXTURES[name] });
    for (const s of result.sessions)
      for (const e of s.entries) {
        if (e.type !== 'message' || e.message.role === 'toolResult') continue;
        const text = messageText(e.message);
        if (text.trim()) out.push({ where: `${name} ${e.id}`, text });
      }
  }
  return out;
}

/** What the blocks and the tail render to, one by one, joined as the whole document's blocks are. */
const renderSplit = (split: BlockSplit) =>
  [...split.blocks, tailOf(split)]
    .map(renderMarkdownToHtml)
    .filter((html) => html !== '')
    .join('\n');

/** A reply arriving in pieces: prefixes at `steps` cut points, then the whole text. */
function prefixes(text: string, steps: number): string[] {
  const out: string[] = [];
  for (let i = 1; i < steps; i++) out.push(text.slice(0, Math.floor((text.length * i) / steps)));
  out.push(text);
  return out;
}

const texts = fixtureTexts();
const hard = texts.filter((t) => /```|^\s*[-*+] |^\s*\d+\. |\$\$|^#/m.test(t.text));

describe('splitBlocks on the real transcripts', () => {
  it('has replies with code fences, lists and headings to check', () => {
    expect(hard.length).toBeGreaterThan(50);
    expect(hard.some((t) => t.text.includes('```'))).toBe(true);
    expect(hard.some((t) => /^\s*[-*] /m.test(t.text))).toBe(true);
  });

  it('renders every text, whole and as it streams, to the HTML of rendering it in one piece', () => {
    let split = 0;
    for (const { where, text } of hard) {
      let previous: BlockSplit | undefined;
      for (const prefix of prefixes(text, 12)) {
        const s = splitBlocks(prefix, previous);
        expect(s.blocks.join('') + tailOf(s), where).toBe(prefix);
        expect(renderSplit(s), `${where} at ${prefix.length} of ${text.length}`).toBe(renderMarkdownToHtml(prefix));
        if (s.blocks.length > 0) split++;
        previous = s;
      }
    }
    // The check is only worth something if texts were actually split.
    expect(split).toBeGreaterThan(100);
  });
});

describe('splitBlocks', () => {
  const reply = [
    '## Plan',
    '',
    'First a paragraph with `code` and $x^2$ inline.',
    '',
    '- one',
    '',
    '- two, a loose list',
    '',
    '```ts',
    'const a = 1;',
    '',
    'const b = 2; // a blank line inside the fence',
    '```',
    '',
    '$$',
    '\\sum_i x_i',
    '',
    '= 1',
    '$$',
    '',
    '1. first',
    '2. second',
    '',
    '> quoted',
    '',
    'The end.',
  ].join('\n');

  it('never cuts inside a fence or display math, and keeps a loose list whole', () => {
    const s = splitBlocks(reply);
    expect(s.blocks).toContain('```ts\nconst a = 1;\n\nconst b = 2; // a blank line inside the fence\n```\n\n');
    expect(s.blocks).toContain('$$\n\\sum_i x_i\n\n= 1\n$$\n\n');
    expect(s.blocks).toContain('- one\n\n- two, a loose list\n\n');
    expect(tailOf(s)).toBe('The end.');
    expect(renderSplit(s)).toBe(renderMarkdownToHtml(reply));
  });

  it('parses only the tail when the text grows, and keeps the blocks it had', () => {
    let s = splitBlocks('');
    for (let n = 1; n <= reply.length; n++) {
      const next = splitBlocks(reply.slice(0, n), s);
      expect(next.blocks.slice(0, s.blocks.length)).toEqual(s.blocks);
      expect(renderSplit(next)).toBe(renderMarkdownToHtml(reply.slice(0, n)));
      s = next;
    }
  });

  it('does not split a text with link or footnote definitions, which reach across blocks', () => {
    const text = 'See [the docs][d] and a note[^1].\n\nMore.\n\n[d]: https://example.com\n\n[^1]: The note.';
    expect(splitBlocks(text).blocks).toEqual([]);
  });

  it('starts over when the text is not an extension of the previous one', () => {
    const a = splitBlocks('# A\n\nfirst\n\nsecond');
    const b = splitBlocks('# B\n\nother\n\nthird', a);
    expect(b.blocks).toEqual(['# B\n\n', 'other\n\n']);
  });
});
