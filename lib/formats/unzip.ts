import { Inflate } from 'fflate';
import { ImportError } from './types';
import { formatCount } from '@/lib/format/numbers';

/**
 * A zip reader that trusts nothing it has not checked: it lists the entries
 * from the central directory (their declared sizes included) without inflating
 * anything, so a caller can refuse a zip bomb up front, and it inflates an
 * entry in slices, stopping as soon as the output outgrows what the directory
 * declared. fflate's unzipSync does neither: it allocates whatever size the
 * directory claims and silently cuts an entry that inflates past it.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  flags: number;
  compressedSize: number;
  /** The uncompressed size the directory declares. */
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32_MAX = 0xffffffff;
/** Compressed bytes handed to the inflater at a time: deflate expands at most ~1032×, so one slice never inflates past ~64 MB. */
const SLICE = 64 * 1024;

function damaged(why: string): ImportError {
  return new ImportError(`The zip archive is damaged (${why}).`, { format: 'native' });
}

/**
 * Reads little-endian fields at offsets of the whole file from `bytes`, which
 * hold the file from offset `base` on (all of it, or the part a Blob reader
 * loaded), so the same parser reads a zip in memory and one read in slices.
 */
class Reader {
  private readonly view: DataView;
  /** The file's size: where its end records are looked for. */
  readonly end: number;

  constructor(
    readonly bytes: Uint8Array,
    readonly base = 0,
    end?: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.end = end ?? base + bytes.length;
  }

  private check(at: number, length: number): void {
    if (at < this.base || at + length > this.base + this.bytes.length) throw damaged('a record points past the end of the file');
  }

  u16(at: number): number {
    this.check(at, 2);
    return this.view.getUint16(at - this.base, true);
  }

  u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at - this.base, true);
  }

  u64(at: number): number {
    const n = this.u32(at) + this.u32(at + 4) * 2 ** 32;
    if (!Number.isSafeInteger(n)) throw damaged('a size or offset is out of range');
    return n;
  }

  text(at: number, length: number, utf8: boolean): string {
    this.check(at, length);
    const raw = this.bytes.subarray(at - this.base, at - this.base + length);
    // Names without the UTF-8 flag are in the DOS code page; Latin-1 keeps ASCII names right and never throws.
    return new TextDecoder(utf8 ? 'utf-8' : 'latin1').decode(raw);
  }
}

function endOfDirectory(r: Reader): { count: number; offset: number } {
  // The end record is 22 bytes plus a comment of up to 65,535.
  const lowest = Math.max(r.base, r.end - 22 - 0xffff);
  let at = r.end - 22;
  while (at >= lowest && r.u32(at) !== EOCD) at--;
  if (at < lowest) throw damaged('no central directory at its end');
  let count = r.u16(at + 10);
  let offset = r.u32(at + 16);
  if ((count === 0xffff || offset === U32_MAX) && at - 20 >= r.base && r.u32(at - 20) === ZIP64_LOCATOR) {
    const z = r.u64(at - 20 + 8);
    if (r.u32(z) !== ZIP64_EOCD) throw damaged('the zip64 directory record is missing');
    count = r.u64(z + 32);
    offset = r.u64(z + 48);
  }
  return { count, offset };
}

/** The sizes and offset a zip64 "extra" field carries for the 32-bit fields set to 0xFFFFFFFF, in this order. */
function zip64Extra(r: Reader, at: number, length: number, e: ZipEntry): void {
  for (let p = at; p + 4 <= at + length; ) {
    const id = r.u16(p);
    const size = r.u16(p + 2);
    if (id === 0x0001) {
      let q = p + 4;
      const next = () => {
        const n = r.u64(q);
        q += 8;
        return n;
      };
      if (e.size === U32_MAX) e.size = next();
      if (e.compressedSize === U32_MAX) e.compressedSize = next();
      if (e.localHeaderOffset === U32_MAX) e.localHeaderOffset = next();
      return;
    }
    p += 4 + size;
  }
}

/** Every entry the central directory lists, with its declared sizes. Inflates nothing. */
export function zipDirectory(bytes: Uint8Array): ZipEntry[] {
  const r = new Reader(bytes);
  const { count, offset } = endOfDirectory(r);
  return directoryEntries(r, count, offset);
}

function directoryEntries(r: Reader, count: number, offset: number): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (r.u32(at) !== CENTRAL) throw damaged('the central directory is cut short');
    const flags = r.u16(at + 8);
    const nameLength = r.u16(at + 28);
    const extraLength = r.u16(at + 30);
    const commentLength = r.u16(at + 32);
    const entry: ZipEntry = {
      name: r.text(at + 46, nameLength, (flags & 0x800) !== 0),
      method: r.u16(at + 10),
      flags,
      compressedSize: r.u32(at + 20),
      size: r.u32(at + 24),
      localHeaderOffset: r.u32(at + 42),
    };
    zip64Extra(r, at + 46 + nameLength, extraLength, entry);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Inflates one entry, handing the output to `onData` in pieces. Throws as soon
 * as the output exceeds the size the directory declared, and when it ends short of it.
 */
export function unpackEntry(bytes: Uint8Array, entry: ZipEntry, onData: (chunk: Uint8Array) => void): void {
  const r = new Reader(bytes);
  const local = entry.localHeaderOffset;
  if (r.u32(local) !== LOCAL) throw damaged(`${entry.name} has no local header where the directory says`);
  const start = local + 30 + r.u16(local + 26) + r.u16(local + 28);
  if (start + entry.compressedSize > bytes.length) throw damaged(`${entry.name} is cut short`);
  if (entry.flags & 1) throw new ImportError(`${entry.name} in the zip archive is encrypted; export the sessions again without a password.`, { format: 'native' });
  const data = bytes.subarray(start, start + entry.compressedSize);
  const declared = formatCount(entry.size);
  let got = 0;
  const take = (chunk: Uint8Array) => {
    got += chunk.length;
    if (got > entry.size) {
      throw new ImportError(`The zip archive is damaged: ${entry.name} unpacks to more than the ${declared} bytes its directory declares.`, { format: 'native' });
    }
    if (chunk.length) onData(chunk);
  };
  if (entry.method === 0) take(data);
  else if (entry.method === 8) {
    const inflater = new Inflate(take);
    try {
      if (data.length === 0) inflater.push(data, true);
      for (let at = 0; at < data.length; at += SLICE) inflater.push(data.subarray(at, at + SLICE), at + SLICE >= data.length);
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw damaged(`${entry.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else {
    throw new ImportError(`${entry.name} in the zip archive uses compression method ${entry.method}, which this app does not read (only stored and deflate).`, { format: 'native' });
  }
  if (got !== entry.size) {
    throw new ImportError(`The zip archive is damaged: ${entry.name} unpacks to ${formatCount(got)} bytes, not the ${declared} its directory declares.`, { format: 'native' });
  }
}

const read = async (blob: Blob, from: number, to: number) => new Uint8Array(await blob.slice(from, to).arrayBuffer());

/**
 * The central directory of a zip file on disk, read from its end without
 * loading the rest: a ChatGPT export is mostly images the import never needs.
 */
export async function zipDirectoryOf(blob: Blob): Promise<ZipEntry[]> {
  // The end record, its comment, and the zip64 locator and end record before it.
  const tailBase = Math.max(0, blob.size - (22 + 0xffff + 20 + 56));
  const tail = new Reader(await read(blob, tailBase, blob.size), tailBase, blob.size);
  const { count, offset } = endOfDirectory(tail);
  if (offset < 0 || offset > blob.size) throw damaged('the central directory is outside the file');
  const dir = offset >= tailBase ? tail : new Reader(await read(blob, offset, blob.size), offset, blob.size);
  return directoryEntries(dir, count, offset);
}

/**
 * One entry of a zip file on disk, inflated slice by slice as it is read and
 * handed on in pieces, held to the size its directory declares (as
 * unpackEntry does for a zip in memory). Only this entry's bytes are read.
 */
export async function* zipEntryBytes(blob: Blob, entry: ZipEntry, sliceBytes = 256 * 1024): AsyncGenerator<Uint8Array> {
  const head = new Reader(await read(blob, entry.localHeaderOffset, Math.min(blob.size, entry.localHeaderOffset + 30)), entry.localHeaderOffset, blob.size);
  if (head.bytes.length < 30 || head.u32(entry.localHeaderOffset) !== LOCAL) throw damaged(`${entry.name} has no local header where the directory says`);
  const start = entry.localHeaderOffset + 30 + head.u16(entry.localHeaderOffset + 26) + head.u16(entry.localHeaderOffset + 28);
  if (start + entry.compressedSize > blob.size) throw damaged(`${entry.name} is cut short`);
  if (entry.flags & 1) throw new ImportError(`${entry.name} in the zip archive is encrypted; export it again without a password.`, { format: 'native' });
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ImportError(`${entry.name} in the zip archive uses compression method ${entry.method}, which this app does not read (only stored and deflate).`, { format: 'native' });
  }
  const declared = formatCount(entry.size);
  let got = 0;
  let out: Uint8Array[] = [];
  const take = (chunk: Uint8Array) => {
    got += chunk.length;
    if (got > entry.size) throw new ImportError(`The zip archive is damaged: ${entry.name} unpacks to more than the ${declared} bytes its directory declares.`, { format: 'native' });
    if (chunk.length) out.push(chunk);
  };
  const inflater = entry.method === 8 ? new Inflate(take) : null;
  const end = start + entry.compressedSize;
  if (start === end && inflater) inflater.push(new Uint8Array(0), true);
  for (let at = start; at < end; at += sliceBytes) {
    const data = await read(blob, at, Math.min(end, at + sliceBytes));
    const last = at + sliceBytes >= end;
    if (!inflater) take(data);
    else {
      try {
        inflater.push(data, last);
      } catch (err) {
        if (err instanceof ImportError) throw err;
        throw damaged(`${entry.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const ready = out;
    out = [];
    for (const c of ready) yield c;
  }
  if (got !== entry.size) {
    throw new ImportError(`The zip archive is damaged: ${entry.name} unpacks to ${formatCount(got)} bytes, not the ${declared} its directory declares.`, { format: 'native' });
  }
}
