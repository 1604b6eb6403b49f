/**
 * Size buckets for sealed records. The server stores ciphertext, and the
 * length of a ciphertext is the length of what is inside: without padding it
 * learns every message's size to the byte (a "yes" from a paragraph, one
 * pasted file from another). Records are padded, inside the encryption, so
 * that a sealed record is exactly one of a small set of sizes:
 *
 * - at least 512 bytes: short messages, session metadata (about 300 bytes
 *   deflated) and deletion tombstones (about 100) all look alike, so the
 *   server cannot tell a deletion from a rename;
 * - powers of two up to 4 KiB (512, 1 KiB, 2 KiB, 4 KiB): where most entries
 *   are, hidden within a factor of two;
 * - above, Padmé (Nikitin et al., "Reducing Metadata Leakage from Encrypted
 *   Files and Communication with PURBs", PETS 2019): the length rounded up so
 *   that only its top ⌊log₂ E⌋ + 1 bits remain (E = ⌊log₂ length⌋), which
 *   costs at most 12 % and leaves O(log log n) bits of the size.
 *
 * Measured on every session of fixtures/real (13,027 records, 7.80 MB sealed,
 * `npx tsx scripts/padding-report.ts`): 36 % more bytes, 39 distinct sizes
 * (1,468 without padding), about 1.0 bit of size information per record
 * (8.5 without). Pure powers of two from 512 bytes cost 45 % for the same
 * 0.9 bits; Padmé alone costs 2.4 % but leaves 4.4 bits and keeps short
 * messages distinguishable; scripts/padding-report.ts prints the comparison.
 */

export const MIN_BUCKET = 512;
export const POW2_UNTIL = 4096;

/** The smallest bucket that holds `n` bytes. */
export function bucketFor(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Not a size: ${n}`);
  if (n <= MIN_BUCKET) return MIN_BUCKET;
  if (n <= POW2_UNTIL) return 2 ** Math.ceil(Math.log2(n));
  return padme(n);
}

/** Padmé: keeps the ⌊log₂ E⌋ + 1 top bits of the length, rounding up. */
export function padme(n: number): number {
  if (n < 2) return n;
  const e = Math.floor(Math.log2(n));
  const s = Math.floor(Math.log2(e)) + 1;
  const step = 2 ** (e - s);
  return Math.ceil(n / step) * step;
}
