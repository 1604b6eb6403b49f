import type { LanguageModel } from 'ai';
import { browserInstance } from './browserInstance';
import { PROVIDERS, defaultBaseUrl, type ProviderDescriptor } from './descriptors';
import { rootUrl, type ServerConfig } from './env';
import { createGuardedFetch, type FetchLike } from './guardedFetch';
import type { ModelRef } from './modelId';
import type { ClientCredentials } from './requests';
import { SDK_ADAPTERS } from './sdkAdapters';
import { checkClientBaseUrl } from './urlPolicy';

export type ResolvedModel = {
  ok: true;
  model: LanguageModel;
  providerLabel: string;
  /** Values to scrub from anything sent back to the browser. */
  secrets: string[];
};

export type ModelResolutionError = {
  ok: false;
  /** 400: the request itself is unacceptable (policy). 200 + error chunk: a configuration gap the user fixes in settings. */
  reason: 'base_url_refused' | 'not_configured';
  message: string;
  providerLabel: string;
};

/** What to tell the user when a provider has no base URL: only servers known by their address can lack one. */
function noBaseUrlMessage(d: ProviderDescriptor): string {
  const spec = d.baseUrl;
  if (spec.from === 'env') return `No ${d.label} server: set ${spec.env} on the server or add one in Settings → Providers.`;
  if (spec.from === 'probe') return `${d.label} is disabled on this server (${spec.env}=off); add one in Settings → Providers to use it.`;
  return `No base URL for ${d.label}: add it in Settings → Providers.`;
}

/** The AI SDK model of one instance: the same for the environment's providers and the browser's. */
function buildModel(ref: ModelRef, instance: { baseUrl: string; apiKey?: string; label: string }, fetch: FetchLike): ResolvedModel {
  const d = PROVIDERS[ref.provider];
  const { baseUrl: base, apiKey } = instance;
  const model = SDK_ADAPTERS[d.sdk]({ provider: ref.provider, baseURL: `${base}${d.sdkPath}`, apiKey, official: base === defaultBaseUrl(d), fetch }, ref.model);
  return { ok: true, model, providerLabel: instance.label, secrets: apiKey ? [apiKey] : [] };
}

/**
 * A model of a provider entered in the browser ("compat@k3x9:…"): only with
 * that provider's own settings, sent along by the browser for this request.
 */
function resolveBrowserModel(ref: ModelRef & { instance: string }, config: ServerConfig, client: ClientCredentials | undefined, baseFetch: FetchLike): ResolvedModel | ModelResolutionError {
  const d = PROVIDERS[ref.provider];
  if (client?.instance !== ref.instance) {
    return {
      ok: false,
      reason: 'not_configured',
      message: `This model belongs to a provider entered in a browser, and its settings did not come with the request: add the provider again in Settings → Providers.`,
      providerLabel: client?.label ?? d.label,
    };
  }
  const b = browserInstance(ref.provider, client, config.clientBaseUrls);
  if (!b.ok) return { ok: false, reason: b.reason, message: b.message, providerLabel: b.label };
  const fetch = b.trust === 'client' ? createGuardedFetch(baseFetch, { trust: 'client', policy: config.clientBaseUrls }) : createGuardedFetch(baseFetch, { trust: 'server' });
  return buildModel(ref, b.instance, fetch);
}

/**
 * Build the AI SDK model for a request.
 *
 * A model of a browser-entered provider (its id names the instance) is built
 * from that provider's settings in the request, never from the server's.
 *
 * For the server's own providers, a browser-supplied key replaces the
 * server's key for this one request (the older form of `client`, without an
 * instance). A browser-supplied base URL must pass ALLOW_CLIENT_BASE_URLS,
 * and when it is used the server's own key is never sent along: otherwise
 * anyone who can reach this server could point it at a host they control and
 * collect the operator's key.
 */
export function resolveLanguageModel(ref: ModelRef, config: ServerConfig, client: ClientCredentials | undefined, baseFetch: FetchLike): ResolvedModel | ModelResolutionError {
  if (ref.instance) return resolveBrowserModel({ ...ref, instance: ref.instance }, config, client, baseFetch);
  // Settings of a browser-entered provider are never used for the server's own.
  const legacy = client?.instance ? undefined : client;
  const d = PROVIDERS[ref.provider];
  const instance = config.providers[ref.provider];
  const providerLabel = instance?.label ?? d.label;
  const clientKey = legacy?.apiKey?.trim() || undefined;

  let clientBase: string | undefined;
  if (legacy?.baseUrl?.trim()) {
    const check = checkClientBaseUrl(legacy.baseUrl, config.clientBaseUrls);
    if (!check.ok) return { ok: false, reason: 'base_url_refused', message: `Base URL refused: ${check.reason}.`, providerLabel };
    clientBase = rootUrl(d, check.url);
  }

  const fetch = clientBase ? createGuardedFetch(baseFetch, { trust: 'client', policy: config.clientBaseUrls }) : createGuardedFetch(baseFetch, { trust: 'server' });
  const notConfigured = (what: string): ModelResolutionError => ({ ok: false, reason: 'not_configured', message: what, providerLabel });

  const base = clientBase ?? instance?.baseUrl;
  if (!base) return notConfigured(noBaseUrlMessage(d));
  const apiKey = clientKey ?? (clientBase ? undefined : instance?.apiKey);
  if (d.auth.kind === 'required' && !apiKey) return notConfigured(`No ${d.auth.name}: set ${d.auth.env} on the server or add ${d.label} with a key in Settings → Providers.`);

  return buildModel(ref, { baseUrl: base, apiKey, label: providerLabel }, fetch);
}
