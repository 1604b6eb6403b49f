import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from './server';

let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({ port: 0, host: '127.0.0.1', chunkDelayMs: 1 });
});
afterAll(() => mock.close());
beforeEach(async () => {
  await fetch(`${mock.url}/__control/reset`, { method: 'POST' });
});

function chat(body: Record<string, unknown>, init: RequestInit = {}) {
  return fetch(`${mock.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-small', ...body }),
    ...init,
  });
}

/** Reads an SSE body into its data payloads; stops quietly where the stream breaks. */
async function sse(res: Response): Promise<{ events: string[]; broke: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let broke = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
    }
  } catch {
    broke = true;
  }
  const events = buf
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice(6));
  return { events, broke };
}

const user = (text: string) => ({ role: 'user', content: text });

describe('mock LLM', () => {
  it('streams Chat Completions chunks word by word, then usage, then [DONE]', async () => {
    const res = await chat({ stream: true, stream_options: { include_usage: true }, messages: [user('hello brave new world')] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const { events } = await sse(res);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { object: string; choices: { delta: { content?: string }; finish_reason: string | null }[]; usage?: Record<string, number> });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Echo: hello brave new world');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(5);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    // prompt ≈ characters / 4 of what was sent
    expect(usage.prompt_tokens).toBe(Math.ceil(('hello brave new world'.length + 'user'.length) / 4));
    expect(usage.total_tokens).toBe(usage.prompt_tokens! + usage.completion_tokens!);
  });

  it('leaves usage out unless asked for', async () => {
    const { events } = await sse(await chat({ stream: true, messages: [user('hi')] }));
    expect(events.some((e) => e.includes('"usage"'))).toBe(false);
  });

  it('answers non-streaming requests', async () => {
    const res = await chat({ messages: [user('ping')] });
    const body = (await res.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number } };
    expect(body.choices[0]!.message.content).toBe('Echo: ping');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('lists its models with their windows', async () => {
    const body = (await (await fetch(`${mock.baseUrl}/models`)).json()) as { data: { id: string; context_length: number }[] };
    expect(body.data.map((m) => [m.id, m.context_length])).toEqual([
      ['mock-small', 8192],
      ['mock-large', 128000],
      ['mock-summarizer', 4096],
    ]);
  });

  it('plays scripted replies in order, filtered by match and kind, via the HTTP control API', async () => {
    const r = await fetch(`${mock.url}/__control/script`, {
      method: 'POST',
      body: JSON.stringify({
        steps: [
          { for: 'summarizer', reply: '## Goal\nScripted summary' },
          { match: 'second', reply: 'answer two', usage: { prompt_tokens: 111, completion_tokens: 2 } },
          { reply: 'answer one' },
        ],
      }),
    });
    expect(((await r.json()) as { queued: number }).queued).toBe(3);
    const one = (await (await chat({ messages: [user('first question')] })).json()) as { choices: { message: { content: string } }[] };
    expect(one.choices[0]!.message.content).toBe('answer one');
    const two = (await (await chat({ messages: [user('second question')] })).json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number } };
    expect(two.choices[0]!.message.content).toBe('answer two');
    expect(two.usage.prompt_tokens).toBe(111);
    const sum = (await (await chat({ messages: [{ role: 'system', content: 'You are a summarizer.' }, user('text')] })).json()) as { choices: { message: { content: string } }[] };
    expect(sum.choices[0]!.message.content).toBe('## Goal\nScripted summary');
    const health = (await (await fetch(`${mock.url}/__control/health`)).json()) as { ok: boolean; queued: number };
    expect(health).toMatchObject({ ok: true, queued: 0 });
  });

  it('answers title requests apart: only steps scripted for titles, else the first line of the prompt it quotes', async () => {
    const titleReq = (text: string) => ({ messages: [{ role: 'system', content: 'Write a conversation title for the exchange below.' }, user(`<user>\n${text}\n</user>`)] });
    const reply = async (res: Response) => ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    await fetch(`${mock.url}/__control/script`, { method: 'POST', body: JSON.stringify([{ reply: 'for the next turn' }, { for: 'title', match: 'sourdough', reply: 'Baking bread' }]) });
    // The step without `for` is left for the chat turn it was queued for.
    expect(await reply(await chat(titleReq('Which tomatoes grow best in pots?\nI have a balcony.')))).toBe('Which tomatoes grow best in pots?');
    expect(await reply(await chat(titleReq('My sourdough starter smells of acetone')))).toBe('Baking bread');
    expect(await reply(await chat({ messages: [user('a turn')] }))).toBe('for the next turn');
    const log = (await (await fetch(`${mock.url}/__control/requests`)).json()) as { kind: string }[];
    expect(log.map((r) => r.kind)).toEqual(['title', 'title', 'chat']);
  });

  it('records every request body for assertions', async () => {
    await chat({ messages: [user('remember me')] });
    const log = (await (await fetch(`${mock.url}/__control/requests`)).json()) as { path: string; kind: string; body: { messages: { content: string }[] } }[];
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ path: '/v1/chat/completions', kind: 'chat' });
    expect(log[0]!.body.messages[0]!.content).toBe('remember me');
  });

  it('writes a structured default summary that quotes the input', async () => {
    const res = await chat({
      model: 'mock-summarizer',
      messages: [
        { role: 'system', content: 'You summarise conversations.' },
        user('The user refactored the tokenizer worker and the tokenizer cache; the worker now batches requests.'),
      ],
    });
    const text = ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    expect(text).toMatch(/^## Goal/);
    for (const h of ['## Progress', '## Key Decisions', '## Next Steps', '## Critical Context']) expect(text).toContain(h);
    expect(text).toContain('tokenizer');
    expect(text).toContain('worker');
  });

  it('plays error presets with the real bodies and headers', async () => {
    mock.script([{ preset: '429' }, { preset: '401' }, { preset: 'overflow' }, { error: { status: 503, body: 'upstream down' } }]);
    const r429 = await chat({ messages: [user('a')] });
    expect(r429.status).toBe(429);
    expect(r429.headers.get('retry-after')).toBe('2');
    expect(((await r429.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    const r401 = await chat({ messages: [user('a')] });
    expect(((await r401.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    const rOverflow = await chat({ messages: [user('a')] });
    expect(((await rOverflow.json()) as { error: { code: string } }).error.code).toBe('context_length_exceeded');
    const r503 = await chat({ messages: [user('a')] });
    expect(r503.status).toBe(503);
    expect(await r503.text()).toBe('upstream down');
  });

  it('breaks a stream midway by destroying the socket', async () => {
    mock.script([{ reply: 'one two three four five six', breakAfterChunks: 3 }]);
    const { events, broke } = await sse(await chat({ stream: true, messages: [user('x')] }));
    expect(broke).toBe(true);
    const text = events.map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('one two three ');
    expect(events).not.toContain('[DONE]');
  });

  it('a break right after the first chunk, with no delay, still delivers that chunk', async () => {
    // Node holds a response's first writes back for a tick; destroying the socket at once used to drop them unsent.
    mock.script([{ reply: 'one two three', breakAfterChunks: 1, chunkDelayMs: 0 }]);
    const res = await chat({ stream: true, messages: [user('x')] });
    const { events, broke } = await sse(res);
    expect(broke).toBe(true);
    const text = events.map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('one ');
  });

  it('sends chunks then resets the connection at once, the chunks arriving before the reset', async () => {
    mock.script([{ reply: 'one two three', resetAfterChunks: 1 }]);
    const res = await chat({ stream: true, messages: [user('x')] });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    let failure: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
    } catch (e) {
      failure = e;
    }
    const contents = received
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => (JSON.parse(b.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '');
    expect(contents.join('')).toBe('one ');
    // A reset (RST), not an orderly close: the reader fails with ECONNRESET.
    expect((failure as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
  });

  it('can carry the role in the first content chunk, as Ollama does', async () => {
    mock.script([{ reply: 'one two', inlineRole: true }]);
    const { events } = await sse(await chat({ stream: true, messages: [user('x')] }));
    const deltas = events.filter((e) => e !== '[DONE]').map((e) => (JSON.parse(e) as { choices: { delta: Record<string, unknown> }[] }).choices[0]?.delta);
    expect(deltas[0]).toEqual({ role: 'assistant', content: 'one ' });
    expect(deltas.filter((d) => d?.content === '')).toEqual([]);
  });

  it('rejects prompts above the model window with OpenAI’s overflow error', async () => {
    const res = await chat({ model: 'mock-summarizer', messages: [user('word '.repeat(4000))] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe('context_length_exceeded');
    expect(body.error.message).toMatch(/maximum context length is 4096 tokens\. However, your messages resulted in \d+ tokens/);
  });

  it('hangs on request and notices when the client gives up', async () => {
    mock.script([{ hang: true }]);
    const ac = new AbortController();
    const pending = chat({ stream: true, messages: [user('wait')] }, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    expect(mock.requests[0]!.aborted).toBe(true);
  });

  it('serves a blank page to act as another site, outside the request log', async () => {
    const res = await fetch(`${mock.url}/__control/page`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('<title>Another site</title>');
    expect(mock.requests).toHaveLength(0);
  });

  it('can require an API key', async () => {
    const guarded = await startMockLlm({ apiKey: 'test-key' });
    try {
      const denied = await fetch(`${guarded.baseUrl}/models`);
      expect(denied.status).toBe(401);
      const ok = await fetch(`${guarded.baseUrl}/models`, { headers: { authorization: 'Bearer test-key' } });
      expect(ok.status).toBe(200);
      expect(guarded.requests.every((r) => !JSON.stringify(r).includes('test-key'))).toBe(true);
    } finally {
      await guarded.close();
    }
  });
});

describe('a model that writes as long as it may', () => {
  it('fills the share of max_tokens it is scripted to, in the input’s words', async () => {
    await fetch(`${mock.url}/__control/script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ fillMaxTokens: 0.5 }, { fillMaxTokens: 0.5 }]) });
    const ask = async (max: number) => {
      const res = await chat({ stream: false, max_tokens: max, messages: [{ role: 'user', content: 'parser cursor buffer advances' }] });
      return ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    };
    const short = await ask(100);
    const long = await ask(1_000);
    expect(short.length).toBeGreaterThanOrEqual(200);
    expect(short.length).toBeLessThan(260);
    expect(long.length).toBeGreaterThanOrEqual(2_000);
    expect(long).toContain('parser cursor buffer advances');
  });
});
