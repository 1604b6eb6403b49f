import { resolveContextWindow, type ContextWindowSource } from './contextWindow';
import { PROVIDER_IDS, PROVIDERS, defaultBaseUrl, type ListTimeoutClass, type ProviderId } from './descriptors';
import { isConfigured, isInstanceConfigured, type ProviderInstance, type ServerConfig } from './env';
import { classifyProviderError, scrubSecrets } from './errors';
import { createGuardedFetch, type FetchLike } from './guardedFetch';
import { LIST_PROTOCOLS, type Listed } from './listProtocols';
import { MAX_MODEL_ID_LENGTH, formatModelId } from './modelId';

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
 * One provider's status and models. The instance's own models (the
 * operator's list) are offered whether or not the server lists them; when a
 * configured provider cannot list, its descriptor's defaults are offered too,
 * so a hosted provider with a key stays usable when only its list endpoint fails.
 */
async function listProvider(id: ProviderId, instance: ProviderInstance | null, fetch: FetchLike, timeouts: ListTimeouts, secrets: string[]): Promise<ProviderListing> {
  const d = PROVIDERS[id];
  const label = instance?.label ?? d.label;
  if (!isInstanceConfigured(instance)) return { status: { id, label, configured: false, reachable: false }, listed: [] };
  const own: Listed[] = instance.models.map((name) => ({ name }));
  const timeoutMs = timeouts[`${d.listTimeout}Ms`];
  try {
    const listed = await LIST_PROTOCOLS[d.listing]({ baseUrl: instance.baseUrl, apiKey: instance.apiKey, official: instance.baseUrl === defaultBaseUrl(d) }, fetch, timeoutMs);
    return { status: { id, label, configured: true, reachable: true }, listed: [...listed, ...own] };
  } catch (e) {
    const info = classifyProviderError(e, { provider: label, secrets });
    const error = info.kind === 'aborted' ? `${label} did not answer within ${timeoutMs} ms.` : info.message;
    const fallback: Listed[] = [...d.defaultModels.map((name) => ({ name })), ...own];
    // A default probe failing (no Ollama on this machine) is not a configuration error.
    if (!instance.explicit) return { status: { id, label, configured: false, reachable: false }, listed: fallback };
    return { status: { id, label, configured: true, reachable: false, error: scrubSecrets(error, secrets) }, listed: fallback };
  }
}

export async function listModels(config: ServerConfig, baseFetch: FetchLike, timeouts: ListTimeouts = DEFAULT_TIMEOUTS): Promise<ModelsResponse> {
  const fetch = createGuardedFetch(baseFetch, { trust: 'server' });
  const secrets = secretsOf(config);
  const results = await Promise.all(PROVIDER_IDS.map((id) => listProvider(id, config.providers[id], fetch, timeouts, secrets)));

  const models: ModelInfo[] = [];
  const seen = new Set<string>();
  const warnings = [...config.warnings];
  for (const { status, listed } of results) {
    let unusable = 0;
    for (const l of [...listed].sort((a, b) => a.name.localeCompare(b.name))) {
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
