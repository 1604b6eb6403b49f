import { describe, expect, it } from 'vitest';
import { strToU8, unzipSync, zipSync, strFromU8 } from 'fflate';
import { readFixture } from '@/lib/testing/fixtures';
import { importBytes } from '../import';
import { readChatGpt } from '../readers/chatgpt';
import { readPi } from '../readers/pi';
import { sampleSnapshot } from '../testHelpers';
import { ImportError } from '../types';
import { exportArchive, importArchive, isZip } from './archive';
import { exportJsonl } from './jsonl';

describe('archive', () => {
  const sessions = [sampleSnapshot(), ...readChatGpt(readFixture('chatgptExport')).sessions, readPi(readFixture('piV1')).sessions[0]!];

  it('holds one native .jsonl per session and an index.json manifest', () => {
    const zip = exportArchive(sessions, { now: Date.UTC(2025, 0, 1) });
    expect(isZip(zip)).toBe(true);
    const files = unzipSync(zip);
    const manifest = JSON.parse(strFromU8(files['index.json']!)) as { format: string; sessions: { file: string; id: string; entries: number }[] };
    expect(manifest.format).toBe('longctx-archive');
    expect(manifest.sessions.map((s) => s.id)).toEqual(sessions.map((s) => s.meta.id));
    manifest.sessions.forEach((m, i) => {
      expect(strFromU8(files[m.file]!)).toBe(exportJsonl(sessions[i]!));
      expect(m.entries).toBe(sessions[i]!.entries.length);
    });
    expect(Object.keys(files)).toHaveLength(sessions.length + 1);
  });

  it('reads back the same snapshots, also through importBytes', () => {
    const zip = exportArchive(sessions);
    expect(importArchive(zip).sessions).toStrictEqual(sessions);
    const viaBytes = importBytes(zip, { fileName: 'all.zip' });
    expect(viaBytes.format).toBe('native');
    expect(viaBytes.sessions).toStrictEqual(sessions);
  });

  it('imports a zip without manifest, and names the file of a bad session', () => {
    const loose = zipSync({ 'b.jsonl': strToU8(exportJsonl(sessions[1]!)), 'a.jsonl': strToU8(exportJsonl(sessions[0]!)) });
    const r = importArchive(loose);
    expect(r.sessions.map((s) => s.meta.id)).toEqual([sessions[0]!.meta.id, sessions[1]!.meta.id]);
    expect(r.warnings[0]).toMatch(/no index\.json/);
    const bad = zipSync({ 'x.jsonl': strToU8(exportJsonl(sessions[0]!).slice(0, -30)) });
    expect(() => importArchive(bad)).toThrow(ImportError);
    expect(() => importArchive(bad)).toThrow(/^x\.jsonl: Line \d+: .*truncated JSON/);
  });

  it('reports a damaged zip as an ImportError', () => {
    const zip = exportArchive(sessions.slice(0, 1));
    expect(() => importArchive(zip.slice(0, zip.length - 40))).toThrow(ImportError);
  });
});
