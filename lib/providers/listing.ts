import { browserInstance } from './browserInstance';
import { resolveContextWindow, type ContextWindowSource } from './contextWindow';
import { PROVIDER_IDS, PROVIDERS, defaultBaseUrl, type ListTimeoutClass, type ProviderId } from './descriptors';
import { isConfigured, isInstanceConfigured, type ProviderInstance, type ServerConfig } from './env';
import { classifyProviderError, scrubSecrets } from './errors';
import { createGuardedFetch, type FetchLike } from './guardedFetch';
import { LIST_PROTOCOLS, type Listed } from './listProtocols';
import { MAX_MODEL_ID_LENGTH, formatModelId } from './modelId';
import type { ListProviderRequest } from './requests';

/**
 * GET /api/models: which providers are set up, which models they actually
 * offer, and how large each model's window is. Providers are asked in
 * parallel, each with a short deadline, so one slow or absent provider (the
 * default Ollama probe on a machine without Ollama) costs at most its timeout.
 * POST /api/models asks the same of one provider entered in the browser.
 */

/**
 * What the user is told about a provider:
 * - connected: it listed its models;
 * - not_configured: nothing to try (no key, no base URL, or a default probe nobody answered);
 * - unreachable: set up, but asking failed (no answer, an error, a timeout);
 * - key_rejected: it answered that the key is wrong;
 * - refused: this server may not call the base URL the browser gave (ALLOW_CLIENT_BASE_URLS).
 */
export type ProviderState = 'connected' | 'not_configured' | 'unreachable' | 'key_rejected' | 'refused';

export interface ProviderStatus {
  id: ProviderId;
  /** The browser-entered provider this is; absent for the server's own. */
  instance?: string;
  label: string;
  configured: boolean;
  reachable: boolean;
  state: ProviderState;
  error?: string;
}

export interface ModelInfo {
  id: string;
  provider: ProviderId;
  /** The browser-entered provider it belongs to (also the "@…" in its id). */
  instance?: string;
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

/** POST /api/models: one browser-entered provider's status and models. */
export interface ProviderListingResponse {
  provider: ProviderStatus;
  models: ModelInfo[];
  warnings?: string[];
}

/** Deadlines per class of provider (descriptors.ts: listTimeout). */
export type ListTimeouts = Record<`${ListTimeoutClass}Ms`, number>;

export const DEFAULT_TIMEOUTS: ListTimeouts = { hostedMs: 4000, compatMs: 2500, ollamaMs: 400 };

/** Every key of the environment's instances: scrubbed from anything the listing says. */
function secretsOf(config: ServerConfig): string[] {
  return PROVIDER_IDS.map((id) => config.providers[id]?.apiKey).filter((k): k is string => !!k);
}

interface ProviderListing {
  status: ProviderStatus;
  listed: Listed[];
}

/**
 * One instance's status and models. The instance's own models (the
 * operator's list) are offered whether or not the server lists them; when a
 * configured provider cannot list, its descriptor's defaults are offered too,
 * so a hosted provider with a key stays usable when only its list endpoint
 * fails. Not when it rejected the key: then none of them would answer.
 */
async function listInstance(
  who: { id: ProviderId; instance?: string },
  instance: ProviderInstance | null,
  fetch: FetchLike,
  timeouts: ListTimeouts,
  secrets: string[],
): Promise<ProviderListing> {
  const d = PROVIDERS[who.id];
  const base = { id: who.id, ...(who.instance ? { instance: who.instance } : {}), label: instance?.label ?? d.label };
  if (!isInstanceConfigured(instance)) return { status: { ...base, configured: false, reachable: false, state: 'not_configured' }, listed: [] };
  const own: Listed[] = instance.models.map((name) => ({ name }));
  const timeoutMs = timeouts[`${d.listTimeout}Ms`];
  try {
    const listed = await LIST_PROTOCOLS[d.listing]({ baseUrl: instance.baseUrl, apiKey: instance.apiKey, official: instance.baseUrl === defaultBaseUrl(d) }, fetch, timeoutMs);
    return { status: { ...base, configured: true, reachable: true, state: 'connected' }, listed: [...listed, ...own] };
  } catch (e) {
    const info = classifyProviderError(e, { provider: base.label, protocol: d.listing, secrets });
    const error = info.kind === 'aborted' ? `${base.label} did not answer within ${timeoutMs} ms.` : info.message;
    const rejected = info.kind === 'auth';
    const fallback: Listed[] = [...(rejected ? [] : d.defaultModels.map((name) => ({ name }))), ...own];
    // A default probe failing (no Ollama on this machine) is not a configuration error.
    if (!instance.explicit) return { status: { ...base, configured: false, reachable: false, state: 'not_configured' }, listed: fallback };
    return { status: { ...base, configured: true, reachable: false, state: rejected ? 'key_rejected' : 'unreachable', error: scrubSecrets(error, secrets) }, listed: fallback };
  }
}

/** The listed models as the picker shows them: sorted, deduplicated, sized, ids the routes accept. */
function modelInfos(status: ProviderStatus, listed: Listed[], overrides: ReadonlyMap<string, number>, warnings: string[], seen = new Set<string>()): ModelInfo[] {
  const models: ModelInfo[] = [];
  let unusable = 0;
  for (const l of [...listed].sort((a, b) => a.name.localeCompare(b.name))) {
    const ref = { provider: status.id, model: l.name, ...(status.instance ? { instance: status.instance } : {}) };
    const id = formatModelId(ref);
    if (id.length > MAX_MODEL_ID_LENGTH) {
      unusable++;
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    models.push({ id, provider: status.id, ...(status.instance ? { instance: status.instance } : {}), name: l.label ?? l.name, ...resolveContextWindow(ref, l, overrides) });
  }
  if (unusable) warnings.push(`${status.label} lists ${unusable} model${unusable > 1 ? 's' : ''} with an id longer than ${MAX_MODEL_ID_LENGTH} characters; left out, the chat routes accept no longer ids.`);
  return models;
}

export async function listModels(config: ServerConfig, baseFetch: FetchLike, timeouts: ListTimeouts = DEFAULT_TIMEOUTS): Promise<ModelsResponse> {
  const fetch = createGuardedFetch(baseFetch, { trust: 'server' });
  const secrets = secretsOf(config);
  const results = await Promise.all(PROVIDER_IDS.map((id) => listInstance({ id }, config.providers[id], fetch, timeouts, secrets)));

  const seen = new Set<string>();
  const warnings = [...config.warnings];
  const models = results.flatMap(({ status, listed }) => modelInfos(status, listed, config.contextOverrides, warnings, seen));

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

/**
 * One provider entered in the browser, asked through this server: the same
 * listing as the environment's providers, with the browser's key (never the
 * server's) and its base URL only where ALLOW_CLIENT_BASE_URLS lets the
 * server go. Every request the listing makes is checked again (guardedFetch).
 */
export async function listBrowserProvider(req: ListProviderRequest, config: ServerConfig, baseFetch: FetchLike, timeouts: ListTimeouts = DEFAULT_TIMEOUTS): Promise<ProviderListingResponse> {
  const who = { id: req.provider, instance: req.instance };
  const b = browserInstance(req.provider, req, config.clientBaseUrls);
  if (!b.ok) {
    const state: ProviderState = b.reason === 'base_url_refused' ? 'refused' : 'not_configured';
    return { provider: { ...who, label: b.label, configured: b.reason === 'base_url_refused', reachable: false, state, error: b.message }, models: [] };
  }
  const fetch = b.trust === 'client' ? createGuardedFetch(baseFetch, { trust: 'client', policy: config.clientBaseUrls }) : createGuardedFetch(baseFetch, { trust: 'server' });
  const secrets = b.instance.apiKey ? [b.instance.apiKey] : [];
  const { status, listed } = await listInstance(who, b.instance, fetch, timeouts, secrets);
  const warnings: string[] = [];
  const models = modelInfos(status, listed, new Map(), warnings);
  return { provider: status, models, ...(warnings.length ? { warnings } : {}) };
}

/** Fingerprint of what the listing depends on; FNV-1a so keys never sit in a cache key in clear. */
export function configFingerprint(config: ServerConfig): string {
  const s = JSON.stringify([
    PROVIDER_IDS.map((id) => config.providers[id]),
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
        const tried = (p: ProviderStatus) => isConfigured(config, p.id);
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
