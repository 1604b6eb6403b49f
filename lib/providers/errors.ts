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

/** The message a provider put in its JSON error body, or the raw text. */
export function providerMessageFromBody(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.trim()) return undefined;
  try {
    const j = JSON.parse(body) as unknown;
    return messageFromJson(j) ?? body.trim();
  } catch {
    return body.trim();
  }
}

function messageFromJson(j: unknown): string | undefined {
  if (Array.isArray(j)) return messageFromJson(j[0]);
  const o = asObject(j);
  if (!o) return undefined;
  const err = (o as { error?: unknown }).error;
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object') {
    const inner = str((err as { message?: unknown }).message);
    // Some proxies nest the upstream body as a JSON string inside message.
    if (inner?.trim().startsWith('{')) return providerMessageFromBody(inner) ?? inner;
    if (inner) return inner;
  }
  return str(o.message) ?? str((o as { detail?: unknown }).detail);
}

function isAbort(e: ErrorLike): boolean {
  const name = str(e.name);
  return name === 'AbortError' || name === 'TimeoutError' || name === 'ResponseAborted';
}

const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|UND_ERR_[A-Z_]+)$/;

function isNetwork(e: ErrorLike): boolean {
  const code = str(e.code);
  if (code && NETWORK_CODES.test(code)) return true;
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
  /** Keys used for this request; removed from any text we pass on. */
  secrets?: readonly string[];
  now?: number;
}

export function classifyProviderError(error: unknown, opts: ClassifyOptions = {}): ProviderErrorInfo {
  const who = opts.provider ?? 'The provider';
  const chain = unwrap(error);
  if (typeof error === 'string') chain.push({ message: error });
  const status = statusOf(chain);

  // The provider's own words: the JSON body first (most precise), then messages along the chain.
  const texts: string[] = [];
  for (const e of chain) {
    const fromBody = providerMessageFromBody(e.responseBody);
    if (fromBody) texts.push(fromBody);
    const fromData = messageFromJson(e.data);
    if (fromData) texts.push(fromData);
    const msg = str(e.message);
    if (msg) texts.push(msg);
    for (const k of [e.code, e.type]) if (typeof k === 'string') texts.push(k);
  }
  const providerText = texts[0] ?? '';
  const allText = texts.join('\n');
  const detail = providerText ? shorten(scrubSecrets(providerText, opts.secrets)) : undefined;
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
    const overloaded = status === 529 || /overloaded/i.test(allText);
    return {
      ...base,
      kind: 'server',
      message: overloaded ? `${who} is overloaded right now (HTTP ${status}). Try again in a moment.` : `${who} had a server error (HTTP ${status}). Try again in a moment.`,
      retryAfterMs: parseRetryAfter(headers, undefined, opts.now),
    };
  }

  if (status !== undefined && status >= 300 && status < 400) {
    return { ...base, kind: 'invalid_request', message: `${who} answered with a redirect (HTTP ${status}); redirects are not followed. Check the base URL.` };
  }

  if (status !== undefined && status >= 400) {
    if (status === 404 && /model/i.test(allText)) {
      return { ...base, kind: 'invalid_request', message: `${who} does not know this model (HTTP 404)${detail ? `: ${detail}` : '.'}` };
    }
    return { ...base, kind: 'invalid_request', message: `${who} rejected the request (HTTP ${status})${detail ? `: ${detail}` : '.'}` };
  }

  if (chain.some((e) => str(e.name) === 'ForbiddenDestinationError')) {
    return { ...base, kind: 'invalid_request', message: detail ?? 'The destination is not allowed.' };
  }

  if (chain.some(isNetwork)) {
    // The innermost message says what the socket did ("other side closed", "ECONNREFUSED"); wrappers only say that something failed.
    const inner = [...chain].reverse().map((e) => str(e.message)).find(Boolean);
    const why = inner ? shorten(scrubSecrets(inner, opts.secrets), 200) : undefined;
    const midway = status !== undefined && status < 300;
    return {
      kind: 'network',
      provider: opts.provider,
      detail: why,
      message: midway
        ? `The connection to ${opts.provider ?? 'the provider'} broke off before the reply was complete.${why ? ` (${why})` : ''}`
        : `Could not reach ${opts.provider ?? 'the provider'}.${why ? ` (${why})` : ''}`,
    };
  }

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
