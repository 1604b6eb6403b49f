/**
 * Pixel size of an embedded image, read from the header of its base64 data.
 *
 * Token formulas of the providers depend on width and height only, and the
 * header holds both within the first bytes (PNG, GIF, WebP) or the first few
 * KB (JPEG, after its APP segments). So we decode a small prefix of the base64
 * and never the whole image: a 1 MB screenshot costs a few hundred bytes of
 * work, not a megabyte.
 */

export interface ImageSize {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'gif' | 'webp';
}

/** JPEG headers can sit behind an EXIF block with a thumbnail; we look this far at most. */
const JPEG_MAX_PREFIX_BYTES = 64 * 1024;
const FIRST_PREFIX_BYTES = 4 * 1024;

const B64 = new Int16Array(128).fill(-1);
{
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) B64[alphabet.charCodeAt(i)] = i;
  // base64url too, so data from any source decodes.
  B64['-'.charCodeAt(0)] = 62;
  B64['_'.charCodeAt(0)] = 63;
}

/**
 * Decodes at most `maxBytes` bytes from the start of a base64 string, skipping
 * whitespace and a `data:...;base64,` prefix. Stops at padding or at the end.
 */
export function decodeBase64Prefix(b64: string, maxBytes: number): Uint8Array {
  let start = 0;
  if (b64.startsWith('data:')) {
    const comma = b64.indexOf(',');
    if (comma >= 0) start = comma + 1;
  }
  const out = new Uint8Array(maxBytes);
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = start; i < b64.length && n < maxBytes; i++) {
    const c = b64.charCodeAt(i);
    if (c === 61 /* = */) break;
    const v = c < 128 ? B64[c]! : -1;
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

/** Bytes the base64 string decodes to, computed from its length (no decoding). */
export function base64ByteLength(b64: string): number {
  let start = 0;
  if (b64.startsWith('data:')) start = b64.indexOf(',') + 1;
  let len = b64.length - start;
  if (len <= 0) return 0;
  if (b64.endsWith('==')) len -= 2;
  else if (b64.endsWith('=')) len -= 1;
  return Math.floor((len * 3) / 4);
}

const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const be32 = (b: Uint8Array, i: number) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const le24 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);

function ascii(b: Uint8Array, at: number, s: string): boolean {
  if (b.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
}

function png(b: Uint8Array): ImageSize | null {
  // Signature, then the IHDR chunk: length(4) "IHDR"(4) width(4) height(4).
  if (b.length < 24 || b[0] !== 0x89 || !ascii(b, 1, 'PNG') || !ascii(b, 12, 'IHDR')) return null;
  return { width: be32(b, 16), height: be32(b, 20), format: 'png' };
}

function gif(b: Uint8Array): ImageSize | null {
  if (b.length < 10 || !ascii(b, 0, 'GIF8')) return null;
  return { width: le16(b, 6), height: le16(b, 8), format: 'gif' };
}

function webp(b: Uint8Array): ImageSize | null {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return null;
  if (ascii(b, 12, 'VP8 ')) {
    // Lossy: 3-byte frame tag, start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff, format: 'webp' };
  }
  if (ascii(b, 12, 'VP8L')) {
    // Lossless: signature 0x2f, then width-1 and height-1 in 14 bits each, little-endian bit order.
    if (b[20] !== 0x2f) return null;
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0;
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, format: 'webp' };
  }
  if (ascii(b, 12, 'VP8X')) {
    // Extended: flags(4), then canvas width-1 and height-1 in 24 bits each.
    return { width: le24(b, 24) + 1, height: le24(b, 27) + 1, format: 'webp' };
  }
  return null;
}

type JpegScan = ImageSize | 'need-more' | null;

function jpeg(b: Uint8Array): JpegScan {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Markers without a length field.
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or start of scan before any SOF
    const len = be16(b, i + 2);
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > b.length) return 'need-more';
      return { height: be16(b, i + 5), width: be16(b, i + 7), format: 'jpeg' };
    }
    i += 2 + len;
  }
  return 'need-more';
}

/**
 * Width and height from base64 image data, decoding a few KB at most (64 KB
 * for a JPEG whose frame header sits behind a large EXIF block).
 */
export function imageSizeFromBase64(b64: string): ImageSize | null {
  let limit = FIRST_PREFIX_BYTES;
  for (;;) {
    const bytes = decodeBase64Prefix(b64, limit);
    const j = jpeg(bytes);
    if (j === 'need-more') {
      const exhausted = bytes.length < limit;
      if (exhausted || limit >= JPEG_MAX_PREFIX_BYTES) return null;
      limit *= 4;
      continue;
    }
    if (j) return j;
    return png(bytes) ?? gif(bytes) ?? webp(bytes);
  }
}
