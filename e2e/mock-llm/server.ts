import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ERROR_PRESETS, overflowBody, type ErrorSpec, type PresetName } from './presets';

/**
 * A scriptable OpenAI-compatible LLM for tests: real HTTP, real SSE in the
 * Chat Completions chunk format, usage in the final chunk when asked for.
 *
 * Without a script it is deterministic: chat requests get "Echo: <last user
 * text>" word by word; summarisation requests (system prompt mentioning
 * "summar") get a structured markdown summary that quotes words of the input.
 * Requests whose estimated prompt exceeds the model's window get OpenAI's real
 * context_length_exceeded error, so overflow handling can be tested end to end.
 *
 * Control API (JSON):
 *   POST /__control/script   {steps: Step[], replace?: boolean} or Step[]  — queue replies
 *   POST /__control/reset                                                 — clear script and log
 *   GET  /__control/requests                                              — every request body received
 *   GET  /__control/health
 *   GET  /__control/page                                                  — a blank HTML page: another
 *        origin (e.g. http://localhost:<port> next to the app on 127.0.0.1) for cross-site tests
 */

export interface Step {
  /** Substring of the last user message or of the system prompt; the step waits for a request that matches. */
  match?: string;
  /** Only for chat turns, summariser calls or title requests. A step without `for` never answers a title request. */
  for?: 'chat' | 'summarizer' | 'title';
  reply?: string;
  chunks?: string[];
  delayMs?: number;
  chunkDelayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  error?: { status: number; body: unknown; headers?: Record<string, string> };
  preset?: PresetName;
  /** Send this many content chunks, then close the socket without finishing the reply. */
  breakAfterChunks?: number;
  /**
   * Send this many content chunks back to back, then reset the connection
   * (TCP RST) at once: a provider or proxy dying right after its first words.
   */
  resetAfterChunks?: number;
  /** Carry the role in the first content chunk instead of an empty chunk of its own, as Ollama and many proxies do. */
  inlineRole?: boolean;
  /** Accept the request and never answer (until the client gives up). */
  hang?: boolean;
  /** Finish reason of the last chunk; "length" simulates a cut-off reply. */
  finishReason?: 'stop' | 'length';
  /**
   * Answer with about this share (0..1) of the request's max_tokens, in the
   * request's own words (four characters a token): a model that writes as
   * long as it is allowed. Without max_tokens, of 1,000.
   */
  fillMaxTokens?: number;
}

export interface MockModel {
  id: string;
  context_length: number;
}

export const MOCK_MODELS: MockModel[] = [
  { id: 'mock-small', context_length: 8192 },
  { id: 'mock-large', context_length: 128_000 },
  { id: 'mock-summarizer', context_length: 4096 },
];

export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** Whether an Authorization header was present (its value is never recorded). */
  authorized: boolean;
  /** The Host header: which name or address the client connected by. */
  host?: string;
  kind: 'chat' | 'summarizer' | 'title' | 'other';
  /** Set when the client went away before the reply finished. */
  aborted?: boolean;
}

export interface MockLlm {
  url: string;
  /** Base URL for OpenAI-compatible clients (url + "/v1"). */
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  script(steps: Step[], opts?: { replace?: boolean }): void;
  reset(): void;
  close(): Promise<void>;
}

export interface MockLlmOptions {
  port?: number;
  host?: string;
  /** Default delay between streamed words. */
  chunkDelayMs?: number;
  /** Reject prompts larger than the model's window (default true). */
  enforceContextWindow?: boolean;
  /** Require this bearer token on /v1 requests (401 preset otherwise). */
  apiKey?: string;
}

interface ChatBody {
  model?: string;
  max_tokens?: number;
  max_completion_tokens?: number;
  messages?: { role: string; content: unknown }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (p && typeof p === 'object' && (p as { type?: string }).type === 'text' ? String((p as { text?: unknown }).text ?? '') : ''))
      .join('\n');
  }
  return '';
}

function systemPrompt(body: ChatBody): string {
  return (body.messages ?? [])
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
}

function lastUserText(body: ChatBody): string {
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  return contentText(users[users.length - 1]?.content);
}

/** The mock's token estimate: characters / 4 of everything sent, like the crudest client-side estimate. */
export function estimatePromptTokens(body: ChatBody): number {
  let chars = 0;
  for (const m of body.messages ?? []) chars += contentText(m.content).length + m.role.length;
  return Math.max(1, Math.ceil(chars / 4));
}

function isSummarizer(body: ChatBody): boolean {
  return /summar/i.test(systemPrompt(body));
}

/** The app asks for a session's title with a system prompt that says "conversation title" (lib/chat/title.ts). */
function isTitle(body: ChatBody): boolean {
  return /conversation title/i.test(systemPrompt(body));
}

type Kind = 'chat' | 'summarizer' | 'title';

function kindOf(body: ChatBody): Kind {
  return isSummarizer(body) ? 'summarizer' : isTitle(body) ? 'title' : 'chat';
}

const STOPWORDS = new Set('the and for that with this from have will your what when which there their about would could should into than then them they were been also just only some more most other such very here where while these those after before because over under between through during being does doing done made make like want need ' .split(' '));

/** A few distinctive words of the input, in order of first appearance. */
function keywords(text: string, n: number): string[] {
  const counts = new Map<string, number>();
  const order: string[] = [];
  for (const w of text.toLowerCase().match(/[a-z][a-z0-9_-]{3,}/g) ?? []) {
    if (STOPWORDS.has(w)) continue;
    if (!counts.has(w)) order.push(w);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return order
    .map((w, i) => ({ w, i, c: counts.get(w)! }))
    .sort((a, b) => b.c - a.c || a.i - b.i)
    .slice(0, n)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.w);
}

export function defaultSummary(body: ChatBody): string {
  const input = (body.messages ?? []).filter((m) => m.role !== 'system').map((m) => contentText(m.content)).join('\n');
  const words = keywords(input, 6);
  const list = words.length ? words.join(', ') : 'the conversation';
  return [
    '## Goal',
    `Continue the work discussed so far (topics: ${list}).`,
    '',
    '## Constraints & Preferences',
    '- (none stated)',
    '',
    '## Progress',
    '### Done',
    `- Discussed ${words.slice(0, 3).join(', ') || 'the topic'}.`,
    '### In Progress',
    `- ${words[3] ?? 'Follow-up'} is being worked on.`,
    '',
    '## Key Decisions',
    `- Keep ${words[4] ?? 'the current approach'}.`,
    '',
    '## Next Steps',
    `1. Return to ${words[5] ?? words[0] ?? 'the task'}.`,
    '',
    '## Critical Context',
    `- Summary written by the mock LLM from ${input.length} characters of input.`,
  ].join('\n');
}

/** A summary as long as `share` of the request's output limit allows, from the input's words. */
export function fillingSummary(body: ChatBody, share: number): string {
  const limit = body.max_tokens ?? body.max_completion_tokens ?? 1_000;
  const chars = Math.max(40, Math.floor(limit * share * 4));
  const input = (body.messages ?? []).filter((m) => m.role !== 'system').map((m) => contentText(m.content)).join(' ');
  const words = input.match(/[A-Za-z][A-Za-z0-9_-]{2,}/g) ?? ['summary'];
  let text = '## Goal\n';
  for (let i = 0; text.length < chars; i++) text += `${words[i % words.length]} `;
  return text.trimEnd();
}

/**
 * Without a script, a title request is answered with the first line of the
 * user's prompt it quotes: the title a session has before the model names it,
 * so tests that find a session by its first words keep finding it.
 */
export function defaultTitle(body: ChatBody): string {
  const text = lastUserText(body);
  const quoted = /<user>\s*([^]*?)\s*<\/user>/.exec(text)?.[1] ?? text;
  return quoted.split('\n').map((l) => l.trim()).find(Boolean) ?? 'Untitled exchange';
}

function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, spec: ErrorSpec) {
  if (typeof spec.body === 'string') {
    res.writeHead(spec.status, { 'content-type': 'text/plain', ...spec.headers });
    res.end(spec.body);
  } else sendJson(res, spec.status, spec.body, spec.headers);
}

export async function startMockLlm(opts: MockLlmOptions = {}): Promise<MockLlm> {
  const host = opts.host ?? '127.0.0.1';
  const defaultChunkDelay = opts.chunkDelayMs ?? 5;
  const enforceWindow = opts.enforceContextWindow ?? true;
  let queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let counter = 0;

  function takeStep(body: ChatBody, kind: Kind): Step | undefined {
    const haystacks = [lastUserText(body), systemPrompt(body)];
    // Titles are asked for behind the user's back: they must not take steps a test queued for its turns.
    const fits = (s: Step) => (kind === 'title' ? s.for === 'title' : !s.for || s.for === kind);
    const i = queue.findIndex((s) => fits(s) && (!s.match || haystacks.some((h) => h.includes(s.match!))));
    if (i < 0) return undefined;
    return queue.splice(i, 1)[0];
  }

  async function completions(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, body: ChatBody) {
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return sendError(res, ERROR_PRESETS['401']);

    const kind = kindOf(body);
    record.kind = kind;
    const step = takeStep(body, kind) ?? {};
    if (step.delayMs) await sleep(step.delayMs);
    if (step.hang) {
      res.on('close', () => (record.aborted = true));
      return; // never answer
    }
    const preset = step.preset;
    if (preset && preset !== 'broken') return sendError(res, ERROR_PRESETS[preset]);
    if (step.error) return sendError(res, { status: step.error.status, body: step.error.body, headers: step.error.headers });

    const model = body.model ?? 'mock-small';
    const promptTokens = estimatePromptTokens(body);
    const window = MOCK_MODELS.find((m) => m.id === model)?.context_length;
    if (enforceWindow && !step.reply && !step.chunks && window !== undefined && promptTokens > window) {
      return sendError(res, overflowBody(window, promptTokens));
    }

    const unscripted = kind === 'summarizer' ? defaultSummary(body) : kind === 'title' ? defaultTitle(body) : `Echo: ${lastUserText(body)}`;
    const text = step.reply ?? (step.chunks ? step.chunks.join('') : step.fillMaxTokens !== undefined ? fillingSummary(body, step.fillMaxTokens) : unscripted);
    const chunks = step.chunks ?? words(text);
    const usage = step.usage ?? { prompt_tokens: promptTokens, completion_tokens: Math.max(1, Math.ceil(text.length / 4)) };
    const usageOut = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const breakAfter = preset === 'broken' ? (step.breakAfterChunks ?? 2) : step.breakAfterChunks;
    const id = `chatcmpl-mock-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = step.finishReason ?? 'stop';

    if (!body.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finish }],
        usage: usageOut,
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let closed = false;
    res.on('close', () => {
      closed = true;
      if (!res.writableFinished) record.aborted = true;
    });
    // Resolves once the bytes are handed to the kernel: Node holds the first writes of a response
    // back (corked) for a tick, and a socket destroyed before that would take them along unsent.
    const send = (obj: unknown) => new Promise<void>((resolve) => res.write(`data: ${JSON.stringify(obj)}\n\n`, () => resolve()));
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });

    let written = step.inlineRole ? Promise.resolve() : chunk({ role: 'assistant', content: '' });
    const reset = step.resetAfterChunks;
    const cutAt = reset ?? breakAfter;
    const delay = reset !== undefined ? 0 : (step.chunkDelayMs ?? defaultChunkDelay);
    for (let i = 0; i < chunks.length; i++) {
      if (closed) return;
      if (cutAt !== undefined && i >= cutAt) {
        // What was sent must arrive: the break is the only thing under test.
        await written;
        if (reset !== undefined) res.socket?.resetAndDestroy();
        else res.socket?.destroy();
        return;
      }
      written = chunk(step.inlineRole ? { role: 'assistant', content: chunks[i] } : { content: chunks[i] });
      if (delay > 0) await sleep(delay);
    }
    if (closed) return;
    chunk({}, finish);
    if (body.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOut });
    res.write('data: [DONE]\n\n');
    res.end();
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const raw = req.method === 'POST' ? await readBody(req) : '';
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text */
    }

    if (path.startsWith('/__control')) {
      if (path === '/__control/health') return sendJson(res, 200, { ok: true, queued: queue.length, requests: requests.length });
      if (path === '/__control/requests') return sendJson(res, 200, requests);
      if (path === '/__control/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end('<!doctype html><html lang="en"><head><title>Another site</title></head><body><h1>Another site</h1></body></html>');
      }
      if (path === '/__control/reset' && req.method === 'POST') {
        queue = [];
        requests.length = 0;
        return sendJson(res, 200, { ok: true });
      }
      if (path === '/__control/script' && req.method === 'POST') {
        const b = body as { steps?: Step[]; replace?: boolean } | Step[] | undefined;
        const steps = Array.isArray(b) ? b : b?.steps;
        if (!Array.isArray(steps)) return sendJson(res, 400, { error: 'expected {steps: [...]} or an array of steps' });
        if (!Array.isArray(b) && b?.replace) queue = [];
        queue.push(...steps);
        return sendJson(res, 200, { ok: true, queued: queue.length });
      }
      return sendJson(res, 404, { error: `no control endpoint ${req.method} ${path}` });
    }

    const record: RecordedRequest = { method: req.method ?? 'GET', path, body, authorized: !!req.headers.authorization, host: req.headers.host, kind: 'other' };
    requests.push(record);

    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return sendError(res, ERROR_PRESETS['401']);
      return sendJson(res, 200, {
        object: 'list',
        data: MOCK_MODELS.map((m) => ({ id: m.id, object: 'model', created: 1_700_000_000, owned_by: 'mock-llm', context_length: m.context_length })),
      });
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) {
      if (!body || typeof body !== 'object') return sendJson(res, 400, { error: { message: 'body must be JSON', type: 'invalid_request_error' } });
      return completions(req, res, record, body as ChatBody);
    }
    return sendJson(res, 404, { error: { message: `Unknown endpoint ${req.method} ${path}`, type: 'invalid_request_error' } });
  });

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostForUrl}:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    requests,
    script(steps, o) {
      if (o?.replace) queue = [];
      queue.push(...steps);
    },
    reset() {
      queue = [];
      requests.length = 0;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
