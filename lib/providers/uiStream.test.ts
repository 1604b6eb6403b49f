import { describe, expect, it } from 'vitest';
import { guardRequest } from '@/lib/http/requestGuard';
import { parseErrorResponse, readChatStream } from './uiStream';

/** An SSE body from chunk objects, optionally breaking off with a network error after the last one. */
function body(chunks: (object | string)[], opts: { breakOff?: boolean } = {}): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  // Pull-based, so a break-off happens after the earlier chunks were read (error() would discard queued ones).
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const ch = chunks[i++];
      if (ch !== undefined) c.enqueue(enc.encode(`data: ${typeof ch === 'string' ? ch : JSON.stringify(ch)}\n\n`));
      else if (opts.breakOff) c.error(new TypeError('network error'));
      else c.close();
    },
  });
}

describe('readChatStream', () => {
  it('collects text and reasoning, merges start and finish metadata', async () => {
    const texts: string[] = [];
    const out = await readChatStream(
      body([
        { type: 'start', messageMetadata: { model: 'openai:gpt-4o' } },
        { type: 'start-step' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'thinking…' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hel' },
        { type: 'text-delta', id: 't', delta: 'lo' },
        { type: 'text-end', id: 't' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop', messageMetadata: { model: 'openai:gpt-4o', finishReason: 'stop', usage: { input: 10, output: 2, totalTokens: 12 } } },
        '[DONE]',
      ]),
      { onText: (_d, full) => texts.push(full) },
    );
    expect(out).toMatchObject({ text: 'Hello', reasoning: 'thinking…', finished: true, aborted: false });
    expect(out.metadata).toEqual({ model: 'openai:gpt-4o', finishReason: 'stop', usage: { input: 10, output: 2, totalTokens: 12 } });
    expect(texts).toEqual(['Hel', 'Hello']);
    expect(out.error).toBeUndefined();
  });

  it('takes back text of a step that was reset (a retried step)', async () => {
    const out = await readChatStream(
      body([
        { type: 'start-step' },
        { type: 'text-delta', id: 't', delta: 'kept ' },
        { type: 'finish-step' },
        { type: 'start-step' },
        { type: 'text-delta', id: 't', delta: 'discarded' },
        { type: 'reset-step' },
        { type: 'text-delta', id: 't', delta: 'again' },
      ]),
    );
    expect(out.text).toBe('kept again');
  });

  it('parses error chunks into ProviderErrorInfo and keeps only the first', async () => {
    const seen: unknown[] = [];
    const out = await readChatStream(
      body([
        { type: 'text-delta', id: 't', delta: 'partial' },
        { type: 'error', errorText: JSON.stringify({ kind: 'network', message: 'broke off', provider: 'X' }) },
        { type: 'error', errorText: 'An error occurred.' },
      ]),
      { onError: (e) => seen.push(e) },
    );
    expect(out.text).toBe('partial');
    expect(out.error).toEqual({ kind: 'network', message: 'broke off', provider: 'X' });
    expect(seen).toHaveLength(1);
  });

  it('reports a body that breaks off as a network error, and abort chunks as aborted', async () => {
    const broken = await readChatStream(body([{ type: 'text-delta', id: 't', delta: 'so far' }], { breakOff: true }));
    expect(broken.text).toBe('so far');
    expect(broken.error?.kind).toBe('network');
    const aborted = await readChatStream(body([{ type: 'abort', reason: 'user' }]));
    expect(aborted.aborted).toBe(true);
    expect(aborted.error).toBeUndefined();
  });

  it('flags chunks it cannot read instead of crashing', async () => {
    const out = await readChatStream(body(['{"type":"text-delta"}', { type: 'text-delta', id: 't', delta: 'ok' }]));
    expect(out.text).toBe('ok');
    expect(out.error?.kind).toBe('unknown');
  });
});

describe('parseErrorResponse', () => {
  it('reads the routes’ JSON error bodies and tolerates anything else', () => {
    expect(parseErrorResponse(400, '{"kind":"invalid_request","status":400,"message":"Bad","error":"Bad"}')).toEqual({ kind: 'invalid_request', status: 400, message: 'Bad' });
    expect(parseErrorResponse(400, '{"error":{"kind":"invalid_request","message":"Nested"}}')).toEqual({ kind: 'invalid_request', status: 400, message: 'Nested' });
    expect(parseErrorResponse(502, '<html>Bad gateway</html>')).toEqual({ kind: 'server', status: 502, message: '<html>Bad gateway</html>' });
    expect(parseErrorResponse(413, '')).toEqual({ kind: 'invalid_request', status: 413, message: 'HTTP 413' });
  });

  it('reads a refusal of the request guard as forbidden, with its plain message', async () => {
    const refused = guardRequest(new Request('http://chat.example.com/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 'json-post', {});
    expect(parseErrorResponse(refused!.status, await refused!.text())).toEqual({
      kind: 'forbidden',
      status: 403,
      message: 'This server does not answer to the name "chat.example.com". If that is its name, add it to ALLOWED_HOSTS on the server.',
    });
  });
});
