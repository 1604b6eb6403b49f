import { describe, expect, it } from 'vitest';
import { strFromU8, strToU8, zipSync } from 'fflate';
import { readFixture } from '@/lib/testing/fixtures';
import { ImportError } from './types';
import { unpackEntry, zipDirectory } from './unzip';

/**
 * A zip of stored (uncompressed) files written the zip64 way: every size and
 * offset in the directory is 0xFFFFFFFF and the real values sit in the zip64
 * extra field, with a zip64 end record, as tools write archives over 4 GB or
 * with more than 65,535 files. Built by hand from the format description.
 */
function zip64Stored(files: Record<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  let offset = 0;
  const push = (b: Uint8Array) => {
    parts.push(b);
    offset += b.length;
  };
  const record = (size: number, fill: (v: DataView) => void) => {
    const b = new Uint8Array(size);
    fill(new DataView(b.buffer));
    return b;
  };
  const central: Uint8Array[] = [];
  for (const [name, data] of Object.entries(files)) {
    const n = strToU8(name);
    const at = offset;
    push(record(30, (v) => (v.setUint32(0, 0x04034b50, true), v.setUint16(8, 0, true), v.setUint32(18, data.length, true), v.setUint32(22, data.length, true), v.setUint16(26, n.length, true))));
    push(n);
    push(data);
    const extra = record(28, (v) => (v.setUint16(0, 0x0001, true), v.setUint16(2, 24, true), v.setBigUint64(4, BigInt(data.length), true), v.setBigUint64(12, BigInt(data.length), true), v.setBigUint64(20, BigInt(at), true)));
    const head = record(46, (v) => {
      v.setUint32(0, 0x02014b50, true);
      v.setUint16(8, 0x800, true);
      v.setUint32(20, 0xffffffff, true);
      v.setUint32(24, 0xffffffff, true);
      v.setUint16(28, n.length, true);
      v.setUint16(30, extra.length, true);
      v.setUint32(42, 0xffffffff, true);
    });
    central.push(head, n, extra);
  }
  const cdStart = offset;
  for (const c of central) push(c);
  const cdSize = offset - cdStart;
  const count = Object.keys(files).length;
  const z64 = offset;
  push(record(56, (v) => (v.setUint32(0, 0x06064b50, true), v.setBigUint64(24, BigInt(count), true), v.setBigUint64(32, BigInt(count), true), v.setBigUint64(40, BigInt(cdSize), true), v.setBigUint64(48, BigInt(cdStart), true))));
  push(record(20, (v) => (v.setUint32(0, 0x07064b50, true), v.setBigUint64(8, BigInt(z64), true))));
  push(record(22, (v) => (v.setUint32(0, 0x06054b50, true), v.setUint16(8, 0xffff, true), v.setUint16(10, 0xffff, true), v.setUint32(12, 0xffffffff, true), v.setUint32(16, 0xffffffff, true))));
  const out = new Uint8Array(offset);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function unpacked(zip: Uint8Array, name: string): string {
  const entry = zipDirectory(zip).find((e) => e.name === name)!;
  const chunks: Uint8Array[] = [];
  unpackEntry(zip, entry, (c) => chunks.push(c));
  return chunks.map((c) => strFromU8(c)).join('');
}

describe('zip reader', () => {
  const text = readFixture('sweTraj');

  it('lists deflated and stored entries with their declared sizes, and unpacks them', () => {
    const zip = zipSync({ 'a.json': [strToU8(text), { level: 6 }], 'b.txt': [strToU8('plain'), { level: 0 }] });
    const dir = zipDirectory(zip);
    expect(dir.map((e) => [e.name, e.method, e.size])).toEqual([
      ['a.json', 8, strToU8(text).length],
      ['b.txt', 0, 5],
    ]);
    expect(unpacked(zip, 'a.json')).toBe(text);
    expect(unpacked(zip, 'b.txt')).toBe('plain');
  });

  it('reads zip64 directories (sizes and offsets in the extra field)', () => {
    const zip = zip64Stored({ 'first.jsonl': strToU8('one\n'), 'ünïcode.json': strToU8(text) });
    expect(zipDirectory(zip).map((e) => [e.name, e.size])).toEqual([
      ['first.jsonl', 4],
      ['ünïcode.json', strToU8(text).length],
    ]);
    expect(unpacked(zip, 'ünïcode.json')).toBe(text);
  });

  it('names what is wrong with an archive it cannot read', () => {
    const zip = zipSync({ 'a.txt': strToU8('x'.repeat(1000)) });
    expect(() => zipDirectory(zip.subarray(0, 100))).toThrow(/^The zip archive is damaged \(no central directory at its end\)/);
    const dir = zipDirectory(zip)[0]!;
    expect(() => unpackEntry(zip, { ...dir, flags: 1 }, () => {})).toThrow(ImportError);
    expect(() => unpackEntry(zip, { ...dir, flags: 1 }, () => {})).toThrow(/a\.txt in the zip archive is encrypted/);
    expect(() => unpackEntry(zip, { ...dir, method: 14 }, () => {})).toThrow(/compression method 14/);
  });
});
