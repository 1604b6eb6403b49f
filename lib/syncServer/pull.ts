import type { PageRecord, SyncStore } from './store';

/**
 * A pull page as a stream of JSON, written as the bodies are read from the
 * database: `{"records":[…],"checkpoint":N,"head":H,"more":B}`, the same
 * document the protocol has always had (lib/sync/protocol.ts), never held
 * whole. Small bodies are read a group at a time, large ones in slices
 * (`substring` in SQL), so what the server holds for a request is about one
 * chunk, whatever the size of the page or of a record: the page's byte cap
 * (SYNC_PULL_PAGE_BYTES) bounds how long a response is, not how much memory
 * it takes.
 */

/** Bytes of body read per query: a multiple of 3, so each slice's base64 joins the next without padding. */
export const BODY_CHUNK_BYTES = 3 * 256 * 1024;

/** A record that was replaced while its body was being sent: the response cannot be finished truthfully. */
class RecordReplacedError extends Error {
  override name = 'RecordReplacedError';
}

const encoder = new TextEncoder();
const text = (s: string) => encoder.encode(s);
const base64url = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

/** The record's fields before its body: the body comes last so it can be streamed. */
const opening = (r: PageRecord) =>
  `{"seq":${r.seq},"kind":${JSON.stringify(r.kind)},"key":${JSON.stringify(r.key)},"sessionKey":${JSON.stringify(r.sessionKey)},"hlc":${JSON.stringify(r.hlc)},"device":${JSON.stringify(r.device)},"body":"`;

/** Consecutive records read together: small ones up to a chunk of bodies, a large one alone. */
function groups(records: readonly PageRecord[]): PageRecord[][] {
  const out: PageRecord[][] = [];
  let group: PageRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    if (group.length && (bytes + r.size > BODY_CHUNK_BYTES || r.size > BODY_CHUNK_BYTES)) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(r);
    bytes += r.size;
  }
  if (group.length) out.push(group);
  return out;
}

/**
 * Yields the page's JSON in pieces. A session record replaced since the page
 * was listed (it moved to a later seq) is left out: the device will get the
 * new one on a later page. If that happens in the middle of a large body, the
 * stream fails (RecordReplacedError) and the device pulls the page again.
 */
export async function* pullJson(store: SyncStore, spaceId: string, after: number, page: { records: readonly PageRecord[]; more: boolean }): AsyncGenerator<Uint8Array> {
  yield text('{"records":[');
  let first = true;
  for (const group of groups(page.records)) {
    const large = group.length === 1 && group[0]!.size > BODY_CHUNK_BYTES;
    if (!large) {
      const bodies = await store.bodies(
        spaceId,
        group.map((r) => r.seq),
      );
      for (const r of group) {
        const body = bodies.get(r.seq);
        if (!body) continue;
        yield text(`${first ? '' : ','}${opening(r)}${base64url(body)}"}`);
        first = false;
      }
      continue;
    }
    const r = group[0]!;
    for (let offset = 0; offset < r.size; offset += BODY_CHUNK_BYTES) {
      const part = await store.bodySlice(spaceId, r.seq, offset, Math.min(BODY_CHUNK_BYTES, r.size - offset));
      if (!part) {
        if (offset === 0) break;
        throw new RecordReplacedError(`Record ${r.seq} was replaced while it was being sent.`);
      }
      yield text(`${offset === 0 ? `${first ? '' : ','}${opening(r)}` : ''}${base64url(part)}${offset + BODY_CHUNK_BYTES >= r.size ? '"}' : ''}`);
      first = false;
    }
  }
  // Read after the page, so the head is never behind it (a push may commit in between).
  const head = await store.head(spaceId);
  yield text(`],"checkpoint":${page.records.at(-1)?.seq ?? after},"head":${head},"more":${page.more}}`);
}

/** A byte stream that asks the generator for the next piece only when the socket has taken the last one. */
export function streamOf(pieces: AsyncGenerator<Uint8Array>, onError: (err: unknown) => void = () => {}): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await pieces.next();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          onError(err);
          controller.error(err);
        }
      },
      async cancel() {
        await pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
