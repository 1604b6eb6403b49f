/**
 * A realistic conversation for the screenshots (scripts/screenshots.ts) and the
 * views the accessibility audit walks through (e2e/a11y.spec.ts): prose, a
 * list, code in two languages, inline and display math, a table, and a
 * structured summary for the compaction.
 */

export interface ShowcaseTurn {
  prompt: string;
  reply: string;
}

/** A pasted trace: the kind of bulk that makes a conversation worth compacting. */
const TRACE = Array.from({ length: 36 }, (_, i) => {
  const stage = ['fetch-source', 'decode', 'resize', 'encode', 'upload'][i % 5]!;
  const ms = [38, 121, 87, 402, 96][i % 5]! + ((i * 37) % 23);
  return `req=${(4821 + Math.floor(i / 5)).toString(16)} stage=${stage.padEnd(12)} width=${[320, 640, 1280, 1600][i % 4]} ms=${ms} bytes=${(180_000 + i * 7919) % 900_000}`;
}).join('\n');

export const SHOWCASE_TURNS: ShowcaseTurn[] = [
  {
    prompt: `Our image-resizing service has a p95 latency of 900 ms. Where would you start? A trace of a few slow requests:\n\n${TRACE}`,
    reply: [
      'Find out where the 900 ms goes before changing anything. A short plan:',
      '',
      '1. **Measure each stage**: decode, resize, encode and the upload to storage, one span around each.',
      '2. **Check the cache hit rate.** Most resize requests repeat: the same source at the same width.',
      '3. **Look at the encoder settings.** `quality=95` with progressive JPEG is often the slowest single step.',
      '',
      'If fewer than about 60 % of requests hit the cache, a content-addressed cache in front of the resizer pays off first.',
    ].join('\n'),
  },
  {
    prompt: 'The hit rate is 41 %. Sketch the cache key in TypeScript.',
    reply: [
      'A key must change whenever the output would change, and only then. Hash the source bytes once, then add the parameters that shape the output:',
      '',
      '```ts',
      "import { createHash } from 'node:crypto';",
      '',
      'export interface ResizeParams {',
      '  width: number;',
      "  format: 'webp' | 'avif' | 'jpeg';",
      '  quality: number;',
      '}',
      '',
      '/** Same source and same parameters give the same key, whatever URL the image came from. */',
      'export function cacheKey(sourceDigest: string, p: ResizeParams): string {',
      '  const params = `${p.width}w:${p.format}:q${p.quality}`;',
      "  return createHash('sha256').update(sourceDigest).update(params).digest('hex').slice(0, 32);",
      '}',
      '```',
      '',
      'Round `width` up to a few fixed breakpoints (320, 640, 1280) before calling it, or every odd width becomes a cache entry of its own.',
    ].join('\n'),
  },
  {
    prompt: 'How much do breakpoints waste if requested widths are spread evenly up to 1600 px?',
    reply: [
      'With widths spread evenly over $[0, W]$ and $k$ breakpoints $b_1 < \\dots < b_k = W$, each request is served at the next breakpoint up. The expected extra width is',
      '',
      '$$',
      '\\mathbb{E}[\\Delta] = \\frac{1}{W}\\sum_{i=1}^{k} \\int_{b_{i-1}}^{b_i} (b_i - w)\\,dw = \\frac{1}{2W}\\sum_{i=1}^{k}(b_i - b_{i-1})^2',
      '$$',
      '',
      'With evenly spaced breakpoints that is $\\frac{W}{2k}$. For $W = 1600$ px:',
      '',
      '| breakpoints $k$ | extra width | cache entries per image |',
      '|---|---|---|',
      '| 3 | 267 px | 3 |',
      '| 5 | 160 px | 5 |',
      '| 8 | 100 px | 8 |',
      '',
      'Five breakpoints keep the waste near 10 % of the width, and the cache stays small.',
    ].join('\n'),
  },
];

export const SHOWCASE_SUMMARY = [
  '## Goal',
  "Cut the image-resizing service's p95 latency (900 ms today).",
  '',
  '## Constraints & Preferences',
  '- Output quality must look unchanged.',
  '- The service is TypeScript on Node.',
  '',
  '## Progress',
  '### Done',
  '- Measured the cache hit rate: 41 %.',
  '- Wrote `cacheKey(sourceDigest, params)`: sha256 of the source digest plus width, format and quality.',
  '### In Progress',
  '- Choosing the width breakpoints.',
  '',
  '## Key Decisions',
  '- A content-addressed cache in front of the resizer.',
  '- Widths rounded up to five breakpoints: $\\frac{W}{2k} = 160$ px of extra width on average.',
  '',
  '## Next Steps',
  '1. Add spans per stage (decode, resize, encode, upload).',
  '2. Roll the cache out behind a flag and watch the hit rate.',
].join('\n');

export const SHOWCASE_FOLLOW_UP: ShowcaseTurn = {
  prompt: 'Which encoder settings should we try first?',
  reply: 'Try WebP at `quality=80` with `effort=4`: on photos it is usually 25–35 % smaller than JPEG at the same perceived quality, and encodes in about half the time of AVIF.',
};

export const SHOWCASE_EDITED: ShowcaseTurn = {
  prompt: 'Which encoder settings should we try first for AVIF?',
  reply: 'For AVIF start at `quality=55`, `speed=7`: slower than WebP to encode, but about 20 % smaller again. Keep it for the larger breakpoints.',
};
