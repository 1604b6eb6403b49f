import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importText } from '@/lib/formats';
import { bucketFor, MIN_BUCKET, padme } from '@/lib/sync/padding';
import { entryPlain, sessionPlain } from '@/lib/sync/records';
import { allFixtureFiles, FIXTURES_DIR } from './fixtures';

/**
 * What a padding scheme costs and what it leaves the server to learn, over a
 * set of record sizes (the sealed size each record would have unpadded). Used
 * by scripts/padding-report.ts to compare schemes on real sessions, and by the
 * padding tests to hold the chosen one to its measured figures.
 */
export interface PaddingFigures {
  records: number;
  /** Bytes stored padded over bytes unpadded, minus one. */
  overhead: number;
  /** Distinct sizes the server sees. */
  sizes: number;
  /** Shannon entropy of the sizes seen, in bits per record: what a record's size tells the server. */
  bits: number;
}

export function paddingFigures(unpadded: readonly number[], pad: (n: number) => number): PaddingFigures {
  let before = 0;
  let after = 0;
  const counts = new Map<number, number>();
  for (const n of unpadded) {
    const p = pad(n);
    before += n;
    after += p;
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  let bits = 0;
  for (const c of counts.values()) bits -= (c / unpadded.length) * Math.log2(c / unpadded.length);
  return { records: unpadded.length, overhead: before ? after / before - 1 : 0, sizes: counts.size, bits };
}

const pow2From = (min: number) => (n: number) => Math.max(min, 2 ** Math.ceil(Math.log2(Math.max(n, 1))));

/** The schemes the report compares; `chosen` is what lib/sync/padding.ts does. */
export const PADDING_SCHEMES: Record<string, (n: number) => number> = {
  none: (n) => n,
  'powers of 2 from 256 B': pow2From(256),
  'powers of 2 from 512 B': pow2From(512),
  'powers of 2 from 512 B to 64 KiB, then 64 KiB steps': (n) => (n <= 65_536 ? pow2From(512)(n) : Math.ceil(n / 65_536) * 65_536),
  'Padmé from 256 B': (n) => Math.max(256, padme(n)),
  [`chosen: from ${MIN_BUCKET} B, powers of 2 to 4 KiB, then Padmé`]: bucketFor,
};

/**
 * Every record the sessions of fixtures/real would make (each entry, and each
 * session's metadata and its tombstone), as the content to seal: the real
 * transcripts imported with the app's importers, then encoded as sync encodes them.
 */
export function fixtureRecordPlains(): { kind: 'entry' | 'session' | 'tombstone'; plain: Uint8Array }[] {
  const out: { kind: 'entry' | 'session' | 'tombstone'; plain: Uint8Array }[] = [];
  const hlc = '001767225600000:0000:AbCdEfGhIjKlMnOp';
  for (const file of allFixtureFiles()) {
    let sessions;
    try {
      sessions = importText(readFileSync(join(FIXTURES_DIR, file), 'utf8'), { fileName: file, importedAt: Date.UTC(2026, 0, 1) }).sessions;
    } catch {
      continue; // a file the importers refuse on purpose is no session
    }
    for (const { meta, entries } of sessions) {
      const { id, ...fields } = meta;
      out.push({ kind: 'session', plain: sessionPlain(id, hlc, fields) }, { kind: 'tombstone', plain: sessionPlain(id, hlc, null) });
      for (const e of entries) out.push({ kind: 'entry', plain: entryPlain(id, e) });
    }
  }
  return out;
}
