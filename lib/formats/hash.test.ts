import { describe, expect, it } from 'vitest';
import { contentHash, Fnv1a64 } from './hash';

describe('contentHash (FNV-1a 64)', () => {
  it('matches the published FNV-1a 64 vectors for ASCII input', () => {
    // Reference values of FNV-1a 64 (ASCII bytes equal UTF-16 code units here).
    expect(contentHash('')).toBe('cbf29ce484222325');
    expect(contentHash('a')).toBe('af63dc4c8601ec8c');
    expect(contentHash('foobar')).toBe('85944171f73967e8');
  });

  it('is the same whether fed whole or in pieces', () => {
    const text = 'héllo 🌍 wörld\n'.repeat(200);
    const h = new Fnv1a64();
    for (let i = 0; i < text.length; i += 7) h.update(text.slice(i, i + 7));
    expect(h.hex()).toBe(contentHash(text));
  });

  it('differs for different input', () => {
    expect(contentHash('abc')).not.toBe(contentHash('abd'));
  });
});
