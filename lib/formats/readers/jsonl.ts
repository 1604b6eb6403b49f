import { contentHash } from '../hash';
import { parseJsonLine } from '../jsonValues';
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
    for (const rec of parsed.objects) {
      this.records++;
      try {
        this.sink.record(rec, lineNo);
      } catch (err) {
        throw asImportError(err, this.ctx.format, lineNo);
      }
    }
  };

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
