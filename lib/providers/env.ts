import { parseModelId, type ModelRef, type ProviderId } from './modelId';
import { checkServerBaseUrl, parseBaseUrlPolicy, type BaseUrlPolicy } from './urlPolicy';

/**
 * Server-side provider configuration, read from an environment object the
 * caller passes in (process.env in the routes, a literal in tests). Nothing in
 * lib/ reads process.env itself, so tests can run several configurations side
 * by side and a key can never leak in from the machine running them.
 */
export type EnvLike = Record<string, string | undefined>;

export interface ProviderSettings {
  /** Absent when the provider is not configured. */
  apiKey?: string;
  baseUrl: string;
}

export interface CompatSettings {
  baseUrl: string;
  apiKey?: string;
  label: string;
  /** Models to offer when the server's /models endpoint cannot be listed. */
  models: string[];
}

export interface ServerConfig {
  openai: ProviderSettings;
  anthropic: ProviderSettings;
  google: ProviderSettings;
  compat: CompatSettings | null;
  /** Ollama's base URL (without /v1), or null when disabled. `explicit` is false for the default probe. */
  ollama: { baseUrl: string; explicit: boolean } | null;
  defaultModel?: ModelRef;
  summarizerModel?: ModelRef;
  /** "provider:model" → tokens. */
  contextOverrides: Map<string, number>;
  clientBaseUrls: BaseUrlPolicy;
  /** Problems found while reading the environment; shown by /api/models, never containing values of secrets. */
  warnings: string[];
}

export const DEFAULT_BASE_URLS: Record<'openai' | 'anthropic' | 'google', string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';

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
    if (!ref || !Number.isInteger(n) || n <= 0) {
      warnings.push(`MODEL_CONTEXT_WINDOWS: ignored "${t}" (expected provider:model=tokens)`);
      continue;
    }
    out.set(`${ref.provider}:${ref.model}`, n);
  }
  return out;
}

function baseUrlFrom(env: EnvLike, name: string, fallback: string, warnings: string[]): string {
  const raw = value(env, name);
  if (!raw) return fallback;
  const check = checkServerBaseUrl(raw);
  if (check.ok) return check.url;
  warnings.push(`${name}: ignored (${check.reason})`);
  return fallback;
}

function modelFrom(env: EnvLike, name: string, warnings: string[]): ModelRef | undefined {
  const raw = value(env, name);
  if (!raw) return undefined;
  const ref = parseModelId(raw);
  if (!ref) warnings.push(`${name}: "${raw}" is not a model id of the form provider:model`);
  return ref ?? undefined;
}

export function readServerConfig(env: EnvLike): ServerConfig {
  const warnings: string[] = [];

  let compat: CompatSettings | null = null;
  const compatRaw = value(env, 'OPENAI_COMPATIBLE_BASE_URL');
  if (compatRaw) {
    const check = checkServerBaseUrl(compatRaw);
    if (check.ok) {
      compat = {
        baseUrl: check.url,
        apiKey: value(env, 'OPENAI_COMPATIBLE_API_KEY'),
        label: value(env, 'OPENAI_COMPATIBLE_NAME') ?? 'OpenAI-compatible',
        models: (value(env, 'OPENAI_COMPATIBLE_MODELS') ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
    } else warnings.push(`OPENAI_COMPATIBLE_BASE_URL: ignored (${check.reason})`);
  }

  let ollama: { baseUrl: string; explicit: boolean } | null = null;
  const ollamaRaw = value(env, 'OLLAMA_BASE_URL');
  if (ollamaRaw?.toLowerCase() !== 'off') {
    const url = baseUrlFrom(env, 'OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, warnings);
    // People paste the OpenAI-compatible endpoint; we need the native root for /api/tags.
    ollama = { baseUrl: url.replace(/\/v1$/, ''), explicit: !!ollamaRaw };
  }

  return {
    openai: { apiKey: value(env, 'OPENAI_API_KEY'), baseUrl: baseUrlFrom(env, 'OPENAI_BASE_URL', DEFAULT_BASE_URLS.openai, warnings) },
    anthropic: { apiKey: value(env, 'ANTHROPIC_API_KEY'), baseUrl: DEFAULT_BASE_URLS.anthropic },
    google: { apiKey: value(env, 'GOOGLE_GENERATIVE_AI_API_KEY'), baseUrl: DEFAULT_BASE_URLS.google },
    compat,
    ollama,
    defaultModel: modelFrom(env, 'DEFAULT_MODEL', warnings),
    summarizerModel: modelFrom(env, 'SUMMARIZER_MODEL', warnings),
    contextOverrides: parseContextOverrides(value(env, 'MODEL_CONTEXT_WINDOWS'), warnings),
    clientBaseUrls: parseBaseUrlPolicy(value(env, 'ALLOW_CLIENT_BASE_URLS')),
    warnings,
  };
}

export function isConfigured(config: ServerConfig, provider: ProviderId): boolean {
  switch (provider) {
    case 'openai':
    case 'anthropic':
    case 'google':
      return !!config[provider].apiKey;
    case 'compat':
      return !!config.compat;
    case 'ollama':
      return !!config.ollama;
  }
}

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google Gemini',
  compat: 'OpenAI-compatible',
  ollama: 'Ollama',
};
