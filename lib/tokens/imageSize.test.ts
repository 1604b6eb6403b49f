import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { base64ByteLength, decodeBase64Prefix, imageSizeFromBase64 } from './imageSize';

const TESTDATA = fileURLToPath(new URL('./testdata/', import.meta.url));

/** Every base64 image block in a raw transcript, whatever its shape (Claude Code `source.data`, pi `data`). */
function base64Images(raw: string): { data: string; mimeType: string }[] {
  const out: { data: string; mimeType: string }[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'image') {
        const src = (o.source ?? o) as Record<string, unknown>;
        if (typeof src.data === 'string') out.push({ data: src.data, mimeType: String(src.media_type ?? src.mimeType) });
      }
      Object.values(o).forEach(walk);
    }
  };
  for (const line of raw.split('\n')) {
    // pi's line 1013 holds two objects glued together; split them at the seam.
    for (const part of line.replace(/}{"type"/g, '}\n{"type"').split('\n')) {
      if (part.trim()) walk(JSON.parse(part));
    }
  }
  return out;
}

/** PNG width/height read the long way: Node's base64 decoder on the first 32 bytes, IHDR at offset 16. */
function pngSizeIndependently(b64: string): { width: number; height: number } {
  const head = Buffer.from(b64.slice(0, 44), 'base64');
  expect(head.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(head.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

describe('imageSizeFromBase64 on real transcripts', () => {
  it('reads the ~1 MB screenshot of the Claude Code log from its first bytes', () => {
    const images = base64Images(readFixture('claudeLog'));
    expect(images).toHaveLength(1);
    const { data, mimeType } = images[0]!;
    expect(mimeType).toBe('image/png');
    expect(data.length).toBeGreaterThan(1_000_000);
    const truth = pngSizeIndependently(data);
    expect(truth.width).toBeGreaterThan(0);
    expect(imageSizeFromBase64(data)).toEqual({ ...truth, format: 'png' });
    // The header is all it needs: 64 characters give the same answer as 1 MB.
    expect(imageSizeFromBase64(data.slice(0, 64))).toEqual({ ...truth, format: 'png' });
  });

  it('reads the three tool-result screenshots in the pi session', () => {
    const images = base64Images(readFixture('piV1'));
    expect(images).toHaveLength(3);
    for (const { data } of images) expect(imageSizeFromBase64(data)).toEqual({ ...pngSizeIndependently(data), format: 'png' });
  });
});

describe('imageSizeFromBase64 on encoder output', () => {
  const files = readdirSync(TESTDATA).filter((f) => /\d+x\d+\.(jpg|gif|webp)$/.test(f));

  it('covers JPEG (baseline, progressive, late header), GIF and the three WebP kinds', () => {
    expect(files.length).toBeGreaterThanOrEqual(9);
  });

  for (const f of files) {
    it(f, () => {
      const [, w, h] = /(\d+)x(\d+)\./.exec(f)!;
      const bytes = readFileSync(TESTDATA + f);
      const size = imageSizeFromBase64(bytes.toString('base64'));
      expect(size).toMatchObject({ width: Number(w), height: Number(h) });
      expect(size!.format).toBe(f.endsWith('.jpg') ? 'jpeg' : f.endsWith('.gif') ? 'gif' : 'webp');
    });
  }

  it('finds a JPEG frame header behind 18 KB of other segments, also from a data: URL', () => {
    const bytes = readFileSync(TESTDATA + 'commented-1201x803.jpg');
    expect(bytes.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan(16_000);
    expect(imageSizeFromBase64(`data:image/jpeg;base64,${bytes.toString('base64')}`)).toMatchObject({ width: 1201, height: 803 });
  });

  it('returns null for data that is not an image, and for a truncated JPEG', () => {
    expect(imageSizeFromBase64(Buffer.from('just some text, not an image').toString('base64'))).toBeNull();
    const jpeg = readFileSync(TESTDATA + 'commented-1201x803.jpg').toString('base64');
    expect(imageSizeFromBase64(jpeg.slice(0, 4_000))).toBeNull();
  });
});

describe('base64 helpers', () => {
  it('decodes a prefix exactly as Node does and computes the decoded length without decoding', () => {
    const bytes = readFileSync(TESTDATA + 'lossy-1000x701.webp');
    const b64 = bytes.toString('base64');
    expect(Buffer.from(decodeBase64Prefix(b64, 100))).toEqual(bytes.subarray(0, 100));
    expect(base64ByteLength(b64)).toBe(bytes.length);
    expect([base64ByteLength('QQ=='), base64ByteLength('QUI='), base64ByteLength('QUJD')]).toEqual([1, 2, 3]);
  });
});
