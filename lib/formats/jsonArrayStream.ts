import { findJsonError } from './jsonValues';
import { ImportError, type FormatId } from './types';

/**
 * The elements of one big JSON array (a ChatGPT, Claude.ai or Open WebUI
 * export, or Claude Code's records dumped as one array), from text arriving in chunks, one parsed element at a time.
 *
 * A scan finds where each element starts and ends (strings, escapes and
 * bracket nesting, nothing else), and the element's text goes to the
 * engine's own JSON.parse. That is several times faster than a tokenizer
 * written in JavaScript and makes little garbage: the scan allocates nothing
 * but the element's text, which is a slice of the chunk unless the element
 * spans chunks. Memory is one element (a conversation) plus one chunk.
 *
 * Errors name the line: inside an element, where findJsonError finds the
 * first fault in its text; between elements, where the scan stopped.
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;

const isSpace = (c: number) => c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09;
/** Where a bare element (number, true, false, null) stops. */
const endsBare = (c: number) => c === COMMA || c === CLOSE_BRACKET || isSpace(c);

type Phase =
  /** before the root `[` */
  | 'root'
  /** after `[`: an element or `]` */
  | 'firstValue'
  /** after `,`: an element */
  | 'value'
  /** inside an element */
  | 'element'
  /** after an element: `,` or `]` */
  | 'after'
  /** after the root `]`: nothing but whitespace */
  | 'done';

function countNewlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export class JsonArrayStream {
  private phase: Phase = 'root';
  /** Open brackets of the element being scanned, innermost last; empty for a bare value or a string at the top. */
  private readonly open: number[] = [];
  private inString = false;
  /** A backslash ended the last chunk inside a string: the next character is escaped. */
  private escaped = false;
  /** The element is a number or literal, ended by a comma, `]` or whitespace. */
  private bare = false;
  /** The element's text from chunks before the current one. */
  private pieces: string[] = [];
  /** Lines before the current chunk (1-based line of its first character). */
  private line = 1;
  /** Line of the current element's first character. */
  private elementLine = 1;
  /** Where the current element starts in the chunk being scanned; 0 when it started in an earlier chunk. */
  private start = 0;
  /** Newlines counted so far in the chunk being scanned, up to `countedTo`: element lines cost one pass over the chunk. */
  private counted = 0;
  private countedTo = 0;

  constructor(
    /** `line`: where the element starts, so a reader's messages about it can name the line as JSONL readers do. */
    private readonly onElement: (value: unknown, line: number) => void,
    private readonly format?: FormatId,
  ) {}

  /** True once the root array is closed. */
  get ended(): boolean {
    return this.phase === 'done';
  }

  push(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    this.start = 0;
    this.counted = 0;
    this.countedTo = 0;
    while (i < n) {
      if (this.phase === 'element') {
        i = this.scanElement(chunk, i);
        if (i < 0) {
          // The element goes on in the next chunk.
          this.pieces.push(this.start === 0 ? chunk : chunk.slice(this.start));
          break;
        }
        this.emit(chunk.slice(this.start, i));
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (this.phase) {
        case 'root':
          if (c !== OPEN_BRACKET) this.fail(chunk, i, `expected an array "[", found ${JSON.stringify(chunk[i])}`);
          this.phase = 'firstValue';
          i++;
          break;
        case 'after':
          if (c === COMMA) this.phase = 'value';
          else if (c === CLOSE_BRACKET) this.phase = 'done';
          else this.fail(chunk, i, `expected "," or "]", found ${JSON.stringify(chunk[i])}`);
          i++;
          break;
        case 'done':
          this.fail(chunk, i, `extra text after the JSON value: ${JSON.stringify(chunk[i])}`);
          break;
        default:
          if (c === CLOSE_BRACKET && this.phase === 'firstValue') {
            this.phase = 'done';
            i++;
            break;
          }
          if (c === CLOSE_BRACKET || c === COMMA) this.fail(chunk, i, `unexpected ${JSON.stringify(chunk[i])}`);
          this.phase = 'element';
          this.counted += countNewlines(chunk, this.countedTo, i);
          this.countedTo = i;
          this.elementLine = this.line + this.counted;
          this.start = i;
          // The scan takes it from its first character; a number or literal has no brackets or quotes to follow.
          this.bare = c !== OPEN_BRACE && c !== OPEN_BRACKET && c !== QUOTE;
          break;
      }
    }
    this.line += countNewlines(chunk);
  }

  /** After the last chunk: the array must be closed. */
  end(): void {
    if (this.phase === 'element' && this.bare) {
      // A bare value at the very end: `[1` is still truncated, but the value itself is checked first.
      this.emit('');
    }
    if (this.phase === 'done') return;
    if (this.phase === 'element') {
      const text = this.pieces.join('');
      this.pieces = [];
      const at = findJsonError(text);
      if (at && at.offset < text.length) this.failIn(text, at.offset, at.reason);
      throw new ImportError(`Line ${this.elementLine}: the file ends in the middle of this JSON value (truncated JSON).`, { format: this.format, line: this.elementLine });
    }
    if (this.phase === 'root') throw new ImportError('The file holds no JSON array.', { format: this.format });
    throw new ImportError(`Line ${this.line}: the file ends before its array is closed (truncated JSON).`, { format: this.format, line: this.line });
  }

  /**
   * Scans the element from `i`; returns the index just past its end, or -1
   * when the chunk ends first. Strings are skipped with indexOf: most of an
   * export's bytes are message text.
   */
  private scanElement(chunk: string, i: number): number {
    const n = chunk.length;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    // The next backslash at or after i (n: none in this chunk), found again only once passed.
    let b = -1;
    while (i < n) {
      if (this.inString) {
        const q = chunk.indexOf('"', i);
        if (b < i) {
          b = chunk.indexOf('\\', i);
          if (b === -1) b = n;
        }
        if (b < n && (q === -1 || b < q)) {
          if (b + 1 >= n) {
            this.escaped = true;
            return -1;
          }
          i = b + 2;
          continue;
        }
        if (q === -1) return -1;
        this.inString = false;
        i = q + 1;
        if (this.open.length === 0) return i;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (this.bare) {
        if (endsBare(c)) {
          this.bare = false;
          return i;
        }
        i++;
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.open.push(c);
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        const top = this.open.pop();
        if (top !== (c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
          // Mismatched: findJsonError names the first fault, at this character or before it.
          this.open.length = 0;
          const text = this.pieces.join('') + chunk.slice(this.start, i + 1);
          const at = findJsonError(text);
          this.failIn(text, at ? at.offset : text.length - 1, at ? at.reason : `unexpected ${JSON.stringify(chunk[i])}`);
        }
        if (this.open.length === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }

  private emit(tail: string): void {
    const text = this.pieces.length ? this.pieces.join('') + tail : tail;
    this.pieces = [];
    this.phase = 'after';
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const at = findJsonError(text);
      this.failIn(text, at ? at.offset : 0, at ? at.reason : err instanceof Error ? err.message : String(err));
    }
    this.onElement(value, this.elementLine);
  }

  /** An error at `offset` of the element's text. */
  private failIn(text: string, offset: number, reason: string): never {
    const line = this.elementLine + countNewlines(text, 0, offset);
    if (offset >= text.length) throw new ImportError(`Line ${line}: the file ends in the middle of this JSON value (truncated JSON).`, { format: this.format, line });
    throw new ImportError(`Line ${line}: invalid JSON (${reason})`, { format: this.format, line });
  }

  /** An error at index `i` of the current chunk, between elements. */
  private fail(chunk: string, i: number, reason: string): never {
    const line = this.line + countNewlines(chunk, 0, i);
    throw new ImportError(`Line ${line}: invalid JSON (${reason})`, { format: this.format, line });
  }
}
