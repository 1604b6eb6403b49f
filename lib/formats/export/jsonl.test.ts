import { describe, expect, it } from 'vitest';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importText } from '../import';
import { NATIVE_FORMAT, readNative } from '../readers/native';
import { expectWellFormed, sampleSnapshot } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { exportJsonl } from './jsonl';

describe('native JSONL round trip', () => {
  it.each(allFixtureFiles())('import → export → import gives the same snapshots: %s', (file) => {
    const first = importText(readFileSync(join(FIXTURES_DIR, file), 'utf8'), { fileName: file });
    expect(first.sessions.length).toBeGreaterThan(0);
    for (const s of first.sessions) {
      const text = exportJsonl(s);
      const again = readNative(text);
      expect(again.format).toBe('native');
      expect(again.sessions).toHaveLength(1);
      expect(again.sessions[0]).toStrictEqual(s);
      expect(exportJsonl(again.sessions[0]!)).toBe(text);
    }
  });

  it('keeps every entry type and every optional field', () => {
    const s = sampleSnapshot();
    expectWellFormed(s);
    expect(new Set(s.entries.map((e) => e.type))).toEqual(new Set(['message', 'compaction', 'branch_summary', 'model_change', 'label', 'summary_revision', 'custom']));
    const back = readNative(exportJsonl(s));
    expect(back.sessions[0]).toStrictEqual(s);
    expect(back.warnings).toEqual([]);
  });

  it('writes a header line then one entry per line', () => {
    const s = sampleSnapshot();
    const lines = exportJsonl(s).trimEnd().split('\n');
    expect(lines).toHaveLength(s.entries.length + 1);
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ type: 'session', format: NATIVE_FORMAT, version: 1, id: s.meta.id, leafId: s.meta.leafId });
    expect(Object.keys(header).slice(0, 3)).toEqual(['type', 'format', 'version']);
    lines.slice(1).forEach((l, i) => expect(JSON.parse(l)).toEqual(s.entries[i]));
  });

  it('reads several sessions from concatenated exports', () => {
    const a = sampleSnapshot();
    const b = { ...sampleSnapshot(), meta: { ...sampleSnapshot().meta, id: 'sess-2', title: 'Second' } };
    const r = readNative(exportJsonl(a) + exportJsonl(b));
    expect(r.sessions.map((s) => s.meta.id)).toEqual(['sess-1', 'sess-2']);
  });
});

describe('native JSONL errors', () => {
  const good = exportJsonl(sampleSnapshot()).trimEnd().split('\n');

  function errorOf(text: string): ImportError {
    try {
      readNative(text);
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      return err as ImportError;
    }
    throw new Error('expected an ImportError');
  }

  it('names a truncated last line instead of dropping it', () => {
    const cut = [...good.slice(0, -1), good[good.length - 1]!.slice(0, 40)].join('\n');
    const e = errorOf(cut);
    expect(e.line).toBe(good.length);
    expect(e.message).toMatch(new RegExp(`^Line ${good.length}: expected a JSON object, found ".*"… \\(truncated JSON\\)$`));
  });

  it('names a line that is valid JSON but not a valid entry', () => {
    const bad = [...good];
    bad[3] = JSON.stringify({ ...JSON.parse(bad[3]!), message: { role: 'wizard', content: [] } });
    const e = errorOf(bad.join('\n'));
    expect(e.line).toBe(4);
    expect(e.message).toMatch(/^Line 4: not a valid "message" entry \(message/);
  });

  it('requires the header first and refuses newer versions', () => {
    expect(errorOf(good.slice(1).join('\n')).message).toMatch(/^Line 1: expected the session header/);
    const newer = [JSON.stringify({ ...JSON.parse(good[0]!), version: 99 }), ...good.slice(1)].join('\n');
    expect(errorOf(newer).message).toMatch(/^Line 1: written by a newer version/);
  });

  it('refuses duplicate ids and parent cycles', () => {
    expect(errorOf([...good, good[1]!].join('\n')).message).toMatch(/used twice/);
    const header = JSON.parse(good[0]!) as Record<string, unknown>;
    const cyc = [
      JSON.stringify({ ...header, leafId: 'a' }),
      JSON.stringify({ id: 'a', parentId: 'b', timestamp: 1, type: 'model_change', model: 'x' }),
      JSON.stringify({ id: 'b', parentId: 'a', timestamp: 1, type: 'model_change', model: 'x' }),
    ].join('\n');
    expect(errorOf(cyc).message).toMatch(/cycle/);
  });

  it('repairs a missing leaf with a warning, and reorders a child written before its parent', () => {
    const header = JSON.parse(good[0]!) as Record<string, unknown>;
    const text = [
      JSON.stringify({ ...header, leafId: 'gone' }),
      JSON.stringify({ id: 'b', parentId: 'a', timestamp: 2, type: 'model_change', model: 'x' }),
      JSON.stringify({ id: 'a', parentId: null, timestamp: 1, type: 'model_change', model: 'y' }),
    ].join('\r\n');
    const r = readNative(text);
    expect(r.sessions[0]!.entries.map((e) => e.id)).toEqual(['a', 'b']);
    expect(r.sessions[0]!.meta.leafId).toBe('b');
    expect(r.warnings[0]).toMatch(/current entry "gone" is missing/);
  });
});
