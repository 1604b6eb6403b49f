/**
 * 64-bit FNV-1a over UTF-16 code units, incremental so a streamed file hashes
 * to the same value as the whole text. Not cryptographic: it only has to notice
 * the same file imported twice. The 64-bit product is done in four 16-bit limbs
 * because JS numbers hold 53 bits and BigInt per character is far too slow for
 * 100 MB exports.
 */
export class Fnv1a64 {
  // Offset basis 0xcbf29ce484222325, lowest limb first.
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  update(text: string): this {
    let h0 = this.h0;
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    for (let i = 0; i < text.length; i++) {
      h0 ^= text.charCodeAt(i);
      // Multiply by the FNV prime 0x100000001b3: limbs p0 = 0x1b3, p2 = 0x100.
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3;
      const t2 = h2 * 0x1b3 + h0 * 0x100;
      const t3 = h3 * 0x1b3 + h1 * 0x100;
      h0 = t0 & 0xffff;
      const c1 = t1 + (t0 >>> 16);
      h1 = c1 & 0xffff;
      const c2 = t2 + (c1 >>> 16);
      h2 = c2 & 0xffff;
      h3 = (t3 + (c2 >>> 16)) & 0xffff;
    }
    this.h0 = h0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    return this;
  }

  hex(): string {
    const p = (n: number) => n.toString(16).padStart(4, '0');
    return p(this.h3) + p(this.h2) + p(this.h1) + p(this.h0);
  }
}

export function contentHash(text: string): string {
  return new Fnv1a64().update(text).hex();
}
