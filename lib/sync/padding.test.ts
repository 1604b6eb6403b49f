import { describe, expect, it } from 'vitest';
import { fixtureRecordPlains, paddingFigures } from '@/lib/testing/paddingReport';
import type { SessionEntry } from '@/lib/session/types';
import { nobleBackend } from './crypto/backend';
import { fromBase64Url } from './crypto/bytes';
import { DecryptError, deriveSpaceKeys, SEAL_OVERHEAD, sealedSize } from './crypto/keys';
import { bucketFor, MIN_BUCKET, padme, POW2_UNTIL } from './padding';
import { MAX_RECORD_BYTES } from './protocol';
import { entryRecord, openRecord, sessionRecord } from './records';

const keysOf = () => deriveSpaceKeys(fromBase64Url('AAECAwQFBgcICQoLDA0ODw'), nobleBackend);
const user = (id: string, text: string): SessionEntry => ({ type: 'message', id, parentId: null, timestamp: Date.UTC(2026, 0, 1), message: { role: 'user', content: [{ type: 'text', text }] } }) as SessionEntry;
const sealedLength = (body: string) => fromBase64Url(body).length;

describe('size buckets', () => {
  it('are 512 B at least, powers of two to 4 KiB, then Padmé within 12 %, and never above the record cap', () => {
    const seen = new Set<number>();
    for (let n = 0; n <= 70_000; n += 7) {
      const b = bucketFor(n);
      expect(b).toBeGreaterThanOrEqual(n);
      expect(bucketFor(b)).toBe(b); // a bucket is its own bucket: padding twice changes nothing
      if (n <= MIN_BUCKET) expect(b).toBe(MIN_BUCKET);
      else if (n <= POW2_UNTIL) expect(Math.log2(b) % 1).toBe(0);
      else expect(b / n - 1).toBeLessThanOrEqual(0.12);
      seen.add(b);
    }
    // 70,000 lengths, 71 sizes: 4 up to 4 KiB, then 16 per power of two.
    expect(seen.size).toBeLessThan(80);
    for (const n of [MAX_RECORD_BYTES - 1, MAX_RECORD_BYTES - 100_000, MAX_RECORD_BYTES]) expect(bucketFor(n)).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(padme(1_000_000)).toBe(1_015_808); // E = 19, S = 5: multiples of 2^14
  });
});

describe('padded records', () => {
  it('a one-word message and a paragraph seal to the same size; metadata and a deletion too', async () => {
    const keys = await keysOf();
    const short = await entryRecord(keys, 's1', user('e1', 'yes'));
    const long = await entryRecord(keys, 's1', user('e2', 'A longer answer that goes on for a while, explaining a point in some detail. '.repeat(3)));
    expect(sealedLength(short.body)).toBe(MIN_BUCKET);
    expect(sealedLength(long.body)).toBe(sealedLength(short.body));
    const meta = await sessionRecord(keys, 's1', '001767225600000:0000:dev', { title: 'Planning the trip', createdAt: 1, updatedAt: 2, leafId: 'e2' } as never);
    const deleted = await sessionRecord(keys, 's1', '001767225600001:0000:dev', null);
    expect(sealedLength(meta.body)).toBe(sealedLength(deleted.body));
    // And they open to what was sealed.
    const opened = await openRecord(keys, { ...long, seq: 1, hlc: null, device: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(opened).toMatchObject({ kind: 'entry', sessionId: 's1', entry: { id: 'e2' } });
  });

  it('every record of the real sessions seals to a bucket, at the overhead and leakage measured for the scheme', async () => {
    const keys = await keysOf();
    const records = fixtureRecordPlains();
    expect(records.length).toBeGreaterThan(2000);
    // The real sealing path: what the server receives is exactly one bucket long, for every record.
    for (const { plain } of records.filter((_, i) => i % 7 === 0)) {
      const sealed = await keys.seal(plain, 'entry\0k');
      expect(sealed.length).toBe(sealedSize(plain.length));
      expect(bucketFor(sealed.length)).toBe(sealed.length);
      expect(await keys.open(sealed, 'entry\0k')).toEqual(plain);
    }
    const unpadded = records.filter((r) => r.kind !== 'tombstone').map((r) => r.plain.length + SEAL_OVERHEAD);
    const none = paddingFigures(unpadded, (n) => n);
    const padded = paddingFigures(unpadded, bucketFor);
    // scripts/padding-report.ts: 36.4 % added, 1,468 → 39 sizes, 8.5 → 0.97 bits per record.
    expect(padded.overhead).toBeLessThan(0.4);
    expect(none.sizes).toBeGreaterThan(1000);
    expect(padded.sizes).toBeLessThan(45);
    expect(padded.bits).toBeLessThan(1.5);
    expect(none.bits).toBeGreaterThan(8);
    // Deletions hide among metadata: every tombstone shares its bucket with the session records.
    const metaBuckets = new Set(records.filter((r) => r.kind === 'session').map((r) => sealedSize(r.plain.length)));
    for (const t of records.filter((r) => r.kind === 'tombstone')) expect(metaBuckets.has(sealedSize(t.plain.length))).toBe(true);
  });

  it('records written before padding (layout 1, by commit eee5156) still open', async () => {
    const keys = await keysOf();
    // Sealed by the previous release's records.ts from the same code: kept verbatim.
    const entry = {
      kind: 'entry' as const,
      key: 'sNAe5Zce0i7LagbcWtnGGg',
      sessionKey: 'X-WVJVxbJxDKz7tbYpRIQA',
      body: 'ATMp-05OykNcJIt12s008DuQsEiOuOLA-voJ2tMOGwrsFaYWB_DUtCsVfeHhWcPtHft6kD_v4hmLS2HAWn3zft2o7T0RTTLh9kLd3ldybTCLxIdtR_GAfI3eE6lP0E-V6jiskhMvi8_4j8AvHfWVDjyA-m4simB3qE2OxxcT5WGFWGulDR_bqv7bXXVE6wKpMMOSAonyWbGwLPQbCy7amQ',
    };
    const session = {
      kind: 'session' as const,
      key: 'X-WVJVxbJxDKz7tbYpRIQA',
      sessionKey: 'X-WVJVxbJxDKz7tbYpRIQA',
      hlc: '001767225600000:0000:dev1',
      body: 'ARSZqjWd0SG39EP0L55NOrBKOVybVxSc6FxV1K1WLKMP850XUvPzqgQH-61jVsL3CZtqvSdPuOka0GcLhQXa0W6574b-Put43jgv1EXVpP3ZOlLxOUXePM-vNrg1FRW0B0vt3myb7nU6CsX9CStXwDhQ2_aakCYl0xO8YlkZ',
    };
    const device = 'AAAAAAAAAAAAAAAAAAAAAA';
    expect(await openRecord(keys, { ...entry, seq: 1, hlc: null, device })).toMatchObject({
      kind: 'entry',
      sessionId: 'sess-1',
      entry: { id: 'e1', message: { content: [{ text: 'written before padding' }] } },
    });
    expect(await openRecord(keys, { ...session, seq: 2, device })).toMatchObject({ kind: 'session', sessionId: 'sess-1', meta: { title: 'Old record', leafId: 'e1' } });
  });

  it('a server that rewrites the layout byte gets the record refused, either way', async () => {
    const keys = await keysOf();
    const sealed = await keys.seal(new TextEncoder().encode('content'), 'entry\0k');
    expect(sealed[0]).toBe(2);
    const asV1 = sealed.slice();
    asV1[0] = 1;
    await expect(keys.open(asV1, 'entry\0k')).rejects.toBeInstanceOf(DecryptError);
    const old = fromBase64Url('ATMp-05OykNcJIt12s008DuQsEiOuOLA-voJ2tMOGwrsFaYWB_DUtCsVfeHhWcPtHft6kD_v4hmLS2HAWn3zft2o7T0RTTLh9kLd3ldybTCLxIdtR_GAfI3eE6lP0E-V6jiskhMvi8_4j8AvHfWVDjyA-m4simB3qE2OxxcT5WGFWGulDR_bqv7bXXVE6wKpMMOSAonyWbGwLPQbCy7amQ');
    old[0] = 2;
    await expect(keys.open(old, 'entry\0sNAe5Zce0i7LagbcWtnGGg')).rejects.toBeInstanceOf(DecryptError);
  });
});
