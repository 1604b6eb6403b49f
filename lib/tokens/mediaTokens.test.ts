import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FilePart, ImagePart } from '@/lib/session/types';
import {
  anthropicImageTokens,
  filePartTokens,
  geminiImageTokens,
  imagePartTokens,
  mediaTokens,
  openaiImageTokens,
  resolveImageSize,
} from './mediaTokens';

// Expected values are worked out by hand from each provider's published rule; the arithmetic is spelled out.

describe('OpenAI image tokens (fit 2048², shortest side 768, 170 per 512 tile + 85)', () => {
  it('matches the published worked examples', () => {
    // 1024² → shortest side 768 → 768² → 2×2 tiles.
    expect(openaiImageTokens(1024, 1024)).toBe(170 * 4 + 85);
    // 2048×4096 → fit: 1024×2048 → shortest 768: 768×1536 → 2×3 tiles.
    expect(openaiImageTokens(2048, 4096)).toBe(170 * 6 + 85);
    // Twice as large again fits to the same size.
    expect(openaiImageTokens(4096, 8192)).toBe(170 * 6 + 85);
  });

  it('does not upscale small images and charges a flat 85 at low detail', () => {
    expect(openaiImageTokens(500, 300)).toBe(170 * 1 + 85);
    expect(openaiImageTokens(513, 512)).toBe(170 * 2 + 85);
    expect(openaiImageTokens(4000, 3000, { detail: 'low' })).toBe(85);
  });

  it('truncates after scaling: 1201×803 → 1148×768 → 3×2 tiles', () => {
    expect(Math.floor(1201 * (768 / 803))).toBe(1148);
    expect(openaiImageTokens(1201, 803)).toBe(170 * 3 * 2 + 85);
  });
});

describe('Anthropic image tokens (≈ w×h/750 after resizing to ≤ 1568 px and ≤ 1.15 MP)', () => {
  it('uses the area as is when within limits', () => {
    expect(anthropicImageTokens(1000, 1000)).toBe(Math.ceil(1_000_000 / 750)); // 1334
    expect(anthropicImageTokens(200, 200)).toBe(Math.ceil(40_000 / 750)); // 54
  });

  it('downscales by the tighter of the two limits', () => {
    // 2000×1000: the edge limit gives 1568×784 = 1.23 MP, still too large; the area limit wins:
    // scale √(1.15e6 / 2e6) = 0.7583 → 1516×758.
    const s = Math.sqrt(1_150_000 / 2_000_000);
    expect([Math.floor(2000 * s), Math.floor(1000 * s)]).toEqual([1516, 758]);
    expect(anthropicImageTokens(2000, 1000)).toBe(Math.ceil((1516 * 758) / 750));
    // A long thin strip only hits the edge limit: 4000×100 → 1568×39.
    expect(anthropicImageTokens(4000, 100)).toBe(Math.ceil((1568 * 39) / 750));
  });
});

describe('Gemini image tokens (258 up to 384² , else 258 per 768² tile)', () => {
  it('charges one block for small images and tiles larger ones', () => {
    expect(geminiImageTokens(384, 384)).toBe(258);
    expect(geminiImageTokens(385, 100)).toBe(258 * 1 * 1);
    expect(geminiImageTokens(1000, 701)).toBe(258 * 2 * 1);
    expect(geminiImageTokens(2000, 1001)).toBe(258 * 3 * 2);
  });
});

describe('image parts', () => {
  const jpeg = readFileSync(fileURLToPath(new URL('./testdata/commented-1201x803.jpg', import.meta.url)));

  it('prices an embedded image from its header, per provider', () => {
    const part: ImagePart = { type: 'image', mimeType: 'image/jpeg', data: jpeg.toString('base64') };
    expect(resolveImageSize(part)).toEqual({ width: 1201, height: 803, source: 'header' });
    expect(imagePartTokens(part, 'openai')).toBe(openaiImageTokens(1201, 803));
    expect(imagePartTokens(part, 'anthropic')).toBe(Math.ceil((1201 * 803) / 750));
    expect(imagePartTokens(part, 'google')).toBe(258 * 2 * 2);
  });

  it('prefers dimensions stored on the part', () => {
    const part: ImagePart = { type: 'image', mimeType: 'image/jpeg', data: jpeg.toString('base64'), width: 100, height: 100 };
    expect(imagePartTokens(part, 'anthropic')).toBe(Math.ceil(10_000 / 750));
  });

  it('falls back to a size-based guess, never to the base64 length', () => {
    // 200 KB, 2 pixels per byte → a 632² square → OpenAI 2×2 tiles.
    const bytesOnly: ImagePart = { type: 'image', mimeType: 'image/png', byteLength: 200_000 };
    expect(resolveImageSize(bytesOnly)).toEqual({ width: 632, height: 632, source: 'bytes' });
    expect(imagePartTokens(bytesOnly, 'openai')).toBe(170 * 4 + 85);
    // A bare URL: assume 1024².
    const url: ImagePart = { type: 'image', mimeType: 'image/png', url: 'https://example.com/x.png' };
    expect(imagePartTokens(url, 'openai')).toBe(openaiImageTokens(1024, 1024));
    // Undecodable data of 1.4 M base64 characters stays within one image's maximum.
    const junk: ImagePart = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(1_400_000) };
    expect(imagePartTokens(junk, 'anthropic')).toBeLessThanOrEqual(Math.ceil(1_150_000 / 750));
  });

  it('prices files without text by size: bytes/4, PDFs per estimated page', () => {
    const txt: FilePart = { type: 'file', name: 'notes.csv', mimeType: 'text/csv', byteLength: 4_000 };
    const pdf: FilePart = { type: 'file', name: 'paper.pdf', mimeType: 'application/pdf', byteLength: 120_000 };
    expect(filePartTokens(txt)).toBe(1_000);
    expect(filePartTokens(pdf)).toBe(3 * 2_250);
    expect(mediaTokens([txt, pdf], 'openai')).toBe(1_000 + 6_750);
  });
});
