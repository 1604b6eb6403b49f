import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { prng, randomChunks } from '@/lib/testing/formatChecks';
import { JsonArrayStream } from './jsonArrayStream';
import { ImportError } from './types';

function elementsOf(chunks: readonly string[]): unknown[] {
  const out: unknown[] = [];
  const s = new JsonArrayStream((v) => out.push(v), 'chatgpt');
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

function errorOf(chunks: readonly string[]): ImportError {
  try {
    elementsOf(chunks);
  } catch (err) {
    expect(err).toBeInstanceOf(ImportError);
    return err as ImportError;
  }
  throw new Error('expected an ImportError');
}

/** Every way of cutting `text` in two, and random cuts of sizes 1..max. */
function chunkings(text: string, seed: number, maxes = [1, 3, 17, 200]): string[][] {
  const out: string[][] = [];
  for (let at = 0; at <= text.length; at++) out.push([text.slice(0, at), text.slice(at)].filter((c) => c.length > 0));
  const rand = prng(seed);
  for (const max of maxes) out.push(randomChunks(text, rand, max));
  return out;
}

describe('JsonArrayStream', () => {
  it('gives the elements of real exports as JSON.parse does, however the text is cut', () => {
    for (const name of ['chatgptExport', 'claudeAiExport'] as const) {
      const text = readFixture(name);
      const expected = JSON.parse(text) as unknown[];
      const rand = prng(name.length);
      for (const max of [1 + Math.floor(text.length / 2000), 4096, 65_536]) expect(elementsOf(randomChunks(text, rand, max))).toStrictEqual(expected);
      // The same export written without whitespace, as ChatGPT writes it.
      const compact = JSON.stringify(expected);
      expect(elementsOf(randomChunks(compact, rand, 5000))).toStrictEqual(expected);
    }
  });

  it('keeps escapes whole across chunk ends: quotes, backslashes, \\u escapes, brackets inside strings', () => {
    const values = [
      { text: 'say "hi" \\ then \\"quoted\\" ] } [ {', path: 'C:\\dir\\', u: '\u00e9\u2603 🌍 \\u0022' },
      'a top-level string with "quotes" and a \\ backslash',
      ['nested', ['arrays', { with: ['objects', null] }]],
      -12.5e3,
      true,
      false,
      null,
      0,
      {},
      [],
      '',
    ];
    const text = ` [\n ${values.map((v) => JSON.stringify(v)).join(' ,\r\n\t')} \n] \n`;
    for (const chunks of chunkings(text, 1)) expect(elementsOf(chunks)).toStrictEqual(values);
    expect(elementsOf(['[]'])).toStrictEqual([]);
    expect(elementsOf(['  [ \n ]  '])).toStrictEqual([]);
  });

  it('names the line of a fault inside an element, wherever the chunks end', () => {
    const lines = JSON.stringify(JSON.parse(readFixture('chatgptExport')), null, 1).split('\n');
    // A line from the middle holding a string property, so each damage below applies to it.
    const at = lines.findIndex((l, i) => i >= lines.length / 2 && /": "[^"\\]*",?$/.test(l));
    const cases: [string, (l: string) => string, RegExp][] = [
      ['a missing colon', (l) => l.replace(/": /, '" '), /expected ":"/],
      ['a bad escape', (l) => l.replace(/"(?=,?$)/, '\\x"'), /invalid escape/],
      ['a mismatched bracket', (l) => `${l} ]`, /found "\]"|unexpected "\]"/],
    ];
    for (const [what, damage, reason] of cases) {
      const damaged = [...lines];
      damaged[at] = damage(damaged[at]!);
      expect(damaged[at], what).not.toBe(lines[at]);
      const text = damaged.join('\n');
      for (const max of [1000, 65_536]) {
        const err = errorOf(randomChunks(text, prng(max), max));
        expect(err.line, what).toBe(at + 1);
        expect(err.message, what).toMatch(new RegExp(`^Line ${at + 1}: invalid JSON`));
        expect(err.message, what).toMatch(reason);
      }
    }
  });

  it('names the line of a fault between elements or after the array', () => {
    expect(errorOf(['[{"a":1}\n\n {"b":2}]'])).toMatchObject({ line: 3, message: expect.stringMatching(/^Line 3: invalid JSON \(expected "," or "\]", found "\{"\)/) });
    expect(errorOf(['[{"a":1},\n]'])).toMatchObject({ line: 2, message: expect.stringMatching(/unexpected "\]"/) });
    expect(errorOf(['[1,', ',2]'])).toMatchObject({ line: 1, message: expect.stringMatching(/unexpected ","/) });
    expect(errorOf(['[{"a":1}]\n', 'x'])).toMatchObject({ line: 2, message: expect.stringMatching(/extra text after the JSON value/) });
    expect(errorOf(['\n{"a":1}'])).toMatchObject({ line: 2, message: expect.stringMatching(/expected an array/) });
    expect(errorOf(['[nope]']).message).toMatch(/^Line 1: invalid JSON/);
  });

  it('says a file that stops early is truncated, and where the unfinished element starts', () => {
    const text = JSON.stringify(JSON.parse(readFixture('chatgptExport')), null, 1);
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    const elementStart = cut.lastIndexOf('\n {') + 1;
    const line = cut.slice(0, elementStart).split('\n').length;
    const err = errorOf(randomChunks(cut, prng(9), 3000));
    expect(err.message).toMatch(/truncated JSON/);
    expect(err.line).toBeGreaterThanOrEqual(line);
    expect(errorOf(['[{"a":1},']).message).toMatch(/truncated JSON/);
    expect(errorOf(['[1']).message).toMatch(/truncated JSON/);
    expect(errorOf(['[']).message).toMatch(/truncated JSON/);
    expect(errorOf(['  ']).message).toMatch(/no JSON array/);
  });

  it('hands each element over as soon as it is complete', () => {
    const seen: unknown[] = [];
    const s = new JsonArrayStream((v) => seen.push(v));
    s.push('[{"a":1},{"b"');
    expect(seen).toStrictEqual([{ a: 1 }]);
    s.push(':2}');
    expect(seen).toStrictEqual([{ a: 1 }, { b: 2 }]);
    s.push(']');
    expect(s.ended).toBe(true);
    s.end();
  });
});
