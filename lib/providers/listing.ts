import { CATALOG_DEFAULT_MODELS } from './catalog';
import { resolveContextWindow, type ContextWindowSource } from './contextWindow';
import { PROVIDER_LABELS, isConfigured, type ServerConfig } from './env';
import { classifyProviderError, scrubSecrets } from './errors';
import { createGuardedFetch, type FetchLike } from './guardedFetch';
import { MAX_MODEL_ID_LENGTH, PROVIDER_IDS, formatModelId, type ProviderId } from './modelId';

/**
 * GET /api/models: which providers are set up, which models they actually
 * offer, and how large each model's window is. Providers are asked in
 * parallel, each with a short deadline, so one slow or absent provider (the
 * default Ollama probe on a machine without Ollama) costs at most its timeout.
 */

export interface ProviderStatus {
  id: ProviderId;
  label: string;
  configured: boolean;
  reachable: boolean;
  error?: string;
}

export interface ModelInfo {
  id: string;
  provider: ProviderId;
  name: string;
  contextWindow: number;
  contextWindowSource: ContextWindowSource;
  maxOutputTokens?: number;
}

export interface ModelsResponse {
  providers: ProviderStatus[];
  models: ModelInfo[];
  defaultModel?: string;
  summarizerModel?: string;
  /** Configuration problems worth showing in Settings (never contain secrets). */
  warnings?: string[];
}

export interface ListTimeouts {
  hostedMs: number;
  compatMs: number;
  ollamaMs: number;
}

export const DEFAULT_TIMEOUTS: ListTimeouts = { hostedMs: 4000, compatMs: 2500, ollamaMs: 400 };

/**
 * What Ollama serves when the model sets no num_ctx: its server default
 * (OLLAMA_CONTEXT_LENGTH, 4096 unless the operator raised it), whatever the
 * model was trained for. Its OpenAI endpoint truncates silently past that, so
 * we plan with the served size, not the advertised one.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

interface Listed {
  name: string;
  label?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  source?: ContextWindowSource;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);

async function getJson(fetch: FetchLike, url: string, timeoutMs: number, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) {
    const err = new Error(`HTTP ${res.status}`) as Error & { statusCode: number; responseBody: string };
    err.statusCode = res.status;
    err.responseBody = text;
    throw err;
  }
  return JSON.parse(text) as unknown;
}

function dataArray(j: unknown, key = 'data'): Record<string, unknown>[] {
  const arr = (j as Record<string, unknown> | null)?.[key];
  return Array.isArray(arr) ? (arr.filter((x) => x && typeof x === 'object') as Record<string, unknown>[]) : [];
}

const OPENAI_NON_CHAT = /(embedding|tts|whisper|dall-e|davinci|babbage|image|audio|realtime|transcribe|moderation|search|instruct|computer-use|sora)/i;

async function listOpenAI(config: ServerConfig, fetch: FetchLike, t: ListTimeouts): Promise<Listed[]> {
  const j = await getJson(fetch, `${config.openai.baseUrl}/models`, t.hostedMs, { headers: { authorization: `Bearer ${config.openai.apiKey}` } });
  const official = config.openai.baseUrl === 'https://api.openai.com/v1';
  return dataArray(j)
    .map((m) => String(m.id ?? ''))
    .filter((id) => id && (!official || (/^(gpt-|chatgpt-|o\d)/.test(id) && !OPENAI_NON_CHAT.test(id))))
    .map((name) => ({ name }));
}

async function listAnthropic(config: ServerConfig, fetch: FetchLike, t: ListTimeouts): Promise<Listed[]> {
  const j = await getJson(fetch, `${config.anthropic.baseUrl}/models?limit=1000`, t.hostedMs, {
    headers: { 'x-api-key': config.anthropic.apiKey ?? '', 'anthropic-version': '2023-06-01' },
  });
  return dataArray(j).map((m) => ({
    name: String(m.id),
    label: typeof m.display_name === 'string' ? m.display_name : undefined,
    // Reported by newer API versions; the catalog covers older ones.
    contextWindow: num(m.max_input_tokens) ?? num(m.context_window),
    maxOutputTokens: num(m.max_tokens) ?? num(m.max_output_tokens),
  }));
}

async function listGoogle(config: ServerConfig, fetch: FetchLike, t: ListTimeouts): Promise<Listed[]> {
  const j = await getJson(fetch, `${config.google.baseUrl}/models?pageSize=1000`, t.hostedMs, { headers: { 'x-goog-api-key': config.google.apiKey ?? '' } });
  return dataArray(j, 'models')
    .filter((m) => Array.isArray(m.supportedGenerationMethods) && (m.supportedGenerationMethods as unknown[]).includes('generateContent'))
    .map((m) => ({
      name: String(m.name ?? '').replace(/^models\//, ''),
      label: typeof m.displayName === 'string' ? m.displayName : undefined,
      contextWindow: num(m.inputTokenLimit),
      maxOutputTokens: num(m.outputTokenLimit),
    }))
    .filter((m) => m.name.startsWith('gemini'));
}

/** OpenAI-compatible /models: servers that know the window report it under one of several names. */
export function compatWindow(m: Record<string, unknown>): { contextWindow?: number; maxOutputTokens?: number } {
  const top = (m.top_provider ?? {}) as Record<string, unknown>;
  const meta = (m.meta ?? {}) as Record<string, unknown>;
  const candidates = [
    num(m.context_length), // OpenRouter, LM Studio-style, our mock
    num(m.max_model_len), // vLLM
    num(m.context_window), // Groq, Together
    num(m.max_context_length), // LM Studio /api/v0
    num(top.context_length), // OpenRouter: what the serving provider really accepts
    num(meta.n_ctx), // llama.cpp: configured context
  ].filter((x): x is number => x !== undefined);
  // Where several are reported (OpenRouter's model vs. its serving provider), the smaller is what is enforced.
  const contextWindow = candidates.length ? Math.min(...candidates) : num(meta.n_ctx_train);
  const maxOutputTokens = num(top.max_completion_tokens) ?? num(m.max_completion_tokens) ?? num(m.max_output_tokens);
  return { contextWindow, maxOutputTokens };
}

async function listCompat(config: ServerConfig, fetch: FetchLike, t: ListTimeouts): Promise<Listed[]> {
  const compat = config.compat!;
  const headers: Record<string, string> = compat.apiKey ? { authorization: `Bearer ${compat.apiKey}` } : {};
  const j = await getJson(fetch, `${compat.baseUrl}/models`, t.compatMs, { headers });
  return dataArray(j).map((m) => ({ name: String(m.id), ...compatWindow(m) }));
}

function parseNumCtx(parameters: unknown): number | undefined {
  if (typeof parameters !== 'string') return undefined;
  const m = /^\s*num_ctx\s+(\d+)/m.exec(parameters);
  return m ? Number(m[1]) : undefined;
}

async function listOllama(config: ServerConfig, fetch: FetchLike, t: ListTimeouts): Promise<Listed[]> {
  const root = config.ollama!.baseUrl;
  const tags = await getJson(fetch, `${root}/api/tags`, t.ollamaMs);
  const names = dataArray(tags, 'models')
    .map((m) => String(m.name ?? m.model ?? ''))
    .filter(Boolean);
  // /api/show is cheap (metadata only, no model load); ask for at most 24 models, in parallel.
  return Promise.all(
    names.map(async (name, i): Promise<Listed> => {
      if (i >= 24) return { name, contextWindow: OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      try {
        const show = (await getJson(fetch, `${root}/api/show`, t.ollamaMs * 2, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: name }),
        })) as Record<string, unknown>;
        const numCtx = parseNumCtx(show.parameters);
        const info = (show.model_info ?? {}) as Record<string, unknown>;
        const trained = Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1];
        if (numCtx) return { name, contextWindow: numCtx, source: 'provider' };
        const trainedN = num(trained);
        return { name, contextWindow: trainedN ? Math.min(trainedN, OLLAMA_DEFAULT_NUM_CTX) : OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      } catch {
        return { name, contextWindow: OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      }
    }),
  );
}

function secretsOf(config: ServerConfig): string[] {
  return [config.openai.apiKey, config.anthropic.apiKey, config.google.apiKey, config.compat?.apiKey].filter((k): k is string => !!k);
}

export async function listModels(config: ServerConfig, baseFetch: FetchLike, timeouts: ListTimeouts = DEFAULT_TIMEOUTS): Promise<ModelsResponse> {
  const fetch = createGuardedFetch(baseFetch, { trust: 'server' });
  const secrets = secretsOf(config);
  const listers: Record<ProviderId, (c: ServerConfig, f: FetchLike, t: ListTimeouts) => Promise<Listed[]>> = {
    openai: listOpenAI,
    anthropic: listAnthropic,
    google: listGoogle,
    compat: listCompat,
    ollama: listOllama,
  };

  const results = await Promise.all(
    PROVIDER_IDS.map(async (id) => {
      const label = id === 'compat' && config.compat ? config.compat.label : PROVIDER_LABELS[id];
      if (!isConfigured(config, id)) return { status: { id, label, configured: false, reachable: false } satisfies ProviderStatus, listed: [] as Listed[] };
      try {
        const listed = await listers[id](config, fetch, timeouts);
        return { status: { id, label, configured: true, reachable: true } satisfies ProviderStatus, listed };
      } catch (e) {
        const info = classifyProviderError(e, { provider: label, secrets });
        const timedOut = info.kind === 'aborted';
        const error = timedOut ? `${label} did not answer within ${id === 'ollama' ? timeouts.ollamaMs : id === 'compat' ? timeouts.compatMs : timeouts.hostedMs} ms.` : info.message;
        // A hosted provider with a key is still usable when only its list endpoint failed: offer the catalog's models.
        const fallback: Listed[] =
          id === 'openai' || id === 'anthropic' || id === 'google'
            ? CATALOG_DEFAULT_MODELS[id].map((name) => ({ name }))
            : id === 'compat'
              ? (config.compat?.models ?? []).map((name) => ({ name }))
              : [];
        // The default Ollama probe failing just means there is no Ollama here: not a configuration error.
        if (id === 'ollama' && !config.ollama?.explicit) return { status: { id, label, configured: false, reachable: false } satisfies ProviderStatus, listed: fallback };
        return { status: { id, label, configured: true, reachable: false, error: scrubSecrets(error, secrets) } satisfies ProviderStatus, listed: fallback };
      }
    }),
  );

  const models: ModelInfo[] = [];
  const seen = new Set<string>();
  const warnings = [...config.warnings];
  for (const { status, listed } of results) {
    let unusable = 0;
    // The operator's explicit list for a compatible server is added even when the server lists others.
    const extra: Listed[] = status.id === 'compat' && status.reachable ? (config.compat?.models ?? []).map((name) => ({ name })) : [];
    for (const l of [...listed, ...extra].sort((a, b) => a.name.localeCompare(b.name))) {
      const ref = { provider: status.id, model: l.name };
      const id = formatModelId(ref);
      if (id.length > MAX_MODEL_ID_LENGTH) {
        unusable++;
        continue;
      }
      if (seen.has(id)) continue;
      seen.add(id);
      models.push({ id, provider: status.id, name: l.label ?? l.name, ...resolveContextWindow(ref, l, config.contextOverrides) });
    }
    if (unusable) warnings.push(`${status.label} lists ${unusable} model${unusable > 1 ? 's' : ''} with an id longer than ${MAX_MODEL_ID_LENGTH} characters; left out, the chat routes accept no longer ids.`);
  }

  const defaultModel = config.defaultModel ? formatModelId(config.defaultModel) : models[0]?.id;
  const summarizerModel = config.summarizerModel ? formatModelId(config.summarizerModel) : undefined;
  return {
    providers: results.map((r) => r.status),
    models,
    ...(defaultModel ? { defaultModel } : {}),
    ...(summarizerModel ? { summarizerModel } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

/** Fingerprint of what the listing depends on; FNV-1a so keys never sit in a cache key in clear. */
export function configFingerprint(config: ServerConfig): string {
  const s = JSON.stringify([
    config.openai,
    config.anthropic.apiKey,
    config.google.apiKey,
    config.compat,
    config.ollama,
    config.defaultModel,
    config.summarizerModel,
    [...config.contextOverrides],
  ]);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/**
 * A short-lived cache: a page load asks for models more than once, and the
 * providers' list endpoints are slow. Failed listings expire sooner, so a
 * freshly started Ollama shows up within seconds.
 */
export function createModelsCache(opts: { ttlMs?: number; failureTtlMs?: number; now?: () => number } = {}) {
  const ttl = opts.ttlMs ?? 60_000;
  const failureTtl = opts.failureTtlMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { at: number; value: Promise<ModelsResponse>; ttl: number }>();
  return {
    async get(config: ServerConfig, load: () => Promise<ModelsResponse>, refresh = false): Promise<ModelsResponse> {
      const key = configFingerprint(config);
      const hit = entries.get(key);
      if (hit && !refresh && now() - hit.at < hit.ttl) return hit.value;
      const entry = { at: now(), value: load(), ttl };
      entries.set(key, entry);
      try {
        const value = await entry.value;
        const tried = (p: ProviderStatus) => p.configured || (p.id === 'ollama' && !!config.ollama);
        if (value.providers.some((p) => tried(p) && !p.reachable)) entry.ttl = failureTtl;
        return value;
      } catch (e) {
        entries.delete(key);
        throw e;
      }
    },
    clear() {
      entries.clear();
    },
  };
}
