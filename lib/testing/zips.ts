import { strFromU8, zipSync } from 'fflate';

/**
 * Test-only (unit and e2e): zip bombs made on the fly, so no big file is
 * committed. The zip structures are walked by hand, independent of the reader
 * under test.
 */

/**
 * A copy of `zip` whose central directory and local headers declare the
 * uncompressed size `size(name, actual)` for each entry: a bomb's directory
 * promises sizes the data never has to be inflated to.
 */
export function declareSizes(zip: Uint8Array, size: (name: string, actual: number) => number): Uint8Array {
  const out = zip.slice();
  const v = new DataView(out.buffer);
  let eocd = out.length - 22;
  while (v.getUint32(eocd, true) !== 0x06054b50) eocd--;
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  for (let i = 0; i < count; i++) {
    if (v.getUint32(at, true) !== 0x02014b50) throw new Error('zips: not a central directory record');
    const nameLength = v.getUint16(at + 28, true);
    const name = strFromU8(out.subarray(at + 46, at + 46 + nameLength));
    const declared = size(name, v.getUint32(at + 24, true));
    v.setUint32(at + 24, declared, true);
    v.setUint32(v.getUint32(at + 42, true) + 22, declared, true);
    at += 46 + nameLength + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
  }
  return out;
}

const MiB = 1024 * 1024;

/** `files` session files of 1 MiB of zeros each (a few KB packed), each declared at `declaredMiB`. */
export function zipBomb(files: number, declaredMiB: number): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (let i = 1; i <= files; i++) entries[`sessions/${String(i).padStart(4, '0')}-zeros.jsonl`] = new Uint8Array(MiB);
  return declareSizes(zipSync(entries, { level: 9 }), () => declaredMiB * MiB);
}
