import { describe, expect, it } from 'vitest';
import { thrown } from '@/lib/testing/formatChecks';
import type { ImportResult } from '../types';
import { ImportError } from '../types';
import { asImportError, readJsonlText, type JsonlSink } from './jsonl';

/**
 * The shared JSONL feeder's rules that the mutation run found unstated (issue 18): blank lines of
 * spaces, a file with no record, and how an unexpected failure of a reader becomes an ImportError
 * naming the format and, while reading records, the line. A small sink stands in for a reader.
 */
function recorder(failOn?: { record?: number; finish?: boolean }) {
  const seen: { rec: Record<string, unknown>; lineNo: number }[] = [];
  const factory = (): JsonlSink => ({
    record(rec, lineNo) {
      if (failOn?.record === lineNo) throw new TypeError('rec.message is undefined');
      seen.push({ rec, lineNo });
    },
    finish(): ImportResult {
      if (failOn?.finish) throw new RangeError('too deep');
      return { format: 'pi', sessions: [], warnings: [] };
    },
  });
  return { seen, factory };
}

describe('JSONL feeder', () => {
  it('skips lines holding only spaces and tabs, numbering the others by their line', () => {
    const { seen, factory } = recorder();
    readJsonlText('{"a":1}\n   \n\t\n{"b":2}\n', 'pi', factory);
    expect(seen).toEqual([
      { rec: { a: 1 }, lineNo: 1 },
      { rec: { b: 2 }, lineNo: 4 },
    ]);
  });

  it('refuses a file without any record, naming the format, before the reader finishes', () => {
    const { factory } = recorder({ finish: true });
    const err = thrown(() => readJsonlText(' \n\n', 'codex', factory));
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ message: 'The file is empty: it holds no records.', format: 'codex' });
  });

  it('an unexpected error while reading a record becomes an ImportError naming the line and the format', () => {
    const { factory } = recorder({ record: 2 });
    const err = thrown(() => readJsonlText('{"a":1}\n{"b":2}\n', 'claude-code', factory));
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ message: 'Line 2: could not read this record (rec.message is undefined)', format: 'claude-code', line: 2 });
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });

  it('an unexpected error at the end names the format and no line', () => {
    const { factory } = recorder({ finish: true });
    const err = thrown(() => readJsonlText('{"a":1}\n', 'native', factory));
    expect(err).toBeInstanceOf(ImportError);
    expect(err).toMatchObject({ message: 'could not read this record (too deep)', format: 'native' });
    expect((err as ImportError).line).toBeUndefined();
  });

  it('an ImportError of the reader passes unchanged; anything else thrown is described', () => {
    const own = new ImportError('Line 3: a second session header in the same file', { format: 'pi', line: 3 });
    expect(asImportError(own, 'native', 9)).toBe(own);
    expect(asImportError('a string', 'pi', 4)).toMatchObject({ message: 'Line 4: could not read this record (a string)', format: 'pi', line: 4 });
  });
});
