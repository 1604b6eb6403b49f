import { ImportError, type FormatId } from './types';

/**
 * Splitting and parsing of JSON text that is not quite one value per line.
 *
 * Real JSONL files get damaged in two ways: a writer crashed mid-line (the last
 * line is truncated), or two writers appended without a newline between their
 * records (pi's compact.jsonl line 1013). The scanner below walks the text once,
 * tracking strings, escapes and nesting, so it can tell those cases apart
 * without guessing from regular expressions.
 */

export interface JsonSplit {
  /** [start, end) of each complete top-level value. */
  values: Array<[number, number]>;
  /** The text ends inside a value (unterminated string, unclosed brace). */
  truncated: boolean;
  /** Offset of text that cannot start a value (e.g. garbage after a value). */
  strayAt?: number;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff;
}

/** Splits concatenated top-level objects/arrays: `{…}{…} [ … ]`. */
export function splitTopLevelJson(s: string): JsonSplit {
  const values: Array<[number, number]> = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (depth === 0) {
      if (isSpace(c)) continue;
      if (c !== 0x7b /* { */ && c !== 0x5b /* [ */) return { values, truncated: false, strayAt: i };
      start = i;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth === 0) values.push([start, i + 1]);
    }
  }
  return { values, truncated: depth > 0 || inString };
}

/** A short quoted excerpt of `text` for an error message. */
export function excerpt(text: string, max = 20): string {
  const cut = text.length > max;
  return JSON.stringify(cut ? text.slice(0, max) : text) + (cut ? '…' : '');
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a JSON array';
  if (typeof v === 'string') return `the string ${excerpt(v)}`;
  return String(v);
}

/**
 * Where and why a text is not JSON, in engine-independent words (V8's own
 * messages changed between versions and some carry no position at all).
 * Iterative, so deeply nested input cannot overflow the stack. `offset` equal
 * to the text's length means the text stops early (truncated).
 */
export function findJsonError(s: string): { offset: number; reason: string } | null {
  const stack: number[] = [];
  let i = 0;
  const n = s.length;
  const ws = () => {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const unexpected = () => ({ offset: i, reason: i >= n ? 'the text ends early' : `unexpected ${JSON.stringify(s[i])}` });
  const str = (): { offset: number; reason: string } | null => {
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c === 0x5c) {
        const e = s[i + 1];
        if (e === undefined) return { offset: n, reason: 'the text ends inside a string' };
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) return i + 6 > n ? { offset: n, reason: 'the text ends inside a string' } : { offset: i, reason: 'invalid \\u escape' };
          i += 6;
        } else if ('"\\/bfnrt'.includes(e)) i += 2;
        else return { offset: i, reason: `invalid escape \\${e}` };
        continue;
      }
      if (c < 0x20) return { offset: i, reason: 'a raw control character inside a string' };
      i++;
    }
    return { offset: n, reason: 'the text ends inside a string' };
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  type State = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'after';
  let state: State = 'value';
  for (;;) {
    ws();
    if (state === 'after') {
      if (stack.length === 0) return i < n ? { offset: i, reason: `extra text after the JSON value: ${JSON.stringify(s[i])}` } : null;
      if (i >= n) return { offset: n, reason: 'the text ends early' };
      const c = s[i];
      const top = stack[stack.length - 1];
      if (c === ',') {
        i++;
        state = top === 0x7b ? 'key' : 'value';
      } else if ((c === '}' && top === 0x7b) || (c === ']' && top === 0x5b)) {
        i++;
        stack.pop();
      } else return { offset: i, reason: `expected "," or "${top === 0x7b ? '}' : ']'}", found ${JSON.stringify(c)}` };
      continue;
    }
    if (i >= n) return { offset: n, reason: 'the text ends early' };
    const c = s[i]!;
    if (state === 'colon') {
      if (c !== ':') return { offset: i, reason: `expected ":", found ${JSON.stringify(c)}` };
      i++;
      state = 'value';
      continue;
    }
    if (state === 'keyOrEnd' || state === 'key') {
      if (c === '}' && state === 'keyOrEnd') {
        i++;
        stack.pop();
        state = 'after';
        continue;
      }
      if (c !== '"') return { offset: i, reason: `expected a property name in quotes, found ${JSON.stringify(c)}` };
      const err = str();
      if (err) return err;
      state = 'colon';
      continue;
    }
    if (state === 'valueOrEnd' && c === ']') {
      i++;
      stack.pop();
      state = 'after';
      continue;
    }
    if (c === '{') {
      stack.push(0x7b);
      i++;
      state = 'keyOrEnd';
    } else if (c === '[') {
      stack.push(0x5b);
      i++;
      state = 'valueOrEnd';
    } else if (c === '"') {
      const err = str();
      if (err) return err;
      state = 'after';
    } else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      if (s.startsWith(word, i)) i += word.length;
      else if (word.startsWith(s.slice(i))) return { offset: n, reason: 'the text ends early' };
      else return unexpected();
      state = 'after';
    } else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(s);
      if (!m || m[0].length === 0 || m[0] === '-') return unexpected();
      i += m[0].length;
      state = 'after';
    }
  }
}

export interface ParsedLine {
  objects: Record<string, unknown>[];
  /** Set when the line held several objects and was split. */
  warning?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses one line of a JSONL file into the JSON objects it holds (normally one).
 * Throws an ImportError naming the line for anything it cannot use.
 */
export function parseJsonLine(line: string, lineNo: number, format?: FormatId): ParsedLine {
  const fail = (problem: string) => {
    throw new ImportError(`Line ${lineNo}: ${problem}`, { format, line: lineNo });
  };
  let first: unknown;
  let firstError: unknown;
  try {
    first = JSON.parse(line);
  } catch (err) {
    firstError = err;
  }
  if (firstError === undefined) {
    if (!isObject(first)) fail(`expected a JSON object, found ${describeValue(first)}`);
    return { objects: [first as Record<string, unknown>] };
  }

  const split = splitTopLevelJson(line);
  if (split.truncated) return fail(`expected a JSON object, found ${excerpt(line)} (truncated JSON)`);
  const located = (text: string, base: number) => {
    const found = findJsonError(text) ?? { offset: 0, reason: 'invalid JSON' };
    const col = base + found.offset + 1;
    throw new ImportError(`Line ${lineNo}, column ${col}: invalid JSON near ${excerpt(text.slice(found.offset))} (${found.reason})`, { format, line: lineNo });
  };
  if (split.values.length <= 1 || split.strayAt !== undefined) {
    if (split.values.length === 0) return fail(`expected a JSON object, found ${excerpt(line.trim())}`);
    return located(line, 0);
  }
  const objects: Record<string, unknown>[] = [];
  for (const [a, b] of split.values) {
    const part = line.slice(a, b);
    let v: unknown;
    try {
      v = JSON.parse(part);
    } catch {
      return located(part, a);
    }
    if (!isObject(v)) return fail(`expected a JSON object, found ${describeValue(v)}`);
    objects.push(v);
  }
  return {
    objects,
    warning: `Line ${lineNo}: held ${objects.length} JSON records with no line break between them; each was imported as its own entry.`,
  };
}

/** Line and column (1-based) of an offset, for errors in whole-file JSON. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: end - lastBreak };
}

/**
 * JSON.parse for whole-file formats, with an ImportError that says where the
 * text stops being JSON (line and column) and whether it looks truncated.
 */
export function parseJsonDocument(raw: string, format?: FormatId): unknown {
  // Exports saved by Windows tools may start with a byte-order mark, which JSON.parse refuses.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  try {
    return JSON.parse(text);
  } catch (err) {
    const found = findJsonError(text) ?? { offset: 0, reason: 'invalid JSON' };
    const { line, column } = lineColumnAt(text, found.offset);
    if (found.offset >= text.length) {
      throw new ImportError(`Line ${line}: the file ends in the middle of a JSON value (truncated JSON)`, { format, line, cause: err });
    }
    throw new ImportError(`Line ${line}, column ${column}: invalid JSON near ${excerpt(text.slice(found.offset))} (${found.reason})`, { format, line, cause: err });
  }
}
