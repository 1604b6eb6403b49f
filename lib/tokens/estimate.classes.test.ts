import { describe, expect, it } from 'vitest';
import { estimateTextTokens } from './estimate';

/**
 * The estimate sorts characters into classes (letters, digits, spaces, newlines, punctuation, CJK, astral) by
 * code-point ranges. A character at either end of a range must cost what any character inside it costs:
 * compared in several surroundings, since each class merges with its neighbours differently.
 */
const SURROUNDINGS = (c: string) => [c, c.repeat(9), `word ${c} word`, `x${c}${c}y`, `${c}\n${c}`, `${c}, ${c}.`, `1${c}2`];

function sameCost(edge: string, inside: string) {
  for (let k = 0; k < SURROUNDINGS(edge).length; k++) {
    const a = SURROUNDINGS(edge)[k]!;
    const b = SURROUNDINGS(inside)[k]!;
    expect(estimateTextTokens(a), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(estimateTextTokens(b));
  }
}

describe('estimateTextTokens: the ends of every character class', () => {
  it.each([
    ['a', 'm'],
    ['z', 'm'],
    ['A', 'M'],
    ['Z', 'M'],
    ['0', '5'],
    ['9', '5'],
    ['\t', ' '],
    ['\r', '\n'],
    ['!', '-'],
    ['\x7f', '-'],
    ['\u00a0', ' '],
    ['\u2000', ' '],
    ['\u200b', ' '],
    ['\u2010', '\u2014'],
    ['\u2bff', '\u2014'],
    ['\u00a1', '\u2014'],
    ['\u00bf', '\u2014'],
    ['\u00d7', '\u2014'],
    ['\u00f7', '\u2014'],
    ['\u2e80', '中'],
    ['\u9fff', '中'],
    ['\uac00', '中'],
    ['\ud7a3', '中'],
    ['\uf900', '中'],
    ['\ufaff', '中'],
    ['\uff00', '中'],
    ['\uffef', '中'],
    ['\u0080', 'é'],
    ['\u00c0', 'é'],
  ])('%j costs what %j costs', (edge, inside) => sameCost(edge, inside));

  it('a lone surrogate at either end of the range costs half an astral character', () => {
    const emoji = '😀'; // one astral character: two UTF-16 units
    expect(estimateTextTokens('\ud800\udfff'.repeat(10))).toBe(estimateTextTokens(emoji.repeat(10)));
    expect(estimateTextTokens('\ud800'.repeat(20))).toBe(estimateTextTokens(emoji.repeat(10)));
    expect(estimateTextTokens('\udfff'.repeat(20))).toBe(estimateTextTokens(emoji.repeat(10)));
  });

  it('each class as a whole: capitals form words, digits go in threes, typographic marks are punctuation', () => {
    expect(estimateTextTokens('HELLO WORLD AGAIN')).toBe(estimateTextTokens('hello world again'));
    expect(estimateTextTokens('123456789')).toBe(estimateTextTokens('abc def ghi'));
    // Accented letters are letters (weighing 1.2 ASCII letters): eight make a word of two tokens, as ten ASCII ones do.
    expect(estimateTextTokens('éééééééé')).toBe(estimateTextTokens('abcdefghij'));
    for (const c of ['\u2010', '\u2014', '\u2bff', '\u00a1', '\u00bf', '\u00d7', '\u00f7'])
      expect(estimateTextTokens(`x ${c}${c}${c} y`), c.codePointAt(0)!.toString(16)).toBe(estimateTextTokens('x --- y'));
  });

  it('a newline run is one token however long, with \\n or \\r\\n', () => {
    const one = estimateTextTokens('a\nb');
    for (const run of ['\n\n\n\n', '\r\n', '\r\n\r\n\r\n', '\r']) expect(estimateTextTokens(`a${run}b`), JSON.stringify(run)).toBe(one);
  });

  it('an astral character (an emoji) weighs two and a half CJK characters, not a word of letters', () => {
    expect(estimateTextTokens('😀'.repeat(10))).toBe(estimateTextTokens('中'.repeat(25)));
    expect(estimateTextTokens('😀'.repeat(10))).toBeGreaterThan(estimateTextTokens('é'.repeat(20)));
  });

  it('the characters just outside a range belong to the next class', () => {
    // "{" (123) and "@" (64), "[" (91), "/" (47), ":" (58) are punctuation, not letters or digits.
    for (const c of ['{', '@', '[', '`', '/', ':']) expect(estimateTextTokens(`ab${c}${c}${c}cd`), c).toBe(estimateTextTokens('ab---cd'));
    // Just past the CJK and punctuation ranges: other letters.
    for (const c of ['\u2e7f', '\ua000', '\ud7a4', '\ufb00', '\ufff0', '\u00c0']) expect(estimateTextTokens(`${c}${c}${c}${c}`), c.codePointAt(0)!.toString(16)).toBe(estimateTextTokens('éééé'));
  });
});
