import { describe, expect, it } from 'vitest';
import { strToU8, unzipSync, zipSync, strFromU8 } from 'fflate';
import { readFixture } from '@/lib/testing/fixtures';
import { importBytes } from '../import';
import { readChatGpt } from '../readers/chatgpt';
import { readPi } from '../readers/pi';
import { sampleSnapshot } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { exportArchive, importArchive, isZip, MAX_UNPACKED_BYTES } from './archive';
import { exportJsonl } from './jsonl';
import { declareSizes, zipBomb } from '@/lib/testing/zips';

describe('archive', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const readSessions = () => [sampleSnapshot(), ...readChatGpt(readFixture('chatgptExport')).sessions, readPi(readFixture('piV1')).sessions[0]!];

  it('holds one native .jsonl per session and an index.json manifest', () => {
    const sessions = readSessions();
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
    const sessions = readSessions();
    const zip = exportArchive(sessions);
    expect(importArchive(zip).sessions).toStrictEqual(sessions);
    const viaBytes = importBytes(zip, { fileName: 'all.zip' });
    expect(viaBytes.format).toBe('native');
    expect(viaBytes.sessions).toStrictEqual(sessions);
  });

  it('imports a zip without manifest, and names the file of a bad session', () => {
    const sessions = readSessions();
    const loose = zipSync({ 'b.jsonl': strToU8(exportJsonl(sessions[1]!)), 'a.jsonl': strToU8(exportJsonl(sessions[0]!)) });
    const r = importArchive(loose);
    expect(r.sessions.map((s) => s.meta.id)).toEqual([sessions[0]!.meta.id, sessions[1]!.meta.id]);
    expect(r.warnings[0]).toMatch(/no index\.json/);
    const bad = zipSync({ 'x.jsonl': strToU8(exportJsonl(sessions[0]!).slice(0, -30)) });
    expect(() => importArchive(bad)).toThrow(ImportError);
    expect(() => importArchive(bad)).toThrow(/^x\.jsonl: Line \d+: .*truncated JSON/);
  });

  it('reports a damaged zip as an ImportError', () => {
    const sessions = readSessions();
    const zip = exportArchive(sessions.slice(0, 1));
    expect(() => importArchive(zip.slice(0, zip.length - 40))).toThrow(ImportError);
  });
});

const MiB = 1024 * 1024;

describe('zip bombs', () => {
  const zeros = (n: number) => new Uint8Array(n);

  it('refuses an archive whose directory declares more than the limit unpacked, naming both, before inflating', () => {
    // Three 1 MiB entries of zeros (a few KB packed), declared at 512 MiB each: 1.5 GiB unpacked.
    const bomb = zipBomb(3, 512);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(MAX_UNPACKED_BYTES).toBe(1024 * MiB);
    const message = /^The zip archive is too large when unpacked: 1\.5 GB, more than the 1 GB limit/;
    expect(() => importArchive(bomb)).toThrow(ImportError);
    expect(() => importArchive(bomb)).toThrow(message);
    expect(() => importBytes(bomb, { fileName: 'bomb.zip' })).toThrow(message);
  });

  it('stops an honest bomb at the limit: entries of zeros whose declared sizes are true', () => {
    const bomb = zipSync({ 'sessions/0001-a.jsonl': zeros(6 * MiB), 'sessions/0002-b.jsonl': zeros(6 * MiB) }, { level: 9 });
    expect(() => importArchive(bomb, { maxUnpackedBytes: 8 * MiB })).toThrow(/too large when unpacked: 12 MB, more than the 8 MB limit/);
  });

  it('stops inflating an entry that unpacks to more than its directory declares', () => {
    const lying = declareSizes(zipSync({ 'sessions/0001-a.jsonl': zeros(16 * MiB) }, { level: 9 }), () => 1000);
    expect(() => importArchive(lying)).toThrow(/^The zip archive is damaged: sessions\/0001-a\.jsonl unpacks to more than the 1,000 bytes its directory declares/);
    // And one that declares more than it holds is damaged as well, not silently short.
    const short = declareSizes(exportArchive([sampleSnapshot()]), (name, actual) => (name.endsWith('.jsonl') ? actual + 10 : actual));
    expect(() => importArchive(short)).toThrow(/sessions\/0001-.*\.jsonl unpacks to \d[\d,]* bytes, not the [\d,]+ its directory declares/);
  });
});
