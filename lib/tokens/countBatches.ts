/**
 * Counting many entries through the worker (an import, a session loaded
 * without caches): extract each entry's counting payload here (pure, no
 * tokenizer: a few microseconds per entry), send the payloads in batches, and
 * keep every batch in flight so the worker never waits for the next one.
 * Shared by the browser client and the Node bench, so the bench measures the
 * path the app takes.
 */
import { countingPayload, type CountingPayload } from '@/lib/tokens/entryText';
import type { SessionEntry, TokenCache } from '@/lib/session/types';

export interface PayloadCounter {
  countPayloads(payloads: CountingPayload[], opts?: { cl100k?: boolean }): Promise<TokenCache[]> | TokenCache[];
}

/** Entries per message: big enough to amortise a round trip, small enough to overlap extraction and counting. */
export const COUNT_BATCH_SIZE = 500;

export async function countEntriesInBatches(
  worker: PayloadCounter,
  entries: readonly SessionEntry[],
  opts: { cl100k?: boolean; batchSize?: number } = {},
): Promise<TokenCache[]> {
  const size = opts.batchSize ?? COUNT_BATCH_SIZE;
  const pending: (Promise<TokenCache[]> | TokenCache[])[] = [];
  for (let i = 0; i < entries.length; i += size) {
    const payloads: CountingPayload[] = [];
    for (let j = i; j < Math.min(entries.length, i + size); j++) payloads.push(countingPayload(entries[j]!));
    pending.push(worker.countPayloads(payloads, { cl100k: opts.cl100k }));
  }
  return (await Promise.all(pending)).flat();
}
