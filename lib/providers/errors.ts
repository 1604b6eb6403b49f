import type { ListProtocolName } from './descriptors';
import { matchOverflow } from './overflow';

/**
 * What the client learns about a failed model call. It travels as the text of
 * a UI-stream error chunk (JSON) or as the body of a 4xx response, so the
 * client can show a plain message and, for `context_overflow`, compact and retry.
 */
export type ProviderErrorKind = 'auth' | 'rate_limit' | 'context_overflow' | 'invalid_request' | 'server' | 'network' | 'aborted' | 'forbidden' | 'unknown';

export interface ProviderErrorInfo {
  kind: ProviderErrorKind;
  status?: number;
  /** Plain sentence for the user. */
  message: string;
  retryAfterMs?: number;
  provider?: string;
  /** The provider's own wording, shortened and scrubbed of anything key-like. */
  detail?: string;
}

/** `forbidden`: the app's own routes refused the request (a cross-site caller, a host name not allowed); see lib/http/requestGuard.ts. */
export const PROVIDER_ERROR_KINDS: readonly ProviderErrorKind[] = ['auth', 'rate_limit', 'context_overflow', 'invalid_request', 'server', 'network', 'aborted', 'forbidden', 'unknown'];

/**
 * Non-stream failures of the routes (bad input, body too large, refused base
 * URL, refused caller): the ProviderErrorInfo fields at the top level, plus
 * `error` repeating the message so a client that only looks for an error
 * string finds one.
 */
export function jsonError(status: number, info: ProviderErrorInfo): Response {
  return Response.json({ ...info, error: info.message }, { status, headers: { 'cache-control': 'no-store' } });
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  status?: unknown;
  responseBody?: unknown;
  responseHeaders?: unknown;
  code?: unknown;
  type?: unknown;
  data?: unknown;
  cause?: unknown;
  lastError?: unknown;
  reason?: unknown;
}

function asObject(e: unknown): ErrorLike | null {
  return e !== null && typeof e === 'object' ? (e as ErrorLike) : null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Secrets look like this in provider messages; OpenAI echoes a masked key prefix and suffix. */
const KEYLIKE = /\b(?:sk|pk|rk|sess|key|gsk|xai|AIza)[-_][A-Za-z0-9_*.-]{6,}|\bAIza[0-9A-Za-z_-]{20,}|\bBearer\s+\S+/g;

export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out.replace(KEYLIKE, '[redacted]');
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) if (k.toLowerCase() === name) return str(v);
  return undefined;
}

/** retry-after-ms, retry-after (seconds or HTTP date), or "try again in 3.2s / 644ms" in the text. */
export function parseRetryAfter(headers: unknown, text: string | undefined, now = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const ra = headerValue(headers, 'retry-after');
  if (ra) {
    if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.round(Number(ra) * 1000);
    const date = Date.parse(ra);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (text) {
    const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(text);
    if (m) return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'ms' ? 1 : 1000));
  }
  return undefined;
}

/**
 * The message of a provider's error, when the body has the shape of one; else
 * undefined. Only such a message is ever passed on to the browser: a base URL
 * typed into Settings can point this server at any service the policy allows
 * (on the default policy, anything on this machine), and reflecting whatever
 * that service answers would let a page read it through us (a local admin
 * page's error with a password in it came back verbatim). The shapes:
 *
 * - `{"error": {"message": "…", …}}`: OpenAI and every server copying it
 *   (llama.cpp, vLLM, LM Studio, Ollama's /v1), Anthropic (`type: "error"`
 *   beside it), Gemini (also as a one-element array); a message beside an
 *   error object without one;
 * - `{"object": "error", "message": "…"}`: older vLLM and Mistral;
 * - `{"error": "…"}` and nothing else: Ollama's own API.
 *
 * A proxy that put the upstream's JSON body, as a string, into its message is
 * read through. Framework defaults (FastAPI's `{"detail": …}`), plain text and
 * HTML are not provider errors, whoever sent them.
 */
export function recognisedErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    if (!body.trim()) return undefined;
    try {
      return recognisedErrorMessage(JSON.parse(body) as unknown);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(body)) return body.length === 1 ? recognisedErrorMessage(body[0]) : undefined;
  const o = asObject(body) as Record<string, unknown> | null;
  if (!o) return undefined;
  const err = o.error;
  if (typeof err === 'string') return Object.keys(o).length === 1 && err.trim() ? err : undefined;
  if (err && typeof err === 'object' && !Array.isArray(err)) {
    const inner = str((err as { message?: unknown }).message);
    // Some proxies nest the upstream body as a JSON string inside message.
    if (inner?.trim().startsWith('{')) return recognisedErrorMessage(inner.trim()) ?? inner;
    if (inner) return inner;
    // OpenAI's streamed Responses errors nest a second error object.
    const nested = recognisedErrorMessage({ error: (err as { error?: unknown }).error });
    if (nested) return nested;
    return str(o.message);
  }
  if (o.object === 'error') return str(o.message);
  return undefined;
}

/**
 * An error object a provider sent inside a stream it had started (the SDK
 * hands over the parsed `error` of an error chunk): a plain object with a
 * message or a code beside a type. Its words are the provider's own.
 */
function streamedErrorText(e: ErrorLike): string | undefined {
  if (e instanceof Error || Object.getPrototypeOf(e) !== Object.prototype) return undefined;
  if (typeof e.type !== 'string' && typeof e.code !== 'string') return undefined;
  return str(e.message) ?? str(e.code);
}

/** Errors of ours, or of the AI SDK, whose messages are written here rather than taken from a response. */
const LOCAL_MESSAGE_ERRORS = new Set([
  'ForbiddenDestinationError',
  'AI_NoSuchModelError',
  'AI_LoadAPIKeyError',
  'AI_UnsupportedFunctionalityError',
  'AI_InvalidArgumentError',
  'AI_InvalidPromptError',
  'AI_NoOutputGeneratedError',
]);

/** Errors that mean a response came but was not the API's (not JSON, not the expected fields). */
const NOT_THE_API_ERRORS = /^(AI_JSONParseError|AI_TypeValidationError|AI_InvalidResponseDataError|AI_EmptyResponseBodyError|SyntaxError)$/;

/** How messages name the API a base URL should answer. */
export const API_PHRASES: Record<ListProtocolName, string> = {
  openai: 'the OpenAI API',
  'openai-compatible': 'an OpenAI-compatible API',
  anthropic: 'the Anthropic API',
  google: 'the Gemini API',
  ollama: 'an Ollama server',
};

function isAbort(e: ErrorLike): boolean {
  const name = str(e.name);
  return name === 'AbortError' || name === 'TimeoutError' || name === 'ResponseAborted';
}

/**
 * Failures below HTTP: nothing listening, a reset, no route, a name that does
 * not resolve, and a server that does not speak HTTP at all (llhttp's HPE_
 * parse errors: a database port) or not the TLS expected.
 */
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|EPROTO|UND_ERR_[A-Z_]+|HPE_[A-Z_]+|ERR_SSL_[A-Z_]+|ERR_TLS_[A-Z_]+)$/;

function isNetwork(e: ErrorLike): boolean {
  const code = str(e.code);
  if (code && NETWORK_CODES.test(code)) return true;
  // undici's parser error (a server that is not HTTP) does not always carry its HPE_ code.
  if (str(e.name) === 'HTTPParserError') return true;
  const msg = str(e.message) ?? '';
  return (
    (str(e.name) === 'TypeError' && /fetch failed|terminated|network|socket/i.test(msg)) ||
    /other side closed|socket hang up|ECONNRESET|ECONNREFUSED|premature close|terminated/i.test(msg)
  );
}

/** Walk wrappers (RetryError.lastError, cause chains) down to the error that says what happened. */
function unwrap(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let cur: unknown = error;
  for (let i = 0; i < 6 && cur; i++) {
    const o = asObject(cur);
    if (!o) break;
    chain.push(o);
    cur = o.lastError ?? o.cause;
  }
  return chain;
}

function statusOf(chain: ErrorLike[]): number | undefined {
  for (const e of chain) {
    for (const v of [e.statusCode, e.status]) if (typeof v === 'number' && v >= 100 && v < 600) return v;
  }
  return undefined;
}

function shorten(text: string, max = 600): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export interface ClassifyOptions {
  /** Label for messages, e.g. "OpenAI". */
  provider?: string;
  /** The API the base URL should answer (API_PHRASES); "a model provider's API" when not given. */
  protocol?: ListProtocolName;
  /** Keys used for this request; removed from any text we pass on. */
  secrets?: readonly string[];
  now?: number;
}

/** Everything a failure says, to classify it by; never shown as such (see recognisedErrorMessage). */
function classificationTexts(chain: ErrorLike[]): string[] {
  const texts: string[] = [];
  for (const e of chain) {
    if (typeof e.responseBody === 'string' && e.responseBody.trim()) texts.push(recognisedErrorMessage(e.responseBody) ?? e.responseBody.trim());
    const fromData = recognisedErrorMessage(e.data);
    if (fromData) texts.push(fromData);
    const msg = str(e.message);
    if (msg) texts.push(msg);
    for (const k of [e.code, e.type]) if (typeof k === 'string') texts.push(k);
  }
  return texts;
}

/** The provider's own words that may be shown: a recognised error body, a streamed error object, or an error of ours. */
function showableText(chain: ErrorLike[]): string | undefined {
  for (const e of chain) {
    const t = recognisedErrorMessage(e.responseBody) ?? recognisedErrorMessage(e.data) ?? streamedErrorText(e);
    if (t) return t;
    const name = str(e.name);
    if (name && LOCAL_MESSAGE_ERRORS.has(name) && str(e.message)) return str(e.message);
  }
  return undefined;
}

/** A response came, but not from the API: a body of another shape, or one the SDK could not parse. */
function answeredSomethingElse(chain: ErrorLike[]): boolean {
  return chain.some((e) => (typeof e.responseBody === 'string' && e.responseBody.trim() !== '' && !recognisedErrorMessage(e.responseBody)) || NOT_THE_API_ERRORS.test(str(e.name) ?? ''));
}

/**
 * What the user is told about a failed model call. Classified by everything
 * the failure carries (status, codes, the body's words), but worded only from
 * the status and, when the body is a provider's error (recognisedErrorMessage),
 * its message: a server that answered in any other shape is described, never
 * quoted. Connection failures read alike whatever the socket said (refused,
 * reset, not HTTP at all), so the wording does not tell a closed port from an
 * open one.
 */
export function classifyProviderError(error: unknown, opts: ClassifyOptions = {}): ProviderErrorInfo {
  const who = opts.provider ?? 'The provider';
  const api = opts.protocol ? API_PHRASES[opts.protocol] : "a model provider's API";
  const chain = unwrap(error);
  if (typeof error === 'string') chain.push({ message: error });
  const status = statusOf(chain);

  const allText = classificationTexts(chain).join('\n');
  const shown = showableText(chain);
  const detail = shown ? shorten(scrubSecrets(shown, opts.secrets)) : undefined;
  const foreign = !shown && answeredSomethingElse(chain);
  const notTheApi = (httpStatus: number | undefined) => `The server at this address did not answer like ${api}${httpStatus ? ` (HTTP ${httpStatus})` : ''}. Check the base URL.`;
  const headers = chain.find((e) => e.responseHeaders)?.responseHeaders;
  // A 2xx status on an error means the body broke off after a good start; it is not an error status.
  const base = { status: status !== undefined && status >= 300 ? status : undefined, provider: opts.provider, detail };

  if (chain.some(isAbort)) return { kind: 'aborted', message: 'The request was cancelled.', provider: opts.provider };

  // Gemini answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID, not with 401.
  const keyRejected = status === 401 || status === 403 || (status === 400 && /API_KEY_INVALID|API key not (?:valid|found)/i.test(allText));
  if (keyRejected) {
    return {
      ...base,
      kind: 'auth',
      message: `${who} rejected the API key (HTTP ${status}). Check the key in Settings or in the server's environment.`,
    };
  }

  if (status === 429 || /\brate_limit|rate limit/i.test(allText)) {
    const retryAfterMs = parseRetryAfter(headers, allText, opts.now);
    const wait = retryAfterMs !== undefined ? ` Try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.` : ' Try again shortly.';
    return { ...base, kind: 'rate_limit', retryAfterMs, message: `${who} is rate-limiting requests.${wait}` };
  }

  if (matchOverflow(allText)) {
    return {
      ...base,
      kind: 'context_overflow',
      message: 'The conversation is too long for this model’s context window. Compact it (or pick a model with a larger window) and try again.',
    };
  }

  if (status === 413) {
    // A payload the provider will not even read: in a long conversation that is the history (often its images), so compaction is the remedy.
    return { ...base, kind: 'context_overflow', message: `The request is larger than ${opts.provider ?? 'the provider'} accepts (HTTP 413). Compact the conversation and try again.` };
  }

  if (status !== undefined && status >= 500) {
    const overloaded = status === 529 || /overloaded/i.test(detail ?? '');
    return {
      ...base,
      kind: 'server',
      message: foreign
        ? notTheApi(status)
        : overloaded
          ? `${who} is overloaded right now (HTTP ${status}). Try again in a moment.`
          : `${who} had a server error (HTTP ${status}). Try again in a moment.`,
      retryAfterMs: parseRetryAfter(headers, undefined, opts.now),
    };
  }

  if (status !== undefined && status >= 300 && status < 400) {
    return { ...base, kind: 'invalid_request', message: `${who} answered with a redirect (HTTP ${status}); redirects are not followed. Check the base URL.` };
  }

  if (status !== undefined && status >= 400) {
    if (foreign) return { ...base, kind: 'invalid_request', message: notTheApi(status) };
    if (status === 404 && /model/i.test(detail ?? '')) {
      return { ...base, kind: 'invalid_request', message: `${who} does not know this model (HTTP 404)${detail ? `: ${detail}` : '.'}` };
    }
    return { ...base, kind: 'invalid_request', message: `${who} rejected the request (HTTP ${status})${detail ? `: ${detail}` : '.'}` };
  }

  if (chain.some((e) => str(e.name) === 'ForbiddenDestinationError')) {
    return { ...base, kind: 'invalid_request', message: detail ?? 'The destination is not allowed.' };
  }

  if (chain.some(isNetwork)) {
    const midway = status !== undefined && status < 300;
    return {
      kind: 'network',
      provider: opts.provider,
      message: midway
        ? `The connection to ${opts.provider ?? 'the provider'} broke off before the reply was complete.`
        : `Could not reach ${opts.provider ?? 'the provider'} at this address.`,
    };
  }

  if (foreign) return { ...base, kind: 'unknown', message: notTheApi(status) };
  return { ...base, kind: 'unknown', message: detail ? `The model call failed: ${detail}` : 'The model call failed for an unknown reason.' };
}

/** Read an error info back from text (an error chunk, a JSON error response); tolerant of plain strings. */
export function parseProviderErrorInfo(text: string): ProviderErrorInfo {
  try {
    const j = JSON.parse(text) as unknown;
    const o = asObject(j) as Record<string, unknown> | null;
    const cand = (o && typeof o.error === 'object' ? o.error : o) as Record<string, unknown> | null;
    if (cand && typeof cand.kind === 'string' && (PROVIDER_ERROR_KINDS as readonly string[]).includes(cand.kind) && typeof cand.message === 'string') {
      const { error: _repeat, ...info } = cand;
      return info as unknown as ProviderErrorInfo;
    }
  } catch {
    // Not JSON: an error text from somewhere else (a proxy, an older server).
  }
  return { kind: matchOverflow(text) ? 'context_overflow' : 'unknown', message: text || 'Unknown error' };
}
