import { describe, expect, it } from 'vitest';
import { thrown } from '@/lib/testing/formatChecks';
import { readFixture } from '@/lib/testing/fixtures';
import { exportJsonl } from '../export/jsonl';
import { ImportError } from '../types';
import { readNative } from './native';
import { readPi } from './pi';

/**
 * The app's own format: rules the mutation run found unstated (issue 18): a current entry that is
 * not the newest leaf is kept, nested fields are named by their path, and every refusal names the
 * format (and the line, where there is one). The session is the real pi one, exported.
 */
const lines = () => exportJsonl(readPi(readFixture('piV1')).sessions[0]!).trimEnd().split('\n');

describe('native reader', () => {
  it('keeps a current entry that is not the newest leaf, without a warning', () => {
    const [head, ...rest] = lines();
    const earlier = (JSON.parse(rest[4]!) as { id: string }).id;
    const r = readNative([JSON.stringify({ ...(JSON.parse(head!) as object), leafId: earlier }), ...rest].join('\n'));
    expect(r.sessions[0]!.meta.leafId).toBe(earlier);
    expect(r.warnings).toEqual([]);
  });

  it('an empty session, its current entry none, reads without a warning', () => {
    const [head] = lines();
    const r = readNative(JSON.stringify({ ...(JSON.parse(head!) as object), leafId: null }));
    expect(r.sessions[0]!.entries).toEqual([]);
    expect(r.sessions[0]!.meta.leafId).toBeNull();
    expect(r.warnings).toEqual([]);
  });

  it('names a nested field at fault by its dotted path', () => {
    const all = lines();
    all[2] = JSON.stringify({ ...(JSON.parse(all[2]!) as object), message: { role: 'narrator', content: [] } });
    expect(() => readNative(all.join('\n'))).toThrow(/^Line 3: not a valid "message" entry \(message\.role: /);
  });

  it('names the format and line of a damaged record, and the format of a parent loop or an empty file', () => {
    const [head, a, b, ...rest] = lines();
    const ea = JSON.parse(a!) as { id: string };
    const eb = JSON.parse(b!) as { id: string; parentId: string | null };
    const dup = [head, a, a, b, ...rest].join('\n');
    expect(thrown(() => readNative(dup))).toMatchObject({ format: 'native', line: 3 });
    const loop = [head, JSON.stringify({ ...ea, parentId: eb.id }), JSON.stringify({ ...eb, parentId: ea.id })].join('\n');
    for (const bad of [loop, '', '{"type":"session"']) {
      const err = thrown(() => readNative(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('native');
    }
  });
});
