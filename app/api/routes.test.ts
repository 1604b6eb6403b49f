import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm, type RecordedRequest } from '@/e2e/mock-llm/server';
import type { ContextItem } from '@/lib/session/context';
import type { EnvLike } from '@/lib/providers/env';
import type { ModelsResponse, ProviderListingResponse } from '@/lib/providers/listing';
import { readChatStream, type ChatStreamResult } from '@/lib/providers/uiStream';
import { setServerDepsForTesting } from './_lib/serverDeps';
import { POST as chatPOST } from './chat/route';
import { GET as modelsGET, POST as modelsPOST } from './models/route';
import { POST as summarizePOST } from './summarize/route';

/**
 * The route handlers end to end: real Request objects in, the AI SDK's
 * provider packages talking real HTTP to the scripted mock LLM on loopback,
 * the UI message stream read back with the client's own parser.
 */

let mock: MockLlm;
const logs: string[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ chunkDelayMs: 1 });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.reset();
  logs.length = 0;
});
afterEach(() => setServerDepsForTesting());

function useEnv(env: EnvLike, fetchImpl?: typeof fetch) {
  setServerDepsForTesting({ env, log: (l) => logs.push(l), ...(fetchImpl ? { fetch: fetchImpl } : {}) });
}

const mockEnv = (): EnvLike => ({
  OPENAI_COMPATIBLE_BASE_URL: mock.baseUrl,
  OPENAI_COMPATIBLE_NAME: 'Mock LLM',
  OLLAMA_BASE_URL: 'off',
  SUMMARIZER_MODEL: 'compat:mock-summarizer',
});

const userItem = (text: string, id = 'u1'): ContextItem => ({ kind: 'message', entryId: id, message: { role: 'user', content: [{ type: 'text', text }] } });

/** Where the app is reached in these tests: a name the request guard always accepts. */
const APP = 'http://localhost:3000';

function post(path: string, body: unknown, init: RequestInit = {}): Request {
  return new Request(`${APP}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

async function stream(res: Response): Promise<ChatStreamResult & { raw?: string }> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  return readChatStream(res.body!);
}

/** The UI message stream's chunks, in order, from its SSE text. */
function uiChunks(sse: string): { type: string; delta?: string; errorText?: string }[] {
  return sse
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
    .map((e) => JSON.parse(e.slice(6)) as { type: string });
}

/**
 * Over TLS, or on a busy server, a reply's last bytes and the reset of its
 * connection come out of one socket read, and fetch hands them over back to
 * back: the last event, then the error on the very next read. Plain TCP on
 * loopback always delivers them a turn of the event loop apart, so this fetch
 * recreates the back-to-back case: it lets the real response arrive whole
 * (events, then the reset), then passes it on one SSE event per read.
 */
function backToBack(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    let text = '';
    let failure: unknown;
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch (e) {
      failure = e;
    }
    const events = text.match(/[^]*?\n\n/g) ?? [];
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          const next = events.shift();
          if (next !== undefined) c.enqueue(encoder.encode(next));
          else if (failure) c.error(failure);
          else c.close();
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const lastRequest = (): RecordedRequest => mock.requests.at(-1)!;
const sentBody = () => lastRequest().body as { model: string; messages: { role: string; content: unknown }[]; temperature?: number; stream_options?: unknown };

describe('POST /api/chat', () => {
  it('streams the reply with usage metadata at the end', async () => {
    useEnv(mockEnv());
    const deltas: string[] = [];
    const metas: unknown[] = [];
    const res = await chatPOST(
      post('/api/chat', {
        model: 'compat:mock-small',
        system: 'You are terse.',
        context: [
          { kind: 'compactionSummary', entryId: 'c1', summary: '## Goal\nBuild the thing', tokensBefore: 5000 },
          userItem('hello brave new world'),
        ],
      }),
    );
    const out = await readChatStream(res.body!, { onText: (d) => deltas.push(d), onMetadata: (m) => metas.push(m) });
    expect(out.error).toBeUndefined();
    expect(out.finished).toBe(true);
    // The mock echoes the last user message: the summary and the user's words, merged into one turn.
    expect(out.text).toMatch(/^Echo: The conversation history before this point was compacted[\s\S]*<\/summary>\n\nhello brave new world$/);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(out.text);
    const sent = sentBody();
    const prompt = mock.requests.at(-1)!;
    expect(prompt.kind).toBe('chat');
    expect(out.metadata).toMatchObject({ model: 'compat:mock-small', provider: 'Mock LLM', finishReason: 'stop' });
    // The usage is the mock's own count of what it received.
    const chars = sent.messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content : (m.content as { text: string }[]).map((p) => p.text).join('\n')).length + m.role.length, 0);
    expect(out.metadata!.usage!.input).toBe(Math.ceil(chars / 4));
    expect(out.metadata!.usage!.output).toBeGreaterThan(0);
    expect(out.metadata!.contextTokens).toBe(out.metadata!.usage!.input + (out.metadata!.usage!.cacheRead ?? 0));
    expect(metas.length).toBeGreaterThanOrEqual(2);
    // What reached the provider: the system prompt, and the summary as tagged user text merged with the user turn.
    expect(sent.model).toBe('mock-small');
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(sent.messages).toHaveLength(2);
    expect(JSON.stringify(sent.messages[1])).toContain('<summary>\\n## Goal\\nBuild the thing\\n</summary>');
    expect(sent.stream_options).toEqual({ include_usage: true });
  });

  it.each([
    ['401', 'auth', 401],
    ['429', 'rate_limit', 429],
    ['500', 'server', 500],
    ['overflow', 'context_overflow', 400],
  ] as const)('preset %s reaches the client as a %s error chunk', async (preset, kind, status) => {
    useEnv(mockEnv());
    mock.script([{ preset }]);
    const errors: unknown[] = [];
    const out = await readChatStream((await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')] }))).body!, { onError: (e) => errors.push(e) });
    expect(out.error).toMatchObject({ kind, status, provider: 'Mock LLM' });
    expect(out.error!.message.length).toBeGreaterThan(10);
    expect(errors).toHaveLength(1);
    expect(out.text).toBe('');
    if (kind === 'rate_limit') expect(out.error!.retryAfterMs).toBe(2000);
    expect(logs).toEqual([`[api/chat] compat:mock-small: ${kind} ${status}`]);
  });

  it('a real overflow (prompt above the window) is classified as such', async () => {
    useEnv(mockEnv());
    const out = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('lorem ipsum '.repeat(4000))] })));
    expect(out.error?.kind).toBe('context_overflow');
  });

  it('a stream that breaks midway keeps the partial text and ends with an error', async () => {
    useEnv(mockEnv());
    mock.script([{ reply: 'one two three four five six seven', breakAfterChunks: 3 }]);
    const out = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')] })));
    expect(out.text).toBe('one two three ');
    expect(out.error).toMatchObject({ kind: 'network' });
    expect(out.error!.message).toMatch(/broke off/);
    expect(out.finished).toBe(false);
  });

  it('a reset right behind the first chunk still streams that chunk’s text, then the error', async () => {
    useEnv(mockEnv(), backToBack(fetch));
    mock.script([{ reply: 'one two three', resetAfterChunks: 1, inlineRole: true }]);
    const res = await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')] }));
    const chunks = uiChunks(await res.text());
    const types = chunks.map((c) => c.type);
    const delta = chunks.findIndex((c) => c.type === 'text-delta');
    const error = types.indexOf('error');
    expect(chunks[delta]).toMatchObject({ delta: 'one ' });
    expect(error).toBeGreaterThan(delta);
    expect(JSON.parse(chunks[error]!.errorText!)).toMatchObject({ kind: 'network', message: 'The connection to Mock LLM broke off before the reply was complete.' });
    // Not a finished reply: the client must keep the text as partial.
    expect(types).not.toContain('finish');
    expect(logs).toEqual(['[api/chat] compat:mock-small: network']);
  });

  it('the "broken" preset behaves the same', async () => {
    useEnv(mockEnv());
    mock.script([{ preset: 'broken' }]);
    const out = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('tell me more')] })));
    expect(out.text).toBe('Echo: tell ');
    expect(out.error?.kind).toBe('network');
  });

  it('a finish_reason of length arrives as such', async () => {
    useEnv(mockEnv());
    mock.script([{ reply: 'cut off', finishReason: 'length' }]);
    const out = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], maxOutputTokens: 2 })));
    expect(out.metadata?.finishReason).toBe('length');
    expect((sentBody() as { max_tokens?: number }).max_tokens).toBe(2);
  });

  it('aborts the upstream call when the client disconnects', async () => {
    useEnv(mockEnv());
    mock.script([{ reply: 'a b c d e f g h i j k l m n o p', chunkDelayMs: 40 }]);
    const ac = new AbortController();
    const res = await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')] }, { signal: ac.signal }));
    const seen: string[] = [];
    const reading = readChatStream(res.body!, {
      onText: (d) => {
        seen.push(d);
        if (seen.length === 2) ac.abort();
      },
    });
    const out = await reading;
    expect(out.text.length).toBeLessThan('a b c d e f g h i j k l m n o p'.length);
    await new Promise((r) => setTimeout(r, 100));
    expect(lastRequest().aborted).toBe(true);
  });

  it.each([
    ['not JSON', '{"model":', /not valid JSON/],
    ['an empty body', '', /empty/],
    ['no context', { model: 'compat:mock-small' }, /context/],
    ['an empty context', { model: 'compat:mock-small', context: [] }, /at least one item/],
    ['a malformed item', { model: 'compat:mock-small', context: [{ kind: 'message', entryId: 'x', message: { role: 'robot', content: [] } }] }, /context\.0\.message/],
    ['a wrong type', { model: 'compat:mock-small', context: [userItem('hi')], temperature: 'hot' }, /temperature/],
    ['an unknown field', { model: 'compat:mock-small', context: [userItem('hi')], tools: [] }, /tools|Unrecognized/i],
    ['an unknown provider', { model: 'acme:big', context: [userItem('hi')] }, /Unknown model id "acme:big"/],
  ])('400 for %s, with a clear message', async (_name, body, message) => {
    useEnv(mockEnv());
    const res = await chatPOST(post('/api/chat', body));
    expect(res.status).toBe(400);
    const json = (await res.json()) as { kind: string; status: number; message: string; error: string };
    expect(json).toMatchObject({ kind: 'invalid_request', status: 400 });
    expect(json.message).toMatch(message);
    // The message is repeated as `error` for clients that only look for an error string.
    expect(json.error).toBe(json.message);
    expect(mock.requests).toHaveLength(0);
  });

  it('400 when no model is given and DEFAULT_MODEL is unset; DEFAULT_MODEL is used when set', async () => {
    useEnv(mockEnv());
    const res = await chatPOST(post('/api/chat', { context: [userItem('hi')] }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/DEFAULT_MODEL/);
    useEnv({ ...mockEnv(), DEFAULT_MODEL: 'compat:mock-large' });
    const ok = await stream(await chatPOST(post('/api/chat', { context: [userItem('hi')] })));
    expect(ok.metadata?.model).toBe('compat:mock-large');
  });

  it('413 when the body is over 32 MB, declared or streamed', async () => {
    useEnv(mockEnv());
    const declared = await chatPOST(new Request(`${APP}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(33 * 1024 * 1024) }, body: '{}' }));
    expect(declared.status).toBe(413);
    const big = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 40) c.enqueue(big);
        else c.close();
      },
    });
    const streamed = await chatPOST(new Request(`${APP}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { message: string }).message).toMatch(/32 MB/);
    // It stopped reading soon after the limit.
    expect(sent).toBeLessThan(40);
  });

  it('a browser-supplied base URL to the metadata service is refused with the reason', async () => {
    useEnv(mockEnv());
    for (const baseUrl of ['http://169.254.169.254/latest', 'http://[::ffff:a9fe:a9fe]/v1', 'http://0xa9fea9fe/v1']) {
      const res = await chatPOST(post('/api/chat', { model: 'compat:x', context: [userItem('hi')], client: { baseUrl } }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/Base URL refused: .*never allowed/);
    }
    const lan = await chatPOST(post('/api/chat', { model: 'ollama:llama3', context: [userItem('hi')], client: { baseUrl: 'http://192.168.1.20:11434' } }));
    expect(lan.status).toBe(400);
    expect(((await lan.json()) as { message: string }).message).toMatch(/only loopback hosts/);
    expect(mock.requests).toHaveLength(0);
  });

  it('a browser-supplied base URL of localhost with trailing dots is refused: it would be a DNS lookup', async () => {
    useEnv(mockEnv());
    for (const host of ['localhost.', 'LOCALHOST.', 'localhost..']) {
      const res = await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], client: { baseUrl: `http://${host}:${mock.port}/v1` } }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^Base URL refused: "localhost\.+" is looked up in DNS/);
    }
    expect(mock.requests).toHaveLength(0);
    // Plain localhost works, and reaches the mock by its address, not through a resolver.
    const ok = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], client: { baseUrl: `http://localhost:${mock.port}/v1` } })));
    expect(ok.text).toBe('Echo: hi');
    expect(mock.requests.map((r) => r.host)).toEqual([`127.0.0.1:${mock.port}`]);
  });

  it('a browser-supplied loopback base URL and key work, and the server key never travels to it', async () => {
    const clientKey = 'client-key-0123456789abcdef';
    const guarded = await startMockLlm({ apiKey: clientKey, chunkDelayMs: 1 });
    try {
      // The server has a key for its own compatible endpoint; it must not be sent to the browser's URL.
      useEnv({ OPENAI_COMPATIBLE_BASE_URL: mock.baseUrl, OPENAI_COMPATIBLE_API_KEY: 'server-key-should-stay-home', OLLAMA_BASE_URL: 'off' });
      const noKey = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], client: { baseUrl: guarded.baseUrl } })));
      expect(noKey.error?.kind).toBe('auth');
      expect(guarded.requests.at(-1)!.authorized).toBe(false);

      const res = await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], client: { baseUrl: guarded.baseUrl, apiKey: clientKey } }));
      const text = await res.text();
      expect(text).toContain('Echo: ');
      expect(text).not.toContain(clientKey);

      const wrong = await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')], client: { baseUrl: guarded.baseUrl, apiKey: 'wrong-key-9876543210' } }));
      const wrongText = await wrong.text();
      expect(wrongText).toContain('auth');
      expect(wrongText).not.toContain('wrong-key-9876543210');
      expect(logs.join('\n')).not.toMatch(/client-key|wrong-key|server-key/);
    } finally {
      await guarded.close();
    }
  });

  it('a provider without credentials answers with an auth error chunk, without calling anyone', async () => {
    let calls = 0;
    useEnv({ OLLAMA_BASE_URL: 'off' }, async () => {
      calls++;
      return new Response('{}');
    });
    const out = await stream(await chatPOST(post('/api/chat', { model: 'openai:gpt-4o', context: [userItem('hi')] })));
    expect(out.error).toMatchObject({ kind: 'auth', provider: 'OpenAI' });
    expect(out.error!.message).toMatch(/OPENAI_API_KEY/);
    expect(calls).toBe(0);
  });
});

describe('POST /api/summarize', () => {
  it('streams a summary from SUMMARIZER_MODEL with usage metadata', async () => {
    useEnv(mockEnv());
    const res = await summarizePOST(
      post('/api/summarize', {
        model: 'compat:mock-small',
        system: 'You are a context summarization assistant. Produce a structured summary.',
        prompt: '<conversation>\nUser: please migrate the database schema to dexie version four\nAssistant: done, the schema migration is in place\n</conversation>',
      }),
    );
    const out = await stream(res);
    expect(out.error).toBeUndefined();
    expect(out.text).toMatch(/^## Goal/);
    expect(out.text).toContain('schema');
    expect(out.metadata).toMatchObject({ model: 'compat:mock-summarizer', finishReason: 'stop' });
    expect(out.metadata!.usage!.input).toBeGreaterThan(10);
    const sent = sentBody();
    expect(sent.model).toBe('mock-summarizer');
    expect(sent.temperature).toBe(0);
    expect(lastRequest().kind).toBe('summarizer');
  });

  it('uses the given model when SUMMARIZER_MODEL is unset, and summarizerModel over both', async () => {
    useEnv({ ...mockEnv(), SUMMARIZER_MODEL: undefined });
    await stream(await summarizePOST(post('/api/summarize', { model: 'compat:mock-large', system: 'Summarize.', prompt: 'text' })));
    expect(sentBody().model).toBe('mock-large');
    useEnv(mockEnv());
    await stream(await summarizePOST(post('/api/summarize', { model: 'compat:mock-large', summarizerModel: 'compat:mock-small', system: 'Summarize.', prompt: 'text' })));
    expect(sentBody().model).toBe('mock-small');
  });

  it('scripted summarizer replies are separate from chat replies', async () => {
    useEnv(mockEnv());
    mock.script([{ for: 'summarizer', reply: 'SUMMARY ONLY' }, { for: 'chat', reply: 'CHAT ONLY' }]);
    const chat = await stream(await chatPOST(post('/api/chat', { model: 'compat:mock-small', context: [userItem('hi')] })));
    const sum = await stream(await summarizePOST(post('/api/summarize', { system: 'Summarise this.', prompt: 'stuff' })));
    expect(chat.text).toBe('CHAT ONLY');
    expect(sum.text).toBe('SUMMARY ONLY');
  });

  it('an oversized summariser prompt comes back as a context_overflow error', async () => {
    useEnv(mockEnv());
    const out = await stream(await summarizePOST(post('/api/summarize', { system: 'Summarize.', prompt: 'word '.repeat(5000) })));
    expect(out.error?.kind).toBe('context_overflow');
    expect(out.text).toBe('');
  });

  it('400 for a bad body and 413 above 8 MB', async () => {
    useEnv(mockEnv());
    const bad = await summarizePOST(post('/api/summarize', { system: '', prompt: 'x' }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/system/);
    const big = await summarizePOST(post('/api/summarize', { system: 'S', prompt: 'x'.repeat(9 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });

  it('client credentials do not follow the server to another provider', async () => {
    const seen: string[] = [];
    useEnv({ ...mockEnv(), SUMMARIZER_MODEL: 'anthropic:claude-3-5-haiku-latest' }, async (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    });
    const out = await stream(await summarizePOST(post('/api/summarize', { model: 'openai:gpt-4o', system: 'Summarize.', prompt: 'x', client: { apiKey: 'sk-openai-user-key-123456' } })));
    // The OpenAI key typed in the browser is not sent to Anthropic: there is simply no Anthropic key.
    expect(out.error).toMatchObject({ kind: 'auth', provider: 'Anthropic' });
    expect(seen).toEqual([]);
  });
});

describe('who may call the routes', () => {
  const chatBody = () => JSON.stringify({ model: 'compat:mock-small', context: [userItem('hi')] });
  const refusal = async (res: Response) => {
    const json = (await res.json()) as { kind: string; status: number; message: string; error: string };
    expect(json.error).toBe(json.message);
    return json;
  };

  it('a page on another site posting text/plain (no-cors, no preflight) is refused before any model call', async () => {
    useEnv(mockEnv());
    const res = await chatPOST(post('/api/chat', chatBody(), { headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } }));
    expect(res.status).toBe(403);
    expect(await refusal(res)).toMatchObject({ kind: 'forbidden', status: 403, message: expect.stringContaining('https://evil.example') });
    const sum = await summarizePOST(post('/api/summarize', { system: 'Summarise.', prompt: 'x' }, { headers: { 'content-type': 'application/json', origin: 'null' } }));
    expect(sum.status).toBe(403);
    expect(mock.requests).toHaveLength(0);
  });

  it('a text/plain body is refused even from a client that is no browser', async () => {
    useEnv(mockEnv());
    for (const type of ['text/plain', undefined]) {
      // Bytes, not a string: a string body would get a text/plain Content-Type of its own.
      const request = new Request(`${APP}/api/chat`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: new TextEncoder().encode(chatBody()) });
      expect(request.headers.get('content-type')).toBe(type ?? null);
      const res = await chatPOST(request);
      expect(res.status).toBe(415);
      expect((await refusal(res)).message).toBe('Request body must be JSON, sent with Content-Type: application/json.');
    }
    expect(mock.requests).toHaveLength(0);
  });

  it('a rebound name in the Host header is refused on every route, reads included', async () => {
    useEnv(mockEnv());
    const host = { host: 'evil.example:3000' };
    const chat = await chatPOST(post('/api/chat', chatBody(), { headers: { 'content-type': 'application/json', ...host } }));
    const sum = await summarizePOST(post('/api/summarize', { system: 'Summarise.', prompt: 'x' }, { headers: { 'content-type': 'application/json', ...host } }));
    const models = await modelsGET(new Request(`${APP}/api/models?refresh=1`, { headers: host }));
    for (const res of [chat, sum, models]) {
      expect(res.status).toBe(403);
      expect((await refusal(res)).message).toBe('This server does not answer to the name "evil.example". If that is its name, add it to ALLOWED_HOSTS on the server.');
    }
    expect(mock.requests).toHaveLength(0);
  });

  it('the app’s own page works on a literal address, [::1], and a name listed in ALLOWED_HOSTS', async () => {
    useEnv({ ...mockEnv(), ALLOWED_HOSTS: 'chat.example.com' });
    for (const [host, origin] of [
      ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
      ['[::1]:3000', 'http://[::1]:3000'],
      ['chat.example.com', 'https://chat.example.com'],
    ]) {
      const res = await chatPOST(post('/api/chat', chatBody(), { headers: { 'content-type': 'application/json', host: host!, origin: origin!, 'sec-fetch-site': 'same-origin' } }));
      expect((await stream(res)).text).toBe('Echo: hi');
    }
    const models = await modelsGET(new Request(`${APP}/api/models`, { headers: { host: 'chat.example.com' } }));
    expect(models.status).toBe(200);
  });
});

describe('GET /api/models', () => {
  it('lists the mock server’s models with the windows it reports, plus overrides', async () => {
    useEnv({ ...mockEnv(), MODEL_CONTEXT_WINDOWS: 'compat:mock-large=100000', DEFAULT_MODEL: 'compat:mock-small' });
    const res = await modelsGET(new Request(`${APP}/api/models?refresh=1`));
    expect(res.status).toBe(200);
    const body = (await res.json()) as ModelsResponse;
    expect(body.models).toEqual([
      { id: 'compat:mock-large', provider: 'compat', name: 'mock-large', contextWindow: 100000, contextWindowSource: 'override' },
      { id: 'compat:mock-small', provider: 'compat', name: 'mock-small', contextWindow: 8192, contextWindowSource: 'provider' },
      { id: 'compat:mock-summarizer', provider: 'compat', name: 'mock-summarizer', contextWindow: 4096, contextWindowSource: 'provider' },
    ]);
    expect(body.providers.find((p) => p.id === 'compat')).toEqual({ id: 'compat', label: 'Mock LLM', configured: true, reachable: true, state: 'connected' });
    expect(body.providers.filter((p) => p.configured).map((p) => p.id)).toEqual(['compat']);
    expect(body).toMatchObject({ defaultModel: 'compat:mock-small', summarizerModel: 'compat:mock-summarizer' });
  });

  it('with nothing configured: 200, no models, every provider not configured', async () => {
    useEnv({});
    const res = await modelsGET(new Request(`${APP}/api/models?refresh=1`));
    const body = (await res.json()) as ModelsResponse;
    expect(res.status).toBe(200);
    for (const id of ['openai', 'anthropic', 'google', 'compat'] as const) {
      expect(body.providers.find((p) => p.id === id)).toMatchObject({ configured: false, reachable: false });
    }
    // The default Ollama probe only counts when something answers.
    const ollama = body.providers.find((p) => p.id === 'ollama')!;
    if (!ollama.reachable) {
      expect(ollama.configured).toBe(false);
      expect(body.models).toEqual([]);
      expect(body.defaultModel).toBeUndefined();
    }
  });

  it('an Ollama that does not answer costs at most its short timeout', async () => {
    // A listening socket that never responds: the worst case for the probe.
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      useEnv({ OLLAMA_BASE_URL: `http://127.0.0.1:${port}` });
      // The probe gave up on its own short timeout (the message says so) instead of waiting for the socket.
      const body = (await (await modelsGET(new Request(`${APP}/api/models?refresh=1`))).json()) as ModelsResponse;
      expect(body.providers.find((p) => p.id === 'ollama')).toMatchObject({ configured: true, reachable: false });
      expect(body.providers.find((p) => p.id === 'ollama')!.error).toMatch(/did not answer within 400 ms/);
    } finally {
      silent.close();
    }
  });

  it('hosted providers: listed through their APIs, catalog fallback on failure, keys never in the response', async () => {
    const keys = { OPENAI_API_KEY: 'sk-proj-SECRETOPENAI123456', ANTHROPIC_API_KEY: 'sk-ant-api03-SECRETANTHROPIC', GOOGLE_GENERATIVE_AI_API_KEY: 'AIzaSECRETGOOGLE1234567890abcdef' };
    const seenHeaders: Record<string, string>[] = [];
    const fakeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      seenHeaders.push(Object.fromEntries(new Headers(init?.headers).entries()));
      if (url.hostname === 'api.anthropic.com') {
        return Response.json({ data: [{ type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }], has_more: false });
      }
      if (url.hostname === 'generativelanguage.googleapis.com') {
        // Real Gemini errors quote nothing secret; this one echoes the key to prove it gets scrubbed.
        return Response.json({ error: { code: 400, message: `Request contains an invalid argument (key ${keys.GOOGLE_GENERATIVE_AI_API_KEY}).`, status: 'INVALID_ARGUMENT' } }, { status: 400 });
      }
      return fetch(input, init);
    }) as typeof fetch;
    useEnv({ ...keys, OPENAI_BASE_URL: mock.baseUrl, OLLAMA_BASE_URL: 'off' }, fakeFetch);
    const res = await modelsGET(new Request(`${APP}/api/models?refresh=1`));
    const text = await res.text();
    for (const k of Object.values(keys)) expect(text).not.toContain(k);
    const body = JSON.parse(text) as ModelsResponse;
    // OpenAI behind a custom base URL: whatever that server lists.
    expect(body.models.filter((m) => m.provider === 'openai').map((m) => m.id)).toEqual(['openai:mock-large', 'openai:mock-small', 'openai:mock-summarizer']);
    expect(mock.requests.at(-1)!.authorized).toBe(true);
    expect(body.models.find((m) => m.provider === 'anthropic')).toEqual({
      id: 'anthropic:claude-sonnet-4-5-20250929',
      provider: 'anthropic',
      name: 'Claude Sonnet 4.5',
      contextWindow: 200000,
      contextWindowSource: 'catalog',
      maxOutputTokens: 64000,
    });
    const google = body.providers.find((p) => p.id === 'google')!;
    expect(google).toMatchObject({ configured: true, reachable: false, state: 'unreachable' });
    expect(google.error).toContain('[redacted]');
    // Listing failed but a key is set: the catalog's models are offered.
    expect(body.models.filter((m) => m.provider === 'google').map((m) => m.contextWindowSource)).toEqual(['catalog', 'catalog', 'catalog']);
    expect(seenHeaders.some((h) => h['x-api-key'] === keys.ANTHROPIC_API_KEY && h['anthropic-version'])).toBe(true);
  });

  it('a key the provider rejects: "key_rejected", and none of its models offered', async () => {
    const fakeFetch = (async () =>
      // Gemini's answer to a bad key (continuedev/continue#8516): a 400, not a 401.
      Response.json(
        { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } },
        { status: 400 },
      )) as typeof fetch;
    useEnv({ GOOGLE_GENERATIVE_AI_API_KEY: 'AIzaWRONGKEY1234567890abcdefgh', OLLAMA_BASE_URL: 'off' }, fakeFetch);
    const body = (await (await modelsGET(new Request(`${APP}/api/models?refresh=1`))).json()) as ModelsResponse;
    expect(body.providers.find((p) => p.id === 'google')).toMatchObject({ configured: true, reachable: false, state: 'key_rejected', error: expect.stringMatching(/^Google Gemini rejected the API key \(HTTP 400\)/) });
    expect(body.models).toEqual([]);
  });

  it('caches for a while; ?refresh=1 bypasses the cache', async () => {
    useEnv(mockEnv());
    await modelsGET(new Request(`${APP}/api/models?refresh=1`));
    const before = mock.requests.length;
    await modelsGET(new Request(`${APP}/api/models`));
    expect(mock.requests.length).toBe(before);
    await modelsGET(new Request(`${APP}/api/models?refresh=1`));
    expect(mock.requests.length).toBe(before + 1);
  });
});

describe('providers entered in the browser', () => {
  /** A port nothing listens on: taken, then released. */
  async function closedPort(): Promise<number> {
    const { createServer } = await import('node:net');
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }

  async function listProvider(body: Record<string, unknown>): Promise<ProviderListingResponse> {
    const res = await modelsPOST(post('/api/models', body));
    expect(res.status).toBe(200);
    return (await res.json()) as ProviderListingResponse;
  }

  it('an OpenAI-compatible server typed into the browser lists its models through this server, named by its instance', async () => {
    // A new user's server: nothing configured in its environment.
    useEnv({ OLLAMA_BASE_URL: 'off' });
    const out = await listProvider({ provider: 'compat', instance: 'k3x9', label: 'My mock', baseUrl: mock.baseUrl });
    expect(out.provider).toEqual({ id: 'compat', instance: 'k3x9', label: 'My mock', configured: true, reachable: true, state: 'connected' });
    expect(out.models).toEqual([
      { id: 'compat@k3x9:mock-large', provider: 'compat', instance: 'k3x9', name: 'mock-large', contextWindow: 128000, contextWindowSource: 'provider' },
      { id: 'compat@k3x9:mock-small', provider: 'compat', instance: 'k3x9', name: 'mock-small', contextWindow: 8192, contextWindowSource: 'provider' },
      { id: 'compat@k3x9:mock-summarizer', provider: 'compat', instance: 'k3x9', name: 'mock-summarizer', contextWindow: 4096, contextWindowSource: 'provider' },
    ]);
    expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    // The server's own list is unchanged: the browser's provider is not the server's.
    const server = (await (await modelsGET(new Request(`${APP}/api/models?refresh=1`))).json()) as ModelsResponse;
    expect(server.models).toEqual([]);
  });

  it('chat and summarize use the browser-entered provider with its own settings, and only with them', async () => {
    useEnv({ OLLAMA_BASE_URL: 'off' });
    const client = { instance: 'k3x9', label: 'My mock', baseUrl: mock.baseUrl };
    const out = await stream(await chatPOST(post('/api/chat', { model: 'compat@k3x9:mock-small', context: [userItem('hello from the browser')], temperature: 0.3, maxOutputTokens: 200, client })));
    expect(out.text).toBe('Echo: hello from the browser');
    expect(out.metadata).toMatchObject({ model: 'compat@k3x9:mock-small', provider: 'My mock', finishReason: 'stop' });
    // The model part goes to the server as it is; the request's settings with it.
    expect(sentBody()).toMatchObject({ model: 'mock-small', temperature: 0.3, max_tokens: 200 });

    const summary = await stream(await summarizePOST(post('/api/summarize', { summarizerModel: 'compat@k3x9:mock-summarizer', system: 'Summarize the conversation.', prompt: 'We talked about gardening tomatoes.', client })));
    expect(summary.text).toMatch(/^## Goal/);
    expect(sentBody().model).toBe('mock-summarizer');

    // Without its settings, or with another instance's, the model is not usable: nothing is sent.
    const before = mock.requests.length;
    for (const other of [undefined, { ...client, instance: 'zz9' }]) {
      const missing = await stream(await chatPOST(post('/api/chat', { model: 'compat@k3x9:mock-small', context: [userItem('hi')], ...(other ? { client: other } : {}) })));
      expect(missing.error).toMatchObject({ kind: 'invalid_request', message: expect.stringMatching(/entered in a browser/) });
    }
    expect(mock.requests.length).toBe(before);
  });

  it('a key the provider rejects is "key_rejected", the key appearing nowhere in the answer or the log', async () => {
    const key = 'sk-right-key-0123456789';
    const guarded = await startMockLlm({ apiKey: key, chunkDelayMs: 1 });
    try {
      useEnv({ OLLAMA_BASE_URL: 'off' });
      const wrongKey = 'sk-wrong-key-9876543210';
      const res = await modelsPOST(post('/api/models', { provider: 'compat', instance: 'g1', label: 'Guarded', baseUrl: guarded.baseUrl, apiKey: wrongKey }));
      const text = await res.text();
      expect(text).not.toContain(wrongKey);
      const wrong = JSON.parse(text) as ProviderListingResponse;
      expect(wrong.provider).toMatchObject({ state: 'key_rejected', configured: true, reachable: false, error: expect.stringMatching(/^Guarded rejected the API key \(HTTP 401\)/) });
      // No models to offer: none of them would answer.
      expect(wrong.models).toEqual([]);
      expect(logs.join('\n')).not.toContain(wrongKey);
      expect(logs).toContain('[api/models] compat@g1: key_rejected');

      const right = await listProvider({ provider: 'compat', instance: 'g1', label: 'Guarded', baseUrl: guarded.baseUrl, apiKey: key });
      expect(right.provider.state).toBe('connected');
      expect(right.models).toHaveLength(3);
      expect(guarded.requests.at(-1)!.authorized).toBe(true);
    } finally {
      await guarded.close();
    }
  });

  it('a server that does not answer is "unreachable"', async () => {
    useEnv({ OLLAMA_BASE_URL: 'off' });
    const port = await closedPort();
    const out = await listProvider({ provider: 'compat', instance: 'u1', label: 'Gone', baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(out.provider).toMatchObject({ state: 'unreachable', configured: true, reachable: false, error: 'Could not reach Gone at this address.' });
    expect(out.models).toEqual([]);
    const ollama = await listProvider({ provider: 'ollama', instance: 'o1', label: 'Ollama', baseUrl: `http://127.0.0.1:${port}` });
    expect(ollama.provider.state).toBe('unreachable');
  });

  it('what is not configured says what is missing; a base URL outside the policy says which policy', async () => {
    useEnv({ OLLAMA_BASE_URL: 'off' });
    expect((await listProvider({ provider: 'openai', instance: 'n1', label: 'OpenAI' })).provider).toMatchObject({
      state: 'not_configured',
      configured: false,
      error: 'No OpenAI API key for OpenAI: enter one in Settings → Providers.',
    });
    expect((await listProvider({ provider: 'compat', instance: 'n2', label: 'Box' })).provider).toMatchObject({ state: 'not_configured', error: 'Box has no base URL: enter its address in Settings → Providers.' });

    const lan = await listProvider({ provider: 'compat', instance: 'r1', label: 'LAN box', baseUrl: 'http://192.168.1.20:8000/v1' });
    expect(lan.provider).toMatchObject({ state: 'refused', error: expect.stringMatching(/only loopback hosts .* 192\.168\.1\.20 is not one \(see ALLOW_CLIENT_BASE_URLS\)/) });
    useEnv({ OLLAMA_BASE_URL: 'off', ALLOW_CLIENT_BASE_URLS: 'none' });
    const none = await listProvider({ provider: 'compat', instance: 'r2', label: 'Local', baseUrl: mock.baseUrl });
    expect(none.provider).toMatchObject({ state: 'refused', error: expect.stringMatching(/ALLOW_CLIENT_BASE_URLS=none/) });
    expect(mock.requests).toHaveLength(0);
  });

  it('the listing route is guarded like the others and validates its body', async () => {
    useEnv({ OLLAMA_BASE_URL: 'off' });
    const crossSite = await modelsPOST(post('/api/models', { provider: 'compat', instance: 'x1', label: 'X', baseUrl: mock.baseUrl }, { headers: { 'content-type': 'application/json', origin: 'https://evil.example' } }));
    expect(crossSite.status).toBe(403);
    const plain = await modelsPOST(post('/api/models', JSON.stringify({ provider: 'compat', instance: 'x1', label: 'X' }), { headers: { 'content-type': 'text/plain' } }));
    expect(plain.status).toBe(415);
    const badId = await modelsPOST(post('/api/models', { provider: 'compat', instance: 'Not/An:Id', label: 'X' }));
    expect(badId.status).toBe(400);
    const unknown = await modelsPOST(post('/api/models', { provider: 'compat', instance: 'x1', label: 'X', extra: 1 }));
    expect(unknown.status).toBe(400);
    expect(mock.requests).toHaveLength(0);
  });
});
