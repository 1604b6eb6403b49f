import type { FetchLike } from './guardedFetch';

/**
 * A provider reply that breaks off (connection reset, proxy gone) makes its
 * body stream error, and between that body and our response sit a dozen
 * transform streams (SSE parser, provider mapping, streamText's steps). An
 * error overtakes data on the way: it empties every queue it passes, so words
 * that arrived just before the break (the same read, or the very next one)
 * were dropped, and the user saw an error with no text.
 *
 * So a break is taken out of the data path: the body ends like a normal end of
 * stream, everything that arrived flows through in order, and the route asks
 * `broken()` when the model stream is done and reports the break itself.
 *
 * Cancellation stays an error: when the caller aborted, nothing more is wanted
 * and the abort must reach the provider code as such.
 */
export interface BodyBreak {
  /** What the body's reader threw. */
  error: unknown;
  /** HTTP status of the response whose body broke (2xx: the reply had started). */
  status: number;
}

export interface BodyBreakWatch {
  fetch: FetchLike;
  /** The first break seen on a response body fetched through `fetch`, if any. */
  broken(): BodyBreak | undefined;
}

export function watchBodyBreaks(baseFetch: FetchLike): BodyBreakWatch {
  let first: BodyBreak | undefined;
  const fetch: FetchLike = async (input, init) => {
    const res = await baseFetch(input, init);
    // Error bodies are read whole for their message; only a reply in progress is worth saving.
    if (!res.ok || !res.body) return res;
    const body = endOnBreak(res.body, init?.signal ?? undefined, (error) => {
      first ??= { error, status: res.status };
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch, broken: () => first };
}

function endOnBreak(source: ReadableStream<Uint8Array>, signal: AbortSignal | undefined, onBreak: (error: unknown) => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          if (signal?.aborted) {
            controller.error(error);
            return;
          }
          onBreak(error);
          controller.close();
          return;
        }
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Read only when asked: no queue of our own for an error to empty.
    { highWaterMark: 0 },
  );
}
