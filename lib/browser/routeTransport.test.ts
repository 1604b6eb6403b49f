import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '@/e2e/mock-llm/server';
import type { ContextItem } from '@/lib/session/context';
import { TITLE_SYSTEM } from '@/lib/chat/title';
import { handleChat, handleSummarize } from '@/lib/providers/streamHandlers';
import { routeSummarizer, routeTransport } from './routeTransport';

/**
 * The client transport against the real route handlers: the browser's relative fetch of /api/chat and
 * /api/summarize goes to the same handlers the app's routes call, which talk real HTTP to the scripted
 * model on loopback; what the transport reads back is the UI message stream those handlers write.
 */
let mock: MockLlm;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  mock = await startMockLlm({ chunkDelayMs: 1 });
  const deps = () => ({
    env: { OPENAI_COMPATIBLE_BASE_URL: mock.baseUrl, OPENAI_COMPATIBLE_NAME: 'Mock LLM', OLLAMA_BASE_URL: 'off', SUMMARIZER_MODEL: 'compat:mock-summarizer' },
    fetch: realFetch,
    log: () => {},
  });
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (!url.startsWith('/api/')) return realFetch(input, init);
    const request = new Request(`http://localhost:3000${url}`, init);
    if (url === '/api/chat') return handleChat(request, deps());
    if (url === '/api/summarize') return handleSummarize(request, deps());
    return new Response('not found', { status: 404 });
  }) as typeof fetch;
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await mock.close();
});
beforeEach(() => mock.reset());

const context: ContextItem[] = [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'Where are the build logs kept?' }] } }];

function handlers() {
  const seen: string[] = [];
  return { seen, h: { signal: new AbortController().signal, onText: (full: string) => void seen.push(full) } };
}

describe('routeTransport.streamChat', () => {
  it('streams the reply as it grows and returns its text, usage and finish reason', async () => {
    mock.script([{ for: 'chat', chunks: ['In ', 'the ', 'ci/ ', 'folder.'], usage: { prompt_tokens: 42, completion_tokens: 4 } }]);
    const { seen, h } = handlers();
    const res = await routeTransport.streamChat({ model: 'compat:mock-large', context }, h);
    expect(res.error).toBeUndefined();
    expect(res.text).toBe('In the ci/ folder.');
    expect(seen.at(-1)).toBe('In the ci/ folder.');
    expect(seen.length).toBeGreaterThan(1);
    // Each call carries the whole reply so far.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.startsWith(seen[i - 1]!)).toBe(true);
    expect(res.usage?.input).toBe(42);
    expect(res.finishReason).toBe('stop');
    // The request the model got holds the context that was sent.
    expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('Where are the build logs kept?');
  });

  it('a provider error becomes an error result with its kind, and a reply cut off at the limit says so', async () => {
    mock.script([{ for: 'chat', error: { status: 429, body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } } } }]);
    const failed = await routeTransport.streamChat({ model: 'compat:mock-large', context }, handlers().h);
    expect(failed.error?.kind).toBe('rate_limit');
    mock.script([{ for: 'chat', chunks: ['This ', 'stops'], finishReason: 'length' }]);
    const cut = await routeTransport.streamChat({ model: 'compat:mock-large', context }, handlers().h);
    expect(cut).toMatchObject({ text: 'This stops', finishReason: 'length' });
  });

  it('a route that refuses the request answers with its own message', async () => {
    const res = await routeTransport.streamChat({ model: 'no-such-provider:model', context }, handlers().h);
    expect(res.text).toBe('');
    expect(res.error?.message).toBeTruthy();
    expect(res.error?.kind).not.toBe('network');
  });

  it('a connection that drops before the reply finished keeps what arrived and says so', async () => {
    mock.script([{ for: 'chat', chunks: ['Half ', 'an ', 'answer ', 'and more'], breakAfterChunks: 2 }]);
    const res = await routeTransport.streamChat({ model: 'compat:mock-large', context }, handlers().h);
    expect(res.text).toBe('Half an ');
    expect(res.error?.kind).toBeTruthy();
  });

  it('stopping throws an AbortError', async () => {
    mock.script([{ for: 'chat', chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 20 }]);
    const ac = new AbortController();
    const run = routeTransport.streamChat({ model: 'compat:mock-large', context }, { signal: ac.signal, onText: (full) => full.includes('w2') && ac.abort() });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('routeSummarizer and completeText', () => {
  it('a summary streams its deltas and returns the whole text', async () => {
    mock.script([{ for: 'summarizer', chunks: ['## Goal\n', 'Ship it.'] }]);
    const deltas: string[] = [];
    const out = await routeSummarizer('compat:mock-summarizer').complete({ purpose: 'compaction', system: 'Summarise.', prompt: 'the conversation', maxOutputTokens: 200 }, { onDelta: (d) => deltas.push(d) });
    expect(out.text).toBe('## Goal\nShip it.');
    expect(deltas.join('')).toBe(out.text);
  });

  it('a failed summary throws instead of becoming an entry; an empty one comes back as it is, for the summary check to reject', async () => {
    mock.script([{ for: 'summarizer', error: { status: 500, body: { error: { message: 'upstream exploded' } } } }]);
    await expect(routeSummarizer('compat:mock-summarizer').complete({ purpose: 'compaction', system: 'Summarise.', prompt: 'x', maxOutputTokens: 200 }, {})).rejects.toThrow(/The summarizer failed/);
    // An empty summary is not an error of the request: lib/compaction/summaryCheck retries it, then falls back to the extractive summary.
    mock.script([{ for: 'summarizer', reply: '   ' }]);
    const empty = await routeSummarizer('compat:mock-summarizer').complete({ purpose: 'compaction', system: 'Summarise.', prompt: 'x', maxOutputTokens: 200 }, {});
    expect(empty.text.trim()).toBe('');
    expect(empty.finishReason).toBe('stop');
  });

  it('a short text (a title) comes back whole; nothing back is an error', async () => {
    mock.script([{ for: 'title', reply: 'Build logs' }]);
    await expect(routeTransport.completeText({ model: 'compat:mock-large', system: TITLE_SYSTEM, prompt: 'Where are the build logs kept?', maxOutputTokens: 20 })).resolves.toBe('Build logs');
    mock.script([{ for: 'title', reply: '' }]);
    await expect(routeTransport.completeText({ model: 'compat:mock-large', system: TITLE_SYSTEM, prompt: 'x', maxOutputTokens: 20 })).rejects.toThrow('The model returned nothing.');
  });
});
