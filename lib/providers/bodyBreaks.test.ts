import { describe, expect, it } from 'vitest';
import { watchBodyBreaks } from './bodyBreaks';

const enc = new TextEncoder();
const reset = () => Object.assign(new TypeError('terminated'), { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });

/** A body that hands over its chunks one per read, then fails with `error` on the very next read. */
function breakingBody(chunks: string[], error: unknown): ReadableStream<Uint8Array> {
  const queue = [...chunks];
  return new ReadableStream<Uint8Array>(
    {
      pull(c) {
        const next = queue.shift();
        if (next !== undefined) c.enqueue(enc.encode(next));
        else c.error(error);
      },
    },
    { highWaterMark: 0 },
  );
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const dec = new TextDecoder();
  let out = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out += dec.decode(value, { stream: true });
  }
}

describe('watchBodyBreaks', () => {
  it('a reply body that breaks off ends cleanly after everything that arrived, and the break is kept', async () => {
    const error = reset();
    const watch = watchBodyBreaks(async () => new Response(breakingBody(['data: one\n\n', 'data: two\n\n'], error), { status: 200 }));
    const res = await watch.fetch('http://127.0.0.1:1/v1/chat/completions');
    expect(watch.broken()).toBeUndefined();
    expect(await readAll(res.body!)).toBe('data: one\n\ndata: two\n\n');
    expect(watch.broken()).toEqual({ error, status: 200 });
  });

  it('a cancelled request still fails with its abort, and is no break', async () => {
    const ac = new AbortController();
    const abort = new DOMException('This operation was aborted', 'AbortError');
    const watch = watchBodyBreaks(async () => new Response(breakingBody(['data: one\n\n'], abort), { status: 200 }));
    const res = await watch.fetch('http://127.0.0.1:1/', { signal: ac.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    ac.abort();
    await expect(reader.read()).rejects.toBe(abort);
    expect(watch.broken()).toBeUndefined();
  });

  it('error responses pass through untouched', async () => {
    const error = reset();
    const watch = watchBodyBreaks(async () => new Response(breakingBody(['{"error":'], error), { status: 500 }));
    const res = await watch.fetch('http://127.0.0.1:1/');
    expect(res.status).toBe(500);
    await expect(res.text()).rejects.toBe(error);
    expect(watch.broken()).toBeUndefined();
  });

  it('cancelling the wrapped body cancels the provider’s body', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}), cancel: (reason) => void (cancelled = reason) });
    const watch = watchBodyBreaks(async () => new Response(source, { status: 200 }));
    const res = await watch.fetch('http://127.0.0.1:1/');
    await res.body!.cancel('client gone');
    expect(cancelled).toBe('client gone');
  });
});
