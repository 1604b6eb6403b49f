import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ERROR_PRESETS } from '@/e2e/mock-llm/presets';
import { classifyProviderError, parseProviderErrorInfo, parseRetryAfter, recognisedErrorMessage, scrubSecrets } from './errors';

function apiError(status: number, body: unknown, headers: Record<string, string> = {}) {
  const responseBody = typeof body === 'string' ? body : JSON.stringify(body);
  return new APICallError({
    message: recognisedErrorMessage(responseBody) ?? 'error',
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: { messages: [] },
    statusCode: status,
    responseHeaders: headers,
    responseBody,
  });
}

describe('classifyProviderError', () => {
  it('401 → auth, with the provider label and the key scrubbed', () => {
    const info = classifyProviderError(apiError(401, ERROR_PRESETS['401'].body), { provider: 'OpenAI' });
    expect(info).toMatchObject({ kind: 'auth', status: 401, provider: 'OpenAI' });
    expect(info.message).toMatch(/OpenAI rejected the API key/);
    expect(info.detail).not.toMatch(/sk-mock/);
  });

  it('Gemini’s 400 API_KEY_INVALID → auth: the key is what is wrong', () => {
    // The body as quoted in continuedev/continue#8516.
    const body = {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
        ],
      },
    };
    expect(classifyProviderError(apiError(400, body), { provider: 'Google Gemini' })).toMatchObject({ kind: 'auth', status: 400, message: expect.stringMatching(/^Google Gemini rejected the API key/) });
    // Other 400s stay what they are.
    expect(classifyProviderError(apiError(400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } })).kind).toBe('invalid_request');
  });

  it('403 → auth', () => {
    expect(classifyProviderError(apiError(403, { error: { message: 'Permission denied' } })).kind).toBe('auth');
  });

  it('429 → rate_limit with retry-after from the header', () => {
    const info = classifyProviderError(apiError(429, ERROR_PRESETS['429'].body, { 'retry-after': '20' }), { provider: 'OpenAI' });
    expect(info).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 20_000 });
    expect(info.message).toMatch(/Try again in 20 s/);
  });

  it('429 without headers → retry-after from the message text', () => {
    const info = classifyProviderError(apiError(429, ERROR_PRESETS['429'].body));
    expect(info.retryAfterMs).toBe(644);
  });

  it('400 context_length_exceeded → context_overflow', () => {
    expect(classifyProviderError(apiError(400, ERROR_PRESETS.overflow.body)).kind).toBe('context_overflow');
  });

  it('other 4xx → invalid_request with the provider wording', () => {
    const info = classifyProviderError(apiError(400, { error: { message: "Unsupported parameter: 'temperature' is not supported with this model." } }), { provider: 'OpenAI' });
    expect(info.kind).toBe('invalid_request');
    expect(info.message).toContain("Unsupported parameter: 'temperature'");
    const missing = classifyProviderError(apiError(404, { error: { message: 'The model `gpt-9` does not exist or you do not have access to it.' } }), { provider: 'OpenAI' });
    expect(missing.message).toMatch(/does not know this model/);
  });

  it('5xx → server; 529 and "overloaded" say so', () => {
    expect(classifyProviderError(apiError(500, ERROR_PRESETS['500'].body)).kind).toBe('server');
    const overloaded = classifyProviderError(apiError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), { provider: 'Anthropic' });
    expect(overloaded).toMatchObject({ kind: 'server', status: 529 });
    expect(overloaded.message).toMatch(/overloaded/);
  });

  it('a 500 whose body is an overflow (llama.cpp) is an overflow, not a server error', () => {
    const body = { error: { code: 500, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error' } };
    expect(classifyProviderError(apiError(500, body)).kind).toBe('context_overflow');
  });

  it('413 → context_overflow (the payload is the history)', () => {
    expect(classifyProviderError(apiError(413, 'Request Entity Too Large')).kind).toBe('context_overflow');
  });

  it('unwraps RetryError to its last error', () => {
    const last = apiError(429, ERROR_PRESETS['429'].body);
    const err = new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [last, last, last] });
    expect(classifyProviderError(err).kind).toBe('rate_limit');
  });

  it('aborts and timeouts → aborted', () => {
    expect(classifyProviderError(new DOMException('The operation was aborted.', 'AbortError')).kind).toBe('aborted');
    expect(classifyProviderError(new DOMException('timed out', 'TimeoutError')).kind).toBe('aborted');
  });

  it('connection failures → network, without the socket-level reason (it would tell closed ports from open ones)', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }) });
    const info = classifyProviderError(refused, { provider: 'Ollama' });
    expect(info.kind).toBe('network');
    expect(info.message).toBe('Could not reach Ollama at this address.');
  });

  it('anything else → unknown, never throws', () => {
    expect(classifyProviderError(undefined).kind).toBe('unknown');
    expect(classifyProviderError(42).kind).toBe('unknown');
    expect(classifyProviderError('plain string').message).not.toContain('plain string');
  });

  it('never repeats a key it was told about', () => {
    const key = 'my-very-private-key-123456';
    const info = classifyProviderError(apiError(400, { error: { message: `Invalid header value ${key}` } }), { secrets: [key] });
    expect(JSON.stringify(info)).not.toContain(key);
  });
});

describe('helpers', () => {
  it('parseRetryAfter handles seconds, ms, HTTP dates and message text', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '3' }, undefined, now)).toBe(3000);
    expect(parseRetryAfter({ 'Retry-After-Ms': '250' }, undefined, now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), undefined, now)).toBe(30_000);
    expect(parseRetryAfter({}, 'Please try again in 3.176s. Visit', now)).toBe(3176);
    expect(parseRetryAfter({}, 'nothing here', now)).toBeUndefined();
  });

  it('scrubSecrets removes key-shaped strings and given values', () => {
    expect(scrubSecrets('Incorrect API key provided: sk-VKMIs***wjh3. You can')).toBe('Incorrect API key provided: [redacted] You can');
    expect(scrubSecrets('key AIzaSyA1234567890abcdefghijklmnop used')).toBe('key [redacted] used');
    expect(scrubSecrets('Authorization: Bearer abc.def')).toBe('Authorization: [redacted]');
    expect(scrubSecrets('value hunter2 here', ['hunter2'])).toBe('value [redacted] here');
  });

  it('parseProviderErrorInfo reads chunk texts and response bodies, tolerating plain text', () => {
    expect(parseProviderErrorInfo('{"kind":"auth","message":"no"}')).toEqual({ kind: 'auth', message: 'no' });
    expect(parseProviderErrorInfo('{"error":{"kind":"invalid_request","status":400,"message":"bad"}}')).toEqual({ kind: 'invalid_request', status: 400, message: 'bad' });
    expect(parseProviderErrorInfo('An error occurred.')).toEqual({ kind: 'unknown', message: 'An error occurred.' });
    expect(parseProviderErrorInfo('prompt is too long: 5 tokens > 4 maximum').kind).toBe('context_overflow');
  });
});
