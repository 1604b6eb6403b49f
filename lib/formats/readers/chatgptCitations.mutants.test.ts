import { describe, expect, it } from 'vitest';
import { resolveCitations } from './chatgptCitations';

/**
 * Properties of the citation markers that the first mutation run found unstated (issue 18): how
 * positions are counted at the edges of UTF-16, which citations can match a marker, the spacing
 * left when a marker goes, which addresses become links, and when content references apply.
 * Expected texts are written out by hand from the marker rules (chatgptCitations.ts).
 */
const at = (text: string, marker: string, from = 0) => [...text.slice(0, text.indexOf(marker, from))].length;
const cite = (start: number | undefined, url: string) => ({ ...(start === undefined ? {} : { start_ix: start, end_ix: start + 11 }), metadata: { url, title: 't' } });
const link = (label: string, url: string) => `([${label}](${url}))`;
const A = 'https://a.example/1';
const B = 'https://b.example/2';

describe('resolveCitations: positions in code points', () => {
  it('counts every character beyond the basic plane as one, at both ends of the surrogate ranges, and the basic plane above them as one each', () => {
    // U+10000 and U+10FFFF are the first and last surrogate pairs (D800 DC00, DBFF DFFF); U+FF1A is a basic-plane character above them.
    const text = 'Tide \u{10000} table \u{10FFFF} \uFF1A5【1†source】 then【2†source】.';
    const first = at(text, '【1');
    const second = at(text, '【2');
    expect(first).toBeLessThan(text.indexOf('【1'));
    // Three citations for two markers: only the positions can match them.
    const meta = { citations: [cite(second, B), cite(0, 'https://c.example/'), cite(first, A)] };
    expect(resolveCitations(text, meta)).toBe(`Tide \u{10000} table \u{10FFFF} \uFF1A5 ${link('a.example', A)} then ${link('b.example', B)}.`);
  });

  it('counts a lone surrogate as one character, as the exporter does, without taking the character after it', () => {
    // The emoji makes UTF-16 offsets differ from code points, so only a right count finds the citations.
    const text = '🌊 Broken \uD800\uFF1A here【1†source】 and \uDFFF there【2†source】.';
    const meta = { citations: [cite(at(text, '【1'), A), cite(at(text, '【2'), B), cite(1, 'https://c.example/')] };
    expect(resolveCitations(text, meta)).toBe(`🌊 Broken \uD800\uFF1A here ${link('a.example', A)} and \uDFFF there ${link('b.example', B)}.`);
  });
});

describe('resolveCitations: which citation a bracket marker takes', () => {
  it('skips citations that are not objects', () => {
    const text = 'High water at 06:12【7†source】.';
    expect(resolveCitations(text, { citations: [null, 'x', 3, cite(at(text, '【'), A)] })).toBe(`High water at 06:12 ${link('a.example', A)}.`);
  });

  it('matches a citation without a position only by order, where it counts as before the text', () => {
    const text = 'A【1†source】 and B【2†source】.';
    // Two markers, three citations: no order matching, and the one without a position is not at offset 1 (or anywhere).
    expect(resolveCitations(text, { citations: [cite(undefined, A), cite(900, B), cite(901, B)] })).toBe('A and B.');
    // Two markers, two citations off position: in order of position, the one without a position first.
    expect(resolveCitations(text, { citations: [cite(500, B), cite(undefined, A)] })).toBe(`A ${link('a.example', A)} and B ${link('b.example', B)}.`);
  });

  it('matches by order only when there is one citation per marker', () => {
    expect(resolveCitations('Only【1†source】 here', { citations: [cite(300, A), cite(301, B)] })).toBe('Only here');
  });
});

describe('resolveCitations: spacing where a marker is removed', () => {
  it('keeps the space before a removed marker when a word follows it, and takes every space and tab when punctuation follows', () => {
    expect(resolveCitations('Weight 【13†source】and more, see above.', {})).toBe('Weight and more, see above.');
    expect(resolveCitations('End  \t【1†source】.', {})).toBe('End.');
  });
});

describe('resolveCitations: links', () => {
  const marker = '\uE200cite\uE202turn0search0\uE201';
  const resolve = (ref: Record<string, unknown>) => resolveCitations(`See${marker}`, { content_references: [{ matched_text: marker, ...ref }] });

  it('labels a link by its host without a leading "www." only, and links only addresses that start with http(s)://', () => {
    const out = resolve({ items: [{ url: 'https://awww.tides.example/a' }, { url: 'mailto:x@tides.example?body=https://tides.example/' }] });
    expect(out).toBe(`See ${link('awww.tides.example', 'https://awww.tides.example/a')}`);
  });

  it('escapes every kind of white space in an address as its UTF-8 bytes, so the link stays one valid address', () => {
    // Tab, line feed and EM SPACE (U+2003, UTF-8 E2 80 83); the URL parser drops the first two from the host's view only.
    const out = resolve({ items: [{ url: 'https://tides.example/a\tb\nc\u2003d' }] });
    expect(out).toBe(`See ${link('tides.example', 'https://tides.example/a%09b%0Ac%E2%80%83d')}`);
    expect(decodeURIComponent(out.slice(out.indexOf('](') + 2, -2))).toBe('https://tides.example/a\tb\nc\u2003d');
  });

  it('skips sources that are not objects', () => {
    expect(resolve({ sources: [null, 'x', { url: A }] })).toBe(`See ${link('a.example', A)}`);
  });
});

describe('resolveCitations: content references', () => {
  it('replaces the longest reference first whatever the order of the list, and skips a reference without a matched text', () => {
    const inner = '\uE200cite\uE202turn0search1\uE201';
    const outer = `\uE203${inner} bold\uE204`;
    const refs = [{ items: [{ url: 'https://none.example/' }] }, { matched_text: outer, items: [{ url: 'https://outer.example/' }] }, { matched_text: inner, items: [{ url: 'https://inner.example/' }] }];
    expect(resolveCitations(`Text ${outer} end.`, { content_references: refs })).toBe(`Text ${link('outer.example', 'https://outer.example/')} end.`);
  });

  it('finds a matched text holding regular-expression characters literally', () => {
    const matched = '\uE203[1]\uE204';
    expect(resolveCitations(`Tides vary${matched}.`, { content_references: [{ matched_text: matched, items: [{ url: A }] }] })).toBe(`Tides vary ${link('a.example', A)}.`);
  });

  it('leaves a text without any marker as written, even where a reference names a piece of it', () => {
    const text = 'See [1] below.';
    expect(resolveCitations(text, { content_references: [{ matched_text: '[1]', items: [{ url: A }] }] })).toBe(text);
  });

  it('keeps the name of an entity marker only; another marker with the same body is removed', () => {
    expect(resolveCitations('Try \uE200products\uE202["shoe","Runner X"]\uE201 today', {})).toBe('Try today');
    expect(resolveCitations('Try \uE200entity\uE202["shoe","Runner X"]\uE201 today', {})).toBe('Try Runner X today');
  });
});
