import type { LanguageModel } from 'ai';
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
  if (spec.from === 'env') return `No ${d.label} server: set ${spec.env} on the server or enter a base URL in Settings.`;
  if (spec.from === 'probe') return `${d.label} is disabled on this server (${spec.env}=off); enter a base URL in Settings to use one.`;
  return `No base URL for ${d.label}: enter one in Settings.`;
}

/**
 * Build the AI SDK model for a request.
 *
 * Credentials: a browser-supplied key replaces the server's key for this one
 * request. A browser-supplied base URL must pass ALLOW_CLIENT_BASE_URLS, and
 * when it is used the server's own key is never sent along: otherwise anyone
 * who can reach this server could point it at a host they control and collect
 * the operator's key.
 */
export function resolveLanguageModel(ref: ModelRef, config: ServerConfig, client: ClientCredentials | undefined, baseFetch: FetchLike): ResolvedModel | ModelResolutionError {
  const d = PROVIDERS[ref.provider];
  const instance = config.providers[ref.provider];
  const providerLabel = instance?.label ?? d.label;
  const clientKey = client?.apiKey?.trim() || undefined;

  let clientBase: string | undefined;
  if (client?.baseUrl?.trim()) {
    const check = checkClientBaseUrl(client.baseUrl, config.clientBaseUrls);
    if (!check.ok) return { ok: false, reason: 'base_url_refused', message: `Base URL refused: ${check.reason}.`, providerLabel };
    clientBase = rootUrl(d, check.url);
  }

  const fetch = clientBase ? createGuardedFetch(baseFetch, { trust: 'client', policy: config.clientBaseUrls }) : createGuardedFetch(baseFetch, { trust: 'server' });
  const notConfigured = (what: string): ModelResolutionError => ({ ok: false, reason: 'not_configured', message: what, providerLabel });

  const base = clientBase ?? instance?.baseUrl;
  if (!base) return notConfigured(noBaseUrlMessage(d));
  const apiKey = clientKey ?? (clientBase ? undefined : instance?.apiKey);
  if (d.auth.kind === 'required' && !apiKey) return notConfigured(`No ${d.auth.name}: set ${d.auth.env} on the server or enter a key in Settings.`);

  const model = SDK_ADAPTERS[d.sdk]({ provider: ref.provider, baseURL: `${base}${d.sdkPath}`, apiKey, official: base === defaultBaseUrl(d), fetch }, ref.model);
  return { ok: true, model, providerLabel, secrets: apiKey ? [apiKey] : [] };
}
