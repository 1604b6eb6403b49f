import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { PROVIDER_ERROR_KINDS, classifyProviderError, jsonError, parseProviderErrorInfo, parseRetryAfter, recognisedErrorMessage, scrubSecrets } from './errors';
import { ForbiddenDestinationError } from './guardedFetch';
import { OVERFLOW_FIXTURES } from '@/lib/testing/overflowErrors';

function apiError(status: number, body: string, headers: Record<string, string> = {}, message = 'Bad Request') {
  return new APICallError({ message, url: 'https://api.example.com/v1/chat/completions', requestBodyValues: {}, statusCode: status, responseHeaders: headers, responseBody: body });
}

/** A Node system error as undici hands it over in `cause`. */
const sysError = (message: string, code: string) => Object.assign(new Error(message), { code });
const fetchFailed = (cause: unknown) => Object.assign(new TypeError('fetch failed'), { cause });

describe('the provider’s own words, from each provider error shape', () => {
  it.each([
    ['OpenAI: error object', '{"error":{"message":"Invalid model","type":"invalid_request_error","param":null,"code":null}}', 'Invalid model'],
    ['Ollama: error string', `{"error":"model 'llama3.3' not found, try pulling it first"}`, "model 'llama3.3' not found, try pulling it first"],
    ['Mistral / vLLM: top-level message', '{"object":"error","message":"Prompt contains 66385 tokens","type":"invalid_request_error","param":null,"code":null}', 'Prompt contains 66385 tokens'],
    ['Gemini: array of error objects', fixtureBody('Google Gemini (with errors[])'), 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).'],
    ['an error object without message, message beside it', '{"error":{"code":"invalid_api_key"},"message":"Invalid API key"}', 'Invalid API key'],
    // A proxy that puts the upstream's JSON body, as a string, in its own message.
    ['a proxy nesting the upstream body', JSON.stringify({ error: { message: '{"error":{"message":"prompt is too long: 208310 tokens > 200000 maximum"}}' } }), 'prompt is too long: 208310 tokens > 200000 maximum'],
    ['… with a line break before it', JSON.stringify({ error: { message: '\n{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' } }), 'Overloaded'],
    ['… that is not JSON after all', JSON.stringify({ error: { message: '{not json' } }), '{not json'],
    ['OpenAI Responses: a streamed error event', '{"error":{"type":"error","sequence_number":2,"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window."}}}', 'Your input exceeds the context window.'],
  ])('%s', (_shape, body, expected) => {
    expect(recognisedErrorMessage(body)).toBe(expected);
  });

  // Whatever else a server answers is not quoted: a base URL can point at any service the policy allows.
  it.each([
    ['FastAPI: detail string (any Python web app)', '{"detail":"db_password=hunter2"}'],
    ['FastAPI: validation detail list', '{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}'],
    ['a JSON body with no message field', '{"status":"fail"}\n'],
    ['a message at the top level alone', '{"message":"db_password=hunter2"}'],
    ['"error": null beside a message', '{"error":null,"message":"db_password=hunter2"}'],
    ['an error string beside other fields', '{"error":"db_password=hunter2","stack":"at main.go:12"}'],
    ['plain text', '\nupstream connect error or disconnect/reset before headers. reset reason: connection termination\n'],
    ['HTML', '<html><body><h1>500</h1><p>db_password=hunter2</p></body></html>'],
    ['JSON null', 'null'],
    ['a JSON string', '"db_password=hunter2"'],
    ['an array of two errors', '[{"error":{"message":"a"}},{"error":{"message":"b"}}]'],
    ['empty', ''],
    ['blank', '  \n'],
  ])('%s is not a provider error', (_shape, body) => {
    expect(recognisedErrorMessage(body)).toBeUndefined();
  });

  it('odd values say nothing', () => {
    for (const body of [undefined, 42, {}, [], { error: {} }, { error: [] }]) expect(recognisedErrorMessage(body)).toBeUndefined();
  });

  it('the detail is that message, on one line', () => {
    const info = classifyProviderError(apiError(400, '{\n  "error": {\n    "message": "Unsupported value:\\n  \'temperature\' does not support 0.2"\n  }\n}'), { provider: 'OpenAI' });
    expect(info.detail).toBe("Unsupported value: 'temperature' does not support 0.2");
    expect(info.message).toBe("OpenAI rejected the request (HTTP 400): Unsupported value: 'temperature' does not support 0.2");
  });

  it('the detail has no surrounding whitespace', () => {
    expect(classifyProviderError(apiError(500, '{"error":{"message":"  Internal server error\\n"}}')).detail).toBe('Internal server error');
  });

  it('the body comes first, then the parsed data the SDK attached; an error’s own message never', () => {
    const data = { error: { message: 'from data' } };
    expect(classifyProviderError({ statusCode: 422, responseBody: '{"error":{"message":"from body"}}', data, message: 'from message' }).detail).toBe('from body');
    expect(classifyProviderError({ statusCode: 422, data, message: 'from message' }).detail).toBe('from data');
    // The SDK's message for a failed call is the HTTP status text, which the server chose: not passed on.
    expect(classifyProviderError(Object.assign(new Error('db_password=hunter2'), { statusCode: 422 })).detail).toBeUndefined();
    // An overflow stated only in the data still counts.
    expect(classifyProviderError({ statusCode: 400, data: { error: { message: 'prompt is too long: 208310 tokens > 200000 maximum' } }, message: 'Bad Request' }).kind).toBe('context_overflow');
  });

  it('each text is read on its own: a code next to an unrelated message still counts', () => {
    const info = classifyProviderError({ message: 'Bad Request', code: 'context_length_exceeded', type: 'invalid_request_error' });
    expect(info).toMatchObject({
      kind: 'context_overflow',
      message: 'The conversation is too long for this model’s context window. Compact it (or pick a model with a larger window) and try again.',
    });
    expect(classifyProviderError({ message: 'Request failed', code: 'rate_limit_exceeded' }).kind).toBe('rate_limit');
  });

  it('a streamed error without a message is described by its code', () => {
    expect(classifyProviderError({ type: 'server_error', code: 'internal_error' })).toEqual({ kind: 'unknown', message: 'The model call failed: internal_error', detail: 'internal_error' });
  });

  it('long provider messages are cut to 600 characters, with an ellipsis', () => {
    const body = (m: string) => JSON.stringify({ error: { message: m } });
    const exactly600 = 'x'.repeat(600);
    expect(classifyProviderError(apiError(400, body(exactly600))).detail).toBe(exactly600);
    for (const long of ['y'.repeat(601), 'z'.repeat(20_000)]) {
      const detail = classifyProviderError(apiError(400, body(long))).detail!;
      expect(detail).toHaveLength(600);
      expect(detail).toBe(`${long.slice(0, 599)}…`);
    }
  });
});

describe('status codes', () => {
  it.each([
    [401, 'auth', 'OpenAI rejected the API key (HTTP 401). Check the key in Settings or in the server\'s environment.'],
    [403, 'auth', 'OpenAI rejected the API key (HTTP 403). Check the key in Settings or in the server\'s environment.'],
    [300, 'invalid_request', 'OpenAI answered with a redirect (HTTP 300); redirects are not followed. Check the base URL.'],
    [301, 'invalid_request', 'OpenAI answered with a redirect (HTTP 301); redirects are not followed. Check the base URL.'],
    [307, 'invalid_request', 'OpenAI answered with a redirect (HTTP 307); redirects are not followed. Check the base URL.'],
    [399, 'invalid_request', 'OpenAI answered with a redirect (HTTP 399); redirects are not followed. Check the base URL.'],
    [400, 'invalid_request', 'OpenAI rejected the request (HTTP 400).'],
    [422, 'invalid_request', 'OpenAI rejected the request (HTTP 422).'],
    [404, 'invalid_request', 'OpenAI rejected the request (HTTP 404).'],
    [500, 'server', 'OpenAI had a server error (HTTP 500). Try again in a moment.'],
    [502, 'server', 'OpenAI had a server error (HTTP 502). Try again in a moment.'],
    [529, 'server', 'OpenAI is overloaded right now (HTTP 529). Try again in a moment.'],
  ])('HTTP %i with an empty body → %s', (status, kind, message) => {
    expect(classifyProviderError({ statusCode: status }, { provider: 'OpenAI' })).toEqual({ kind, status, message, provider: 'OpenAI', detail: undefined, ...(kind === 'server' ? { retryAfterMs: undefined } : {}) });
  });

  it('without a provider label the messages say "the provider"', () => {
    expect(classifyProviderError({ statusCode: 401 }).message).toBe("The provider rejected the API key (HTTP 401). Check the key in Settings or in the server's environment.");
    expect(classifyProviderError({ statusCode: 413 }).message).toBe('The request is larger than the provider accepts (HTTP 413). Compact the conversation and try again.');
    expect(classifyProviderError({ statusCode: 413 }, { provider: 'Groq' }).message).toBe('The request is larger than Groq accepts (HTTP 413). Compact the conversation and try again.');
  });

  it('a 404 names the model only when the provider talks about a model', () => {
    const model = classifyProviderError(apiError(404, '{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","code":"model_not_found"}}'), { provider: 'OpenAI' });
    expect(model).toMatchObject({ kind: 'invalid_request', status: 404, message: 'OpenAI does not know this model (HTTP 404): The model `gpt-9` does not exist or you do not have access to it.' });
    // A wrong base URL path on a Go server (Ollama): its plain-text 404 is not a provider error, so it is described.
    const path = classifyProviderError(apiError(404, '404 page not found'), { provider: 'Ollama', protocol: 'ollama' });
    expect(path).toMatchObject({ kind: 'invalid_request', status: 404, message: 'The server at this address did not answer like an Ollama server (HTTP 404). Check the base URL.', detail: undefined });
    // A 400 that mentions a model is still a rejected request.
    const param = classifyProviderError(apiError(400, '{"error":{"message":"Unsupported parameter: \'temperature\' is not supported with this model."}}'), { provider: 'OpenAI' });
    expect(param.message).toBe("OpenAI rejected the request (HTTP 400): Unsupported parameter: 'temperature' is not supported with this model.");
  });

  it('"overloaded" is said for 529, and for any 5xx whose body says so (Gemini’s 503)', () => {
    const gemini = apiError(503, '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}');
    expect(classifyProviderError(gemini, { provider: 'Google Gemini' }).message).toBe('Google Gemini is overloaded right now (HTTP 503). Try again in a moment.');
    expect(classifyProviderError(apiError(529, ''), { provider: 'Anthropic' }).message).toBe('Anthropic is overloaded right now (HTTP 529). Try again in a moment.');
    expect(classifyProviderError(apiError(500, '{"error":{"message":"Internal error"}}'), { provider: 'Anthropic' }).message).toBe('Anthropic had a server error (HTTP 500). Try again in a moment.');
  });

  it('a server error passes on how long to wait when the provider says', () => {
    expect(classifyProviderError(apiError(503, 'Service Unavailable', { 'retry-after': '7' })).retryAfterMs).toBe(7000);
  });

  it('a status found under a wrapper counts (RetryError over a 503)', () => {
    const last = apiError(503, 'Service Unavailable');
    const err = new RetryError({ message: 'Failed after 3 attempts. Last error: Service Unavailable', reason: 'maxRetriesExceeded', errors: [last, last, last] });
    expect(classifyProviderError(err)).toMatchObject({ kind: 'server', status: 503 });
  });

  it('numbers that are not HTTP statuses are not taken for one', () => {
    for (const status of [0, 99, 600, 999, -1, '503', Number.NaN]) {
      const info = classifyProviderError({ status, message: 'upstream failed', type: 'server_error' });
      expect(info, String(status)).toEqual({ kind: 'unknown', message: 'The model call failed: upstream failed', detail: 'upstream failed', status: undefined, provider: undefined });
    }
    expect(classifyProviderError({ status: 599, message: 'upstream failed' }).kind).toBe('server');
    expect(classifyProviderError({ statusCode: 0, status: 503, message: 'upstream failed' }).status).toBe(503);
  });

  it('a 2xx on an error (the SDK could not parse a good response) is not an error status, and the body is not quoted', () => {
    const info = classifyProviderError(apiError(200, '<html>db_password=hunter2</html>', {}, 'Invalid JSON response'), { protocol: 'openai-compatible' });
    expect(info).toEqual({ kind: 'unknown', status: undefined, provider: undefined, detail: undefined, message: 'The server at this address did not answer like an OpenAI-compatible API (HTTP 200). Check the base URL.' });
  });

  it('a body that is not a provider error is described, never quoted (issue: a local service read through a browser-entered provider)', () => {
    for (const [status, kind] of [
      [500, 'server'],
      [502, 'server'],
      [400, 'invalid_request'],
      [404, 'invalid_request'],
      [418, 'invalid_request'],
    ] as const) {
      for (const body of ['db_password=hunter2', '{"detail":"db_password=hunter2"}', '<h1>db_password=hunter2</h1>']) {
        const info = classifyProviderError(apiError(status, body, {}, 'db_password=hunter2'), { provider: 'My server', protocol: 'openai-compatible' });
        expect(JSON.stringify(info)).not.toContain('hunter2');
        expect(info).toEqual({ kind, status, provider: 'My server', detail: undefined, message: `The server at this address did not answer like an OpenAI-compatible API (HTTP ${status}). Check the base URL.`, ...(kind === 'server' ? { retryAfterMs: undefined } : {}) });
      }
    }
    // What the SDK throws when a 200 body is not the API's: its message quotes the text.
    const parse = Object.assign(new Error('JSON parsing failed: Text: db_password=hunter2.'), { name: 'AI_JSONParseError', text: 'db_password=hunter2' });
    expect(JSON.stringify(classifyProviderError(parse, { protocol: 'anthropic' }))).not.toContain('hunter2');
    expect(classifyProviderError(parse, { protocol: 'anthropic' }).message).toBe('The server at this address did not answer like the Anthropic API. Check the base URL.');
    // listing.ts parses a list with JSON.parse: its SyntaxError quotes the start of the text.
    const syntax = new SyntaxError('Unexpected token \'d\', "db_password=hunter2" is not valid JSON');
    expect(classifyProviderError(syntax, { protocol: 'ollama' }).message).toBe('The server at this address did not answer like an Ollama server. Check the base URL.');
  });
});

describe('rate limits and retry hints', () => {
  it('a 429 without any hint says "shortly"', () => {
    expect(classifyProviderError(apiError(429, '{"error":{"message":"Too many requests"}}'), { provider: 'Mistral' })).toMatchObject({
      kind: 'rate_limit',
      retryAfterMs: undefined,
      message: 'Mistral is rate-limiting requests. Try again shortly.',
    });
  });

  it('waits are rounded up to whole seconds, at least one', () => {
    expect(classifyProviderError(apiError(429, 'slow down', { 'retry-after-ms': '250' })).message).toBe('The provider is rate-limiting requests. Try again in 1 s.');
    expect(classifyProviderError(apiError(429, 'slow down', { 'retry-after-ms': '0' })).message).toBe('The provider is rate-limiting requests. Try again in 1 s.');
    expect(classifyProviderError(apiError(429, 'slow down', { 'retry-after-ms': '2001' })).message).toBe('The provider is rate-limiting requests. Try again in 3 s.');
  });

  it('rate-limit wording without a 429 is a rate limit too', () => {
    expect(classifyProviderError({ message: 'Rate limit reached for gpt-4o. Please try again in 20s.' })).toMatchObject({ kind: 'rate_limit', retryAfterMs: 20_000 });
  });

  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['retry-after-ms', { 'retry-after-ms': '1500.4' }, undefined, 1500],
    ['retry-after-ms that is not a number falls back to retry-after', { 'retry-after-ms': 'soon', 'retry-after': '2' }, undefined, 2000],
    ['retry-after seconds', { 'retry-after': '20' }, undefined, 20_000],
    ['retry-after fractional seconds', { 'retry-after': '0.5' }, undefined, 500],
    ['retry-after fractional seconds, two places', { 'retry-after': '1.25' }, undefined, 1250],
    ['retry-after with spaces', { 'retry-after': ' 20 ' }, undefined, 20_000],
    ['retry-after as an HTTP date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, undefined, 30_000],
    ['retry-after as an ISO date', { 'retry-after': '2026-01-01T00:00:30Z' }, undefined, 30_000],
    ['retry-after as an ISO date without a zone (local time)', { 'retry-after': localIso(now + 30_000) }, undefined, 30_000],
    ['retry-after in the past', { 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, undefined, 0],
    ['retry-after that is neither falls back to the text', { 'retry-after': 'soon' }, 'Please try again in 2s.', 2000],
    ['text: seconds with decimals', {}, 'Please try again in 3.176s. Visit https://platform.openai.com/account/rate-limits', 3176],
    ['text: milliseconds', {}, 'Please try again in 644ms.', 644],
    ['text: "1 second"', {}, 'Please try again in 1 second.', 1000],
    ['text: "20 seconds"', {}, 'Please try again in 20 seconds.', 20_000],
    ['text: "Try again in 5 s"', {}, 'Try again in 5 s', 5000],
    ['no headers at all (null)', null, 'Please try again in 2s.', 2000],
    ['a Headers object', new Headers({ 'Retry-After': '4' }), undefined, 4000],
    ['nothing', {}, 'Please slow down.', undefined],
    ['headers that are a string', 'retry-after: 3', undefined, undefined],
  ] as const)('%s', (_case, headers, text, expected) => {
    expect(parseRetryAfter(headers, text, now)).toBe(expected);
  });
});

describe('connection failures', () => {
  // The causes as undici and Node report them.
  it.each([
    ['ECONNREFUSED', fetchFailed(sysError('connect ECONNREFUSED 127.0.0.1:11434', 'ECONNREFUSED')), 'connect ECONNREFUSED 127.0.0.1:11434'],
    ['ENOTFOUND', fetchFailed(sysError('getaddrinfo ENOTFOUND api.example.invalid', 'ENOTFOUND')), 'getaddrinfo ENOTFOUND api.example.invalid'],
    ['EAI_AGAIN', fetchFailed(sysError('getaddrinfo EAI_AGAIN api.openai.com', 'EAI_AGAIN')), 'getaddrinfo EAI_AGAIN api.openai.com'],
    ['ETIMEDOUT', fetchFailed(sysError('connect ETIMEDOUT 10.0.0.5:8000', 'ETIMEDOUT')), 'connect ETIMEDOUT 10.0.0.5:8000'],
    ['EHOSTUNREACH', fetchFailed(sysError('connect EHOSTUNREACH 10.0.0.5:8000', 'EHOSTUNREACH')), 'connect EHOSTUNREACH 10.0.0.5:8000'],
    ['ENETUNREACH', fetchFailed(sysError('connect ENETUNREACH 2001:db8::1:443', 'ENETUNREACH')), 'connect ENETUNREACH 2001:db8::1:443'],
    ['EPIPE', fetchFailed(sysError('write EPIPE', 'EPIPE')), 'write EPIPE'],
    ['UND_ERR_CONNECT_TIMEOUT', fetchFailed(sysError('Connect Timeout Error (attempted address: api.example.com:443, timeout: 10000ms)', 'UND_ERR_CONNECT_TIMEOUT')), 'Connect Timeout Error (attempted address: api.example.com:443, timeout: 10000ms)'],
    ['UND_ERR_SOCKET', fetchFailed(sysError('other side closed', 'UND_ERR_SOCKET')), 'other side closed'],
    // The same causes met on their own, not under fetch's TypeError.
    ['bare ENOTFOUND', sysError('getaddrinfo ENOTFOUND api.example.invalid', 'ENOTFOUND'), 'getaddrinfo ENOTFOUND api.example.invalid'],
    ['bare UND_ERR_HEADERS_TIMEOUT', sysError('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT'), 'Headers Timeout Error'],
    ['fetch failed, no cause', new TypeError('fetch failed'), 'fetch failed'],
    ['Firefox', new TypeError('NetworkError when attempting to fetch resource.'), 'NetworkError when attempting to fetch resource.'],
    ['socket hang up', new Error('socket hang up'), 'socket hang up'],
    ['premature close', new Error('Premature close'), 'Premature close'],
    // A server that does not speak HTTP (a database port), or not the TLS expected.
    ['HPE_INVALID_CONSTANT', fetchFailed(sysError('Expected HTTP/, RTSP/ or ICE/', 'HPE_INVALID_CONSTANT')), 'Expected HTTP/, RTSP/ or ICE/'],
    ['HTTPParserError without its code, as the AI SDK wraps it', Object.assign(new Error('Cannot connect to API: Response does not match the HTTP/1.1 protocol'), { cause: Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Expected HTTP/)'), { name: 'HTTPParserError' }) }), 'Expected HTTP/'],
    ['EPROTO', fetchFailed(sysError('write EPROTO 1234:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', 'EPROTO')), 'wrong version number'],
  ])('%s → network, in the same words whatever the socket said', (_code, error, why) => {
    const info = classifyProviderError(error, { provider: 'Ollama' });
    expect(info).toEqual({ kind: 'network', provider: 'Ollama', message: 'Could not reach Ollama at this address.' });
    // Refused, reset and "not HTTP" must not be told apart: that would map which ports are open behind the server.
    expect(JSON.stringify(info)).not.toContain(why);
  });

  it('a reply that broke off after a good start says so', () => {
    const midway = Object.assign(new TypeError('terminated'), { statusCode: 200, cause: sysError('other side closed', 'UND_ERR_SOCKET') });
    expect(classifyProviderError(midway, { provider: 'vLLM' })).toEqual({
      kind: 'network',
      provider: 'vLLM',
      message: 'The connection to vLLM broke off before the reply was complete.',
    });
    expect(classifyProviderError(Object.assign(new TypeError('terminated'), { statusCode: 200 })).message).toBe('The connection to the provider broke off before the reply was complete.');
    expect(classifyProviderError(fetchFailed(sysError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).message).toBe('Could not reach the provider at this address.');
  });

  it('a failure with only a code says so without a reason', () => {
    expect(classifyProviderError({ code: 'ECONNRESET' })).toEqual({ kind: 'network', provider: undefined, message: 'Could not reach the provider at this address.' });
    expect(classifyProviderError({ code: 'UND_ERR_SOCKET', statusCode: 200 }, { provider: 'vLLM' }).message).toBe('The connection to vLLM broke off before the reply was complete.');
  });

  it('the socket’s own words never reach the message', () => {
    const long = sysError(`connect ECONNREFUSED ${'a'.repeat(300)} Bearer sk-secret-token`, 'ECONNREFUSED');
    const info = classifyProviderError(fetchFailed(long));
    expect(info.detail).toBeUndefined();
    expect(JSON.stringify(info)).not.toContain('sk-secret');
  });

  it.each([
    ['a TypeError that is a bug, not the network', new TypeError("Cannot read properties of undefined (reading 'choices')")],
    ['a file error about a socket path', sysError("ENOENT: no such file or directory, stat '/run/ollama/ollama.socket'", 'ENOENT')],
    ['an error with an unrelated code', sysError('The "url" argument must be of type string. Received undefined', 'ERR_INVALID_ARG_TYPE')],
    ['a plain failure', new Error('boom')],
  ])('%s is not a connection failure', (_what, error) => {
    expect(classifyProviderError(error).kind).toBe('unknown');
  });
});

describe('other outcomes', () => {
  it.each([
    ['AbortError', new DOMException('This operation was aborted', 'AbortError')],
    ['TimeoutError', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    // Next.js aborts a route handler's work this way when the browser goes away.
    ['ResponseAborted', Object.assign(new Error(''), { name: 'ResponseAborted' })],
    ['an abort under a wrapper', new RetryError({ message: 'Failed', reason: 'abort', errors: [new DOMException('aborted', 'AbortError')] })],
  ])('%s → aborted', (_name, error) => {
    expect(classifyProviderError(error, { provider: 'OpenAI' })).toEqual({ kind: 'aborted', message: 'The request was cancelled.', provider: 'OpenAI' });
  });

  it('a destination the guard refused is an invalid request with the guard’s reason', () => {
    const err = new ForbiddenDestinationError('http://169.254.169.254/', 'link-local addresses are never allowed');
    expect(classifyProviderError(err, { provider: 'Ollama' })).toEqual({
      kind: 'invalid_request',
      message: 'Refused to contact http://169.254.169.254/: link-local addresses are never allowed',
      detail: 'Refused to contact http://169.254.169.254/: link-local addresses are never allowed',
      provider: 'Ollama',
      status: undefined,
    });
    expect(classifyProviderError(fetchFailed(err)).kind).toBe('invalid_request');
  });

  it('anything else is unknown, with or without words', () => {
    expect(classifyProviderError(undefined)).toEqual({ kind: 'unknown', message: 'The model call failed for an unknown reason.', detail: undefined, status: undefined, provider: undefined });
    expect(classifyProviderError(new Error(''))).toMatchObject({ kind: 'unknown', message: 'The model call failed for an unknown reason.' });
    // Words of unknown origin are not quoted; an error of our own, or one the SDK wrote itself, is.
    expect(classifyProviderError('plain string')).toMatchObject({ kind: 'unknown', message: 'The model call failed for an unknown reason.', detail: undefined });
    expect(classifyProviderError(new Error('boom'))).toMatchObject({ kind: 'unknown', message: 'The model call failed for an unknown reason.' });
    const local = Object.assign(new Error('No output generated. Check the stream for errors.'), { name: 'AI_NoOutputGeneratedError' });
    expect(classifyProviderError(local)).toMatchObject({ kind: 'unknown', message: 'The model call failed: No output generated. Check the stream for errors.' });
  });

  it('odd shapes never make it throw', () => {
    for (const error of [null, 0, true, [], {}, { code: 500 }, { code: 8, type: 2 }, { message: 42 }, { data: { error: { code: 500 } } }, { responseBody: 7 }, { name: 42, message: {} }]) {
      expect(() => classifyProviderError(error), JSON.stringify(error)).not.toThrow();
      expect(classifyProviderError(error).kind).toBe('unknown');
    }
  });

  it('a cause chain that loops ends', () => {
    const a: { message: string; cause?: unknown } = { message: 'outer' };
    const b = { message: 'inner', cause: a };
    a.cause = b;
    expect(classifyProviderError(a)).toMatchObject({ kind: 'unknown' });
    const self: { message: string; lastError?: unknown } = { message: 'socket hang up' };
    self.lastError = self;
    expect(classifyProviderError(self).kind).toBe('network');
  });
});

describe('secrets', () => {
  it.each([
    ['OpenAI masked key', 'Incorrect API key provided: sk-proj-abc***********************xyz9.', 'Incorrect API key provided: [redacted]'],
    ['Groq key', 'Invalid API Key gsk_0123456789abcdef', 'Invalid API Key [redacted]'],
    ['xAI key', 'Incorrect API key provided: xai-AbCdEf123456.', 'Incorrect API key provided: [redacted]'],
    ['Google key', 'API key AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI expired', 'API key [redacted] expired'],
    ['Bearer header', 'Authorization: Bearer eyJhbGciOi.x.y', 'Authorization: [redacted]'],
    ['Bearer with two spaces', 'Authorization: Bearer  eyJhbGciOi.x.y', 'Authorization: [redacted]'],
    ['short prefixes are words, not keys', 'the sk-1 and key-ab values', 'the sk-1 and key-ab values'],
    ['a word after "key" is not a key', 'Your API key provided is invalid', 'Your API key provided is invalid'],
  ])('%s', (_what, text, scrubbed) => {
    expect(scrubSecrets(text)).toBe(scrubbed);
  });

  it('a given secret goes wherever it appears; blank and very short ones are ignored (they would shred the text)', () => {
    expect(scrubSecrets('token abcd in abcd', ['abcd'])).toBe('token [redacted] in [redacted]');
    expect(scrubSecrets('the cat sat', ['', 'cat', 'at'])).toBe('the cat sat');
  });
});

describe('errors travelling to the client', () => {
  it('jsonError: the status, no caching, the info and its message as "error"', async () => {
    const res = jsonError(413, { kind: 'context_overflow', message: 'Too large', status: 413 });
    expect(res.status).toBe(413);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ kind: 'context_overflow', message: 'Too large', status: 413, error: 'Too large' });
  });

  it('every kind survives the round trip through text', () => {
    for (const kind of PROVIDER_ERROR_KINDS) {
      const info = { kind, message: `m-${kind}`, status: 400 };
      expect(parseProviderErrorInfo(JSON.stringify(info))).toEqual(info);
      expect(parseProviderErrorInfo(JSON.stringify({ error: info }))).toEqual(info);
    }
    expect([...PROVIDER_ERROR_KINDS].sort()).toEqual(['aborted', 'auth', 'context_overflow', 'forbidden', 'invalid_request', 'network', 'rate_limit', 'server', 'unknown']);
  });

  it('a jsonError body reads back as the info, without the repeated "error"', async () => {
    const info = { kind: 'forbidden' as const, message: 'Cross-site request refused' };
    expect(parseProviderErrorInfo(await jsonError(403, info).text())).toEqual(info);
  });

  it.each([
    ['a kind that is not one of ours', '{"kind":"teapot","message":"short and stout"}'],
    ['a kind without a message', '{"kind":"auth"}'],
    ['a message without a kind', '{"message":"Internal Server Error"}'],
    ['a kind that is not a string', '{"kind":1,"message":"x"}'],
    ['JSON null', 'null'],
    ['a JSON string', '"auth"'],
  ])('%s is read as plain text', (_what, text) => {
    expect(parseProviderErrorInfo(text)).toEqual({ kind: 'unknown', message: text });
  });

  it('a provider’s raw body that reaches the client is still recognised as an overflow', () => {
    const body = fixtureBody('OpenAI (chat, messages only)');
    expect(parseProviderErrorInfo(body)).toEqual({ kind: 'context_overflow', message: body });
  });

  it('an empty text is an unknown error with a message', () => {
    expect(parseProviderErrorInfo('')).toEqual({ kind: 'unknown', message: 'Unknown error' });
  });
});

function fixtureBody(provider: string): string {
  const f = OVERFLOW_FIXTURES.find((x) => x.provider === provider);
  if (!f) throw new Error(`no fixture ${provider}`);
  return f.body;
}

/** The date as "YYYY-MM-DDTHH:MM:SS" in local time, which Date.parse reads back as local time. */
function localIso(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
