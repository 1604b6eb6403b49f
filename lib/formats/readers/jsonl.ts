import { contentHash } from '../hash';
import { JsonArrayStream } from '../jsonArrayStream';
import { describeValue, parseJsonLine } from '../jsonValues';
import { forEachLine } from '../lines';
import { ImportError, type FormatId, type ImportOptions, type ImportResult } from '../types';
import type { Json } from '../util';

/**
 * The shared shape of the line-based readers (native, pi, Claude Code): a sink
 * that takes one JSON record at a time and builds the sessions at the end.
 * `readJsonlText` feeds it from a string and `importStream` from chunks; both go
 * through `JsonlFeeder`, so there is one code path per line.
 */
export interface ReadContext {
  format: FormatId;
  fileName?: string;
  importedAt?: number;
  warnings: string[];
}

export interface JsonlSink {
  record(rec: Json, lineNo: number): void;
  /** `hash` is the content hash of the whole input, known only at the end of a stream. */
  finish(hash: string): ImportResult;
}

export type JsonlSinkFactory = (ctx: ReadContext) => JsonlSink;

/** Turns an unexpected exception while reading a record into an ImportError naming the line. */
export function asImportError(err: unknown, format?: FormatId, lineNo?: number): ImportError {
  if (err instanceof ImportError) return err;
  const why = err instanceof Error ? err.message : String(err);
  const where = lineNo !== undefined ? `Line ${lineNo}: ` : '';
  return new ImportError(`${where}could not read this record (${why})`, { format, line: lineNo, cause: err });
}

export class JsonlFeeder {
  readonly ctx: ReadContext;
  private readonly sink: JsonlSink;
  private records = 0;

  constructor(format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions) {
    this.ctx = { format, fileName: opts.fileName, importedAt: opts.importedAt, warnings: [] };
    this.sink = factory(this.ctx);
  }

  line = (line: string, lineNo: number): void => {
    if (line.trim() === '') return;
    const parsed = parseJsonLine(line, lineNo, this.ctx.format);
    if (parsed.warning) this.ctx.warnings.push(parsed.warning);
    for (const rec of parsed.objects) this.feed(rec, lineNo);
  };

  /** One record already parsed: an element of a JSON array of records, `lineNo` the line it starts on. */
  element = (value: unknown, lineNo: number): void => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ImportError(`Line ${lineNo}: expected a JSON object, found ${describeValue(value)}`, { format: this.ctx.format, line: lineNo });
    }
    this.feed(value as Json, lineNo);
  };

  private feed(rec: Json, lineNo: number): void {
    this.records++;
    try {
      this.sink.record(rec, lineNo);
    } catch (err) {
      throw asImportError(err, this.ctx.format, lineNo);
    }
  }

  finish(hash: string): ImportResult {
    if (this.records === 0) throw new ImportError('The file is empty: it holds no records.', { format: this.ctx.format });
    try {
      return this.sink.finish(hash);
    } catch (err) {
      throw asImportError(err, this.ctx.format);
    }
  }
}

export function readJsonlText(text: string, format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions = {}): ImportResult {
  const feeder = new JsonlFeeder(format, factory, opts);
  forEachLine(text, feeder.line);
  return feeder.finish(contentHash(text));
}

/**
 * The records of a line-based format written as one JSON array instead (Claude
 * Code's lines dumped by a hook). Chunks go through JsonArrayStream, one parsed
 * element at a time, to the same sink: importStream and the text reader both
 * use this, so they agree record for record.
 */
export class RecordArrayFeeder {
  private readonly feeder: JsonlFeeder;
  private readonly elements: JsonArrayStream;

  constructor(format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions) {
    this.feeder = new JsonlFeeder(format, factory, opts);
    this.elements = new JsonArrayStream(this.feeder.element, format);
  }

  push(chunk: string): void {
    this.elements.push(chunk);
  }

  finish(hash: string): ImportResult {
    this.elements.end();
    return this.feeder.finish(hash);
  }
}

export function readRecordArrayText(text: string, format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions = {}): ImportResult {
  const feeder = new RecordArrayFeeder(format, factory, opts);
  // The BOM is no part of the array (importStream drops it before the array stream too).
  feeder.push(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  return feeder.finish(contentHash(text));
}
