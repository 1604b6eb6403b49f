/**
 * Padding of sync records, measured on real sessions:
 * `npx tsx scripts/padding-report.ts`.
 *
 * Imports every transcript of fixtures/real with the app's importers, encodes
 * each entry and each session's metadata as a sync record (deflated JSON), and
 * prints, for each candidate padding scheme, what it costs (bytes stored over
 * bytes unpadded) and what the sizes still tell the server (distinct sizes,
 * and bits of size information per record). lib/sync/padding.ts explains the
 * choice; its test holds the chosen scheme to these figures.
 */
import { SEAL_OVERHEAD } from '@/lib/sync/crypto/keys';
import { fixtureRecordPlains, paddingFigures, PADDING_SCHEMES } from '@/lib/testing/paddingReport';
import { fmt, pct, table } from './benchReport';

const records = fixtureRecordPlains().filter((r) => r.kind !== 'tombstone');
// What the server would see without padding: the content plus the seal's own bytes.
const unpadded = records.map((r) => r.plain.length + SEAL_OVERHEAD);
console.log(`${records.length} records (${records.filter((r) => r.kind === 'entry').length} entries, ${records.filter((r) => r.kind === 'session').length} session records) from fixtures/real, ${fmt(unpadded.reduce((a, b) => a + b, 0) / 1e6)} MB sealed unpadded\n`);
table(
  ['scheme', 'bytes added', 'distinct sizes', 'bits per record'],
  Object.entries(PADDING_SCHEMES).map(([name, pad]) => {
    const f = paddingFigures(unpadded, pad);
    return [name, pct(f.overhead), f.sizes, fmt(f.bits)];
  }),
);
