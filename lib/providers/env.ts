import { PROVIDER_IDS, PROVIDERS, defaultBaseUrl, type ProviderDescriptor, type ProviderId } from './descriptors';
import { parseModelId, type ModelRef } from './modelId';
import { checkServerBaseUrl, parseBaseUrlPolicy, type BaseUrlPolicy } from './urlPolicy';

/**
 * Server-side provider configuration, read from an environment object the
 * caller passes in (process.env in the routes, a literal in tests). Nothing in
 * lib/ reads process.env itself, so tests can run several configurations side
 * by side and a key can never leak in from the machine running them.
 */
export type EnvLike = Record<string, string | undefined>;

/**
 * One provider set up to be used: by the environment today, by the browser's
 * Settings later. Listing (listing.ts) and model resolution (factory.ts) take
 * an instance and its descriptor, never a provider's own config field, so an
 * instance from either source goes through the same code.
 */
export interface ProviderInstance {
  /** The descriptor this is an instance of. */
  provider: ProviderId;
  /** Its name in the picker and in messages. */
  label: string;
  /** Normalised; for providers with an sdkPath, the server's root. */
  baseUrl: string;
  apiKey?: string;
  /** The operator's models: offered when the server cannot list, and added to what it lists. */
  models: string[];
  /** False for a default probe nobody asked for (Ollama on its default port): not answering is not an error. */
  explicit: boolean;
}

export interface ServerConfig {
  /**
   * Every provider's instance from the environment; null when it has none (no
   * base URL, or turned off). An instance without a required key is present
   * but not configured (isConfigured): a key typed into the browser can still
   * use its base URL.
   */
  providers: { readonly [K in ProviderId]: ProviderInstance | null };
  defaultModel?: ModelRef;
  summarizerModel?: ModelRef;
  /** "provider:model" → tokens. */
  contextOverrides: Map<string, number>;
  clientBaseUrls: BaseUrlPolicy;
  /** Problems found while reading the environment; shown by /api/models, never containing values of secrets. */
  warnings: string[];
}

function value(env: EnvLike, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** "provider:model=tokens,…". Model ids may contain '=' only in the model part's value, so split on the last '='. */
export function parseContextOverrides(raw: string | undefined, warnings: string[] = []): Map<string, number> {
  const out = new Map<string, number>();
  if (!raw) return out;
  for (const item of raw.split(',')) {
    const t = item.trim();
    if (!t) continue;
    const eq = t.lastIndexOf('=');
    const id = eq > 0 ? t.slice(0, eq).trim() : '';
    const n = eq > 0 ? Number(t.slice(eq + 1).trim().replace(/_/g, '')) : NaN;
    const ref = id ? parseModelId(id) : null;
    // A browser-entered instance is not the operator's to size: its windows are set in that browser.
    if (!ref || ref.instance || !Number.isInteger(n) || n <= 0) {
      warnings.push(`MODEL_CONTEXT_WINDOWS: ignored "${t}" (expected provider:model=tokens)`);
      continue;
    }
    out.set(`${ref.provider}:${ref.model}`, n);
  }
  return out;
}

/** Cuts a URL back to the root the descriptor is configured by (Ollama: people paste its /v1 endpoint). */
export function rootUrl(d: ProviderDescriptor, url: string): string {
  return d.sdkPath && url.endsWith(d.sdkPath) ? url.slice(0, -d.sdkPath.length) : url;
}

function readInstance(id: ProviderId, env: EnvLike, warnings: string[]): ProviderInstance | null {
  const d = PROVIDERS[id];
  const spec = d.baseUrl;
  const raw = spec.from === 'default' ? undefined : value(env, spec.env);
  if (spec.from === 'probe' && raw?.toLowerCase() === 'off') return null;
  let baseUrl = defaultBaseUrl(d);
  if (raw && spec.from !== 'default') {
    const check = checkServerBaseUrl(raw);
    if (check.ok) baseUrl = check.url;
    else warnings.push(`${spec.env}: ignored (${check.reason})`);
  }
  if (!baseUrl) return null;
  const models = d.modelsEnv ? (value(env, d.modelsEnv) ?? '').split(',').map((s) => s.trim()).filter(Boolean) : [];
  return {
    provider: id,
    label: (d.labelEnv ? value(env, d.labelEnv) : undefined) ?? d.label,
    baseUrl: rootUrl(d, baseUrl),
    apiKey: d.auth.kind === 'none' ? undefined : value(env, d.auth.env),
    models,
    explicit: spec.from !== 'probe' || !!raw,
  };
}

function modelFrom(env: EnvLike, name: string, warnings: string[]): ModelRef | undefined {
  const raw = value(env, name);
  if (!raw) return undefined;
  const ref = parseModelId(raw);
  if (!ref) warnings.push(`${name}: "${raw}" is not a model id of the form provider:model`);
  else if (ref.instance) warnings.push(`${name}: "${raw}" names a provider entered in a browser, which this server does not know`);
  return ref && !ref.instance ? ref : undefined;
}

export function readServerConfig(env: EnvLike): ServerConfig {
  const warnings: string[] = [];
  const providers = Object.fromEntries(PROVIDER_IDS.map((id) => [id, readInstance(id, env, warnings)])) as ServerConfig['providers'];
  return {
    providers,
    defaultModel: modelFrom(env, 'DEFAULT_MODEL', warnings),
    summarizerModel: modelFrom(env, 'SUMMARIZER_MODEL', warnings),
    contextOverrides: parseContextOverrides(value(env, 'MODEL_CONTEXT_WINDOWS'), warnings),
    clientBaseUrls: parseBaseUrlPolicy(value(env, 'ALLOW_CLIENT_BASE_URLS')),
    warnings,
  };
}

/** Usable without anything typed into the browser: it has a base URL, and a key if it needs one. */
export function isInstanceConfigured(instance: ProviderInstance | null): instance is ProviderInstance {
  return !!instance && (PROVIDERS[instance.provider].auth.kind !== 'required' || !!instance.apiKey);
}

export function isConfigured(config: ServerConfig, provider: ProviderId): boolean {
  return isInstanceConfigured(config.providers[provider]);
}
