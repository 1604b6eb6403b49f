import { PROVIDERS, type ProviderId } from './descriptors';
import { rootUrl, type ProviderInstance } from './env';
import { checkClientBaseUrl, type BaseUrlPolicy } from './urlPolicy';

/**
 * A provider entered in the browser, as the server uses it for one request: a
 * ProviderInstance like the environment's, so listing and model resolution
 * need no second path. What the browser sends is not trusted: its base URL
 * must pass ALLOW_CLIENT_BASE_URLS, and the server's own key never goes with
 * it (only the key the browser sent). Without a base URL a provider's own API
 * is meant (api.openai.com); kinds that have none (an OpenAI-compatible
 * server, Ollama) must name one.
 */

export type BrowserInstance =
  | {
      ok: true;
      instance: ProviderInstance;
      /** 'client': the browser named the host, so every request is checked against the policy; 'server': the vendor's own API. */
      trust: 'client' | 'server';
    }
  | { ok: false; reason: 'base_url_refused' | 'not_configured'; message: string; label: string };

export interface BrowserCredentialsIn {
  label?: string;
  apiKey?: string;
  baseUrl?: string;
}

export function browserInstance(provider: ProviderId, creds: BrowserCredentialsIn, policy: BaseUrlPolicy): BrowserInstance {
  const d = PROVIDERS[provider];
  const label = creds.label?.trim() || d.label;
  let baseUrl: string | undefined;
  let trust: 'client' | 'server' = 'server';
  if (creds.baseUrl?.trim()) {
    const check = checkClientBaseUrl(creds.baseUrl, policy);
    if (!check.ok) return { ok: false, reason: 'base_url_refused', message: `This server may not call that base URL: ${check.reason}.`, label };
    baseUrl = rootUrl(d, check.url);
    trust = 'client';
  } else if (d.baseUrl.from === 'default' || d.baseUrl.from === 'env-or-default') {
    baseUrl = d.baseUrl.url;
  }
  if (!baseUrl) return { ok: false, reason: 'not_configured', message: `${label} has no base URL: enter its address in Settings → Providers.`, label };
  const apiKey = d.auth.kind === 'none' ? undefined : creds.apiKey?.trim() || undefined;
  if (d.auth.kind === 'required' && !apiKey) return { ok: false, reason: 'not_configured', message: `No ${d.auth.name} for ${label}: enter one in Settings → Providers.`, label };
  return { ok: true, instance: { provider, label, baseUrl, ...(apiKey ? { apiKey } : {}), models: [], explicit: true }, trust };
}
