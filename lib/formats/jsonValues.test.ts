import { describe, expect, it } from 'vitest';
import { findJsonError, parseJsonDocument, parseJsonLine, splitTopLevelJson } from './jsonValues';
import { ImportError } from './types';

describe('splitTopLevelJson', () => {
  it('splits concatenated objects, ignoring braces and quotes inside strings', () => {
    const a = '{"t":"a } { \\" ]","n":[1,{"x":2}]}';
    const b = '{"u":"\\\\"}';
    const r = splitTopLevelJson(a + b + '  ');
    expect(r.truncated).toBe(false);
    expect(r.values.map(([s, e]) => (a + b).slice(s, e))).toEqual([a, b]);
  });

  it('reports truncation inside a string and inside nesting', () => {
    expect(splitTopLevelJson('{"a":"unterminated').truncated).toBe(true);
    expect(splitTopLevelJson('{"a":{"b":1}').truncated).toBe(true);
  });

  it('reports text that cannot start a value', () => {
    expect(splitTopLevelJson('{"a":1} xyz').strayAt).toBe(8);
  });
});

describe('parseJsonLine', () => {
  it('returns one object for a normal line', () => {
    expect(parseJsonLine('{"a":1}', 3).objects).toEqual([{ a: 1 }]);
  });

  it('recovers two objects written without a newline, with a warning naming the line', () => {
    const r = parseJsonLine('{"a":"}{"}{"b":2}', 1013);
    expect(r.objects).toEqual([{ a: '}{' }, { b: 2 }]);
    expect(r.warning).toMatch(/^Line 1013: held 2 JSON records/);
  });

  it('names the line and says "truncated" for a cut-off line', () => {
    try {
      parseJsonLine('{"type":"message","message":{"role', 12);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).line).toBe(12);
      expect((err as Error).message).toBe('Line 12: expected a JSON object, found "{\\"type\\":\\"message\\",\\"m"… (truncated JSON)');
    }
  });

  it('rejects non-objects and garbage with the line number', () => {
    expect(() => parseJsonLine('[1,2]', 2)).toThrow(/^Line 2: expected a JSON object, found a JSON array/);
    expect(() => parseJsonLine('42', 5)).toThrow(/^Line 5: expected a JSON object, found 42/);
    expect(() => parseJsonLine('hello', 7)).toThrow(/^Line 7: expected a JSON object, found "hello"/);
    expect(() => parseJsonLine('{"a":1} trailing', 9)).toThrow('Line 9, column 9: invalid JSON near "trailing" (extra text after the JSON value: "t")');
    expect(() => parseJsonLine('{"a":1,"b":"x\\q"}', 4)).toThrow(/^Line 4, column 14: invalid JSON near .*\(invalid escape \\q\)$/);
    expect(() => parseJsonLine('{"a":1}{"b":x}', 6)).toThrow(/^Line 6, column 13: invalid JSON near "x}"/);
  });
});

describe('findJsonError', () => {
  it('accepts what JSON.parse accepts and locates what it refuses', () => {
    for (const ok of ['{}', '[]', '"a\\u00e9"', '-0.5e+3', '{"a":[true,false,null,{"b":"c"}]}', ' [ 1 , 2 ] ']) {
      expect(() => JSON.parse(ok)).not.toThrow();
      expect(findJsonError(ok)).toBeNull();
    }
    expect(findJsonError('{"a" 1}')).toEqual({ offset: 5, reason: 'expected ":", found "1"' });
    expect(findJsonError('[1,]')?.offset).toBe(3);
    expect(findJsonError('{"a":1}}')?.reason).toMatch(/^extra text/);
    expect(findJsonError('{"a":"b')?.offset).toBe(7);
    expect(findJsonError('[tru')?.offset).toBe(4);
    expect(findJsonError('[01]')?.offset).toBe(2);
    expect(findJsonError('"\\q"')?.reason).toMatch(/invalid escape/);
  });

  it('does not overflow on deep nesting', () => {
    expect(findJsonError('['.repeat(200_000))?.offset).toBe(200_000);
  });
});

describe('parseJsonDocument', () => {
  it('gives line and column of invalid JSON', () => {
    try {
      parseJsonDocument('{\n  "a": 1,\n  "b": x\n}');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).line).toBe(3);
      expect((err as Error).message).toMatch(/^Line 3, column \d+: invalid JSON/);
    }
  });

  it('calls a cut-off document truncated', () => {
    expect(() => parseJsonDocument('[{"a": [1, 2')).toThrow(/truncated JSON/);
  });

  it('reads a document that starts with a byte-order mark, and counts lines without it', () => {
    expect(parseJsonDocument('\uFEFF[{"a": 1}]')).toEqual([{ a: 1 }]);
    expect(() => parseJsonDocument('\uFEFF{\n  "b": x\n}')).toThrow(/^Line 2, column 8:/);
  });
});
