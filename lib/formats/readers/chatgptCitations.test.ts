import { describe, expect, it } from 'vitest';
import { resolveCitations } from './chatgptCitations';

/**
 * The marker forms of ChatGPT browsing replies, as exports write them (see chatgpt.test.ts for the
 * real export's citations): positions counted in code points, markers without a source, references
 * by source list or single url, entity markers the exporter wrote badly.
 */
const cite = (start: number, url: string | undefined) => ({ start_ix: start, end_ix: start + 11, metadata: url === undefined ? {} : { url, title: 't' } });

describe('resolveCitations', () => {
  it('leaves text without markers as written', () => {
    const text = 'Tides at Brest: 06:12 and 18:40.';
    expect(resolveCitations(text, { citations: [cite(0, 'https://a.example')] })).toBe(text);
    expect(resolveCitations(text, undefined)).toBe(text);
  });

  it('finds a citation by its position in code points, after emoji that take two JavaScript units', () => {
    const text = '🌊🌊 High water at 06:12【7†source】 and low at 12:30【9†source】.';
    const firstAt = [...text.slice(0, text.indexOf('【'))].length;
    const secondAt = [...text.slice(0, text.lastIndexOf('【'))].length;
    // Three citations for two markers: only the positions can match them.
    const meta = { citations: [cite(secondAt, 'https://tides.example/low'), cite(1, 'https://other.example/'), cite(firstAt, 'https://www.tides.example/high')] };
    expect(resolveCitations(text, meta)).toBe('🌊🌊 High water at 06:12 ([tides.example](https://www.tides.example/high)) and low at 12:30 ([tides.example](https://tides.example/low)).');
  });

  it('matches citations in order when their positions are off but there is one per marker', () => {
    const text = 'First【1†source】, second【2†source】';
    const meta = { citations: [cite(500, 'https://b.example/2'), cite(400, 'https://a.example/1')] };
    expect(resolveCitations(text, meta)).toBe('First ([a.example](https://a.example/1)), second ([b.example](https://b.example/2))');
  });

  it('drops a marker it cannot resolve, with the space before it when punctuation or a space follows', () => {
    expect(resolveCitations('Weight is 2 t 【13†source】.', {})).toBe('Weight is 2 t.');
    expect(resolveCitations('Weight 【13†source】 and more', { citations: [{ start_ix: 7 }] })).toBe('Weight and more');
    expect(resolveCitations('End 【1†source】', { citations: [cite(4, undefined)] })).toBe('End');
    expect(resolveCitations('A【1†source】b', { citations: [cite(1, 'ftp://files.example/x')] })).toBe('Ab');
  });

  it('writes each source once, links only web addresses, and keeps the link syntax intact', () => {
    const marker = '\uE200cite\uE202turn0search0\uE201';
    const meta = {
      content_references: [
        {
          matched_text: marker,
          items: [{ url: 'https://en.wikipedia.org/wiki/Tide_(disambiguation)' }, { url: 'https://en.wikipedia.org/wiki/Tide_(disambiguation)' }, { url: 'javascript:alert(1)' }, { title: 'no url' }, 'junk'],
          sources: [{ url: 'https://[bad' }, { title: 'no url' }],
          url: 'http://x.example/a b',
        },
      ],
    };
    expect(resolveCitations(`See${marker}`, meta)).toBe('See ([en.wikipedia.org](https://en.wikipedia.org/wiki/Tide_%28disambiguation%29), [https://bad](https://[bad), [x.example](http://x.example/a%20b))');
  });

  it('replaces the longest reference first, skips empty or absent ones, and removes what stays unresolved', () => {
    const inner = '\uE200cite\uE202turn0search1\uE201';
    const outer = `\uE203${inner} bold\uE204`;
    const meta = {
      content_references: [
        { matched_text: inner, items: [{ url: 'https://inner.example/' }] },
        { matched_text: outer, items: [{ url: 'https://outer.example/' }] },
        { matched_text: ' ', items: [{ url: 'https://space.example/' }] },
        { matched_text: 'absent', items: [{ url: 'https://absent.example/' }] },
        { items: [] },
        null,
      ],
    };
    expect(resolveCitations(`Text ${outer} end \uE200cite\uE202turn9\uE201.`, meta)).toBe('Text ([outer.example](https://outer.example/)) end.');
  });

  it('keeps an entity name and drops an entity the exporter wrote badly, and stray marker characters', () => {
    expect(resolveCitations('\uE200entity\uE202["city","Brest"]\uE201 has tides', {})).toBe('Brest has tides');
    expect(resolveCitations('A \uE200entity\uE202not json\uE201, b \uE200entity\uE202["x",3]\uE201.', {})).toBe('A, b.');
    expect(resolveCitations('x\uE203y\uE206z', {})).toBe('xyz');
  });
});
