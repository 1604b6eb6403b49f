import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { exportJsonl } from '../export/jsonl';
import { ImportError } from '../types';
import { readNative } from './native';
import { readPi } from './pi';

/** Headers and entries of the app's own format that are damaged in ways the round-trip tests do not try; the session is the real pi one, exported. */
const lines = () => exportJsonl(readPi(readFixture('piV1')).sessions[0]!).trimEnd().split('\n');
const withHeader = (edit: (h: Record<string, unknown>) => void) => {
  const [head, ...rest] = lines();
  const h = JSON.parse(head!) as Record<string, unknown>;
  edit(h);
  return [JSON.stringify(h), ...rest].join('\n');
};
const message = (text: string) => {
  try {
    readNative(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ImportError);
    return (err as ImportError).message;
  }
  throw new Error('expected an ImportError');
};

describe('native session headers and entries', () => {
  it('refuses a header of another format or without a whole positive version', () => {
    expect(message(withHeader((h) => (h.format = 'pi-session')))).toBe('Line 1: session header of another format ("pi-session"), expected "longctx-session"');
    for (const version of [undefined, '1', 1.5, 0]) expect(message(withHeader((h) => (h.version = version)))).toBe('Line 1: session header without a valid version number');
  });

  it('names the field at fault in an invalid header or entry', () => {
    expect(message(withHeader((h) => (h.createdAt = 'yesterday')))).toMatch(/^Line 1: invalid session header \(createdAt: .+\)$/);
    const all = lines();
    all[2] = JSON.stringify({ ...JSON.parse(all[2]!), type: 7 });
    expect(message(all.join('\n'))).toMatch(/^Line 3: not a valid entry \(type: Invalid discriminator value\. Expected 'message' \| /);
  });
});
