import type { FilePart, ImagePart } from '@/lib/session/types';
import { base64ByteLength, imageSizeFromBase64 } from './imageSize';

/**
 * Tokens of images and binary attachments, from each provider's published
 * formula. Never from the base64 length: a 1 MB PNG is ~1.4 M characters of
 * base64 but costs at most a few thousand tokens.
 */

export type ImageFormula = 'openai' | 'anthropic' | 'google';

export interface ImageTokenOptions {
  /** OpenAI's `detail`; `auto` behaves as `high` for anything larger than a thumbnail. */
  detail?: 'low' | 'high' | 'auto';
}

/**
 * OpenAI (GPT-4o / 4.1 / o-series, high detail): fit in 2048×2048, then scale
 * the shortest side down to 768, then 170 tokens per 512-px tile plus 85.
 * Low detail is a flat 85.
 */
export function openaiImageTokens(width: number, height: number, opts: ImageTokenOptions = {}): number {
  if (opts.detail === 'low') return 85;
  // Integer truncation after each resize, as in OpenAI's published worked examples.
  let w = width;
  let h = height;
  if (Math.max(w, h) > 2048) {
    const s = 2048 / Math.max(w, h);
    w = Math.floor(w * s);
    h = Math.floor(h * s);
  }
  if (Math.min(w, h) > 768) {
    const s = 768 / Math.min(w, h);
    w = Math.floor(w * s);
    h = Math.floor(h * s);
  }
  const tiles = Math.ceil(w / 512) * Math.ceil(h / 512);
  return 170 * tiles + 85;
}

/** Anthropic resizes images whose long edge exceeds 1568 px or whose area exceeds ~1.15 MP. */
export const ANTHROPIC_MAX_EDGE = 1568;
export const ANTHROPIC_MAX_PIXELS = 1_150_000;

/** Anthropic: about width×height/750 tokens, after its own downscaling. */
export function anthropicImageTokens(width: number, height: number): number {
  const scale = Math.min(1, ANTHROPIC_MAX_EDGE / Math.max(width, height), Math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)));
  const w = Math.floor(width * scale);
  const h = Math.floor(height * scale);
  return Math.ceil((w * h) / 750);
}

/** Gemini: 258 tokens when both sides are ≤ 384 px, else 258 per 768×768 tile. */
export function geminiImageTokens(width: number, height: number): number {
  if (width <= 384 && height <= 384) return 258;
  return 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
}

export function imageTokensFor(formula: ImageFormula, width: number, height: number, opts: ImageTokenOptions = {}): number {
  if (!(width > 0 && height > 0)) return 0;
  switch (formula) {
    case 'openai':
      return openaiImageTokens(width, height, opts);
    case 'anthropic':
      return anthropicImageTokens(width, height);
    case 'google':
      return geminiImageTokens(width, height);
  }
}

/*
 * When the header cannot be read (an external URL, an unknown format), the
 * size is guessed:
 * - with a byte count: a square of `bytes × PIXELS_PER_BYTE` pixels. Screenshots
 *   compress to roughly 0.3–1 byte per pixel as PNG and photos to 0.1–0.3 as
 *   JPEG; 2 pixels per byte sits between the two, capped at 4096² pixels;
 * - without one (a bare URL): 1024×1024, a common upload size.
 * Both go through the provider's formula, so the guess is bounded by that
 * provider's maximum per image.
 */
export const PIXELS_PER_BYTE = 2;
export const UNKNOWN_IMAGE_SIDE = 1024;

export interface ResolvedImageSize {
  width: number;
  height: number;
  /** header: read from the data; part: given on the part; bytes / default: guessed. */
  source: 'part' | 'header' | 'bytes' | 'default';
}

/** Header reads are memoised per part object: entries are immutable once written. */
const sizeCache = new WeakMap<ImagePart, ResolvedImageSize>();

export function resolveImageSize(part: ImagePart): ResolvedImageSize {
  const cached = sizeCache.get(part);
  if (cached) return cached;
  let out: ResolvedImageSize;
  if (part.width && part.height) out = { width: part.width, height: part.height, source: 'part' };
  else {
    const header = part.data ? imageSizeFromBase64(part.data) : null;
    if (header) out = { width: header.width, height: header.height, source: 'header' };
    else {
      const bytes = part.byteLength ?? (part.data ? base64ByteLength(part.data) : 0);
      if (bytes > 0) {
        const side = Math.min(4096, Math.round(Math.sqrt(bytes * PIXELS_PER_BYTE)));
        out = { width: side, height: side, source: 'bytes' };
      } else out = { width: UNKNOWN_IMAGE_SIDE, height: UNKNOWN_IMAGE_SIDE, source: 'default' };
    }
  }
  sizeCache.set(part, out);
  return out;
}

export function imagePartTokens(part: ImagePart, formula: ImageFormula, opts: ImageTokenOptions = {}): number {
  const { width, height } = resolveImageSize(part);
  return imageTokensFor(formula, width, height, opts);
}

/*
 * Binary attachments without extracted text. Text-like files (source, JSON,
 * CSV...) cost about what their text would: bytes / 4. PDFs are billed per
 * page (Anthropic publishes 1,500–3,000 text tokens per page); the page count
 * is unknown without parsing, so we take the midpoint per 50 KB. Anything else
 * is treated like text too: providers either reject it or convert it, and an
 * overestimate errs on the side of compacting early rather than overflowing.
 */
export const PDF_TOKENS_PER_PAGE = 2_250;
export const PDF_BYTES_PER_PAGE = 50_000;

export function filePartTokens(part: FilePart): number {
  const bytes = Math.max(0, part.byteLength || 0);
  if (part.mimeType === 'application/pdf') return PDF_TOKENS_PER_PAGE * Math.max(1, Math.ceil(bytes / PDF_BYTES_PER_PAGE));
  return Math.ceil(bytes / 4);
}

export function mediaTokens(parts: readonly (ImagePart | FilePart)[], formula: ImageFormula, opts: ImageTokenOptions = {}): number {
  let n = 0;
  for (const p of parts) n += p.type === 'image' ? imagePartTokens(p, formula, opts) : filePartTokens(p);
  return n;
}
