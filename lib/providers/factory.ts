import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { PROVIDER_LABELS, type ServerConfig } from './env';
import { createGuardedFetch, type FetchLike } from './guardedFetch';
import type { ModelRef } from './modelId';
import { checkClientBaseUrl } from './urlPolicy';

/** Per-request credentials typed into the browser. Used once, never stored or logged. */
export interface ClientCredentials {
  apiKey?: string;
  baseUrl?: string;
}

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
  const providerLabel = ref.provider === 'compat' && config.compat ? config.compat.label : PROVIDER_LABELS[ref.provider];
  const clientKey = client?.apiKey?.trim() || undefined;

  let clientBase: string | undefined;
  if (client?.baseUrl?.trim()) {
    const check = checkClientBaseUrl(client.baseUrl, config.clientBaseUrls);
    if (!check.ok) return { ok: false, reason: 'base_url_refused', message: `Base URL refused: ${check.reason}.`, providerLabel };
    clientBase = check.url;
  }

  const fetch = clientBase ? createGuardedFetch(baseFetch, { trust: 'client', policy: config.clientBaseUrls }) : createGuardedFetch(baseFetch, { trust: 'server' });
  const notConfigured = (what: string): ModelResolutionError => ({ ok: false, reason: 'not_configured', message: what, providerLabel });

  switch (ref.provider) {
    case 'openai': {
      const apiKey = clientKey ?? (clientBase ? undefined : config.openai.apiKey);
      if (!apiKey) return notConfigured('No OpenAI API key: set OPENAI_API_KEY on the server or enter a key in Settings.');
      const baseURL = clientBase ?? config.openai.baseUrl;
      const provider = createOpenAI({ apiKey, baseURL, fetch });
      // Proxies and gateways behind a custom base URL speak Chat Completions far more often than the Responses API.
      const custom = baseURL !== 'https://api.openai.com/v1';
      return { ok: true, model: custom ? provider.chat(ref.model) : provider(ref.model), providerLabel, secrets: [apiKey] };
    }
    case 'anthropic': {
      const apiKey = clientKey ?? (clientBase ? undefined : config.anthropic.apiKey);
      if (!apiKey) return notConfigured('No Anthropic API key: set ANTHROPIC_API_KEY on the server or enter a key in Settings.');
      const provider = createAnthropic({ apiKey, baseURL: clientBase ?? config.anthropic.baseUrl, fetch });
      return { ok: true, model: provider(ref.model), providerLabel, secrets: [apiKey] };
    }
    case 'google': {
      const apiKey = clientKey ?? (clientBase ? undefined : config.google.apiKey);
      if (!apiKey) return notConfigured('No Google API key: set GOOGLE_GENERATIVE_AI_API_KEY on the server or enter a key in Settings.');
      const provider = createGoogleGenerativeAI({ apiKey, baseURL: clientBase ?? config.google.baseUrl, fetch });
      return { ok: true, model: provider(ref.model), providerLabel, secrets: [apiKey] };
    }
    case 'compat': {
      const baseURL = clientBase ?? config.compat?.baseUrl;
      if (!baseURL) return notConfigured('No OpenAI-compatible server: set OPENAI_COMPATIBLE_BASE_URL on the server or enter a base URL in Settings.');
      const apiKey = clientKey ?? (clientBase ? undefined : config.compat?.apiKey);
      const provider = createOpenAICompatible({ name: 'compat', baseURL, apiKey, includeUsage: true, fetch });
      return { ok: true, model: provider.chatModel(ref.model), providerLabel, secrets: apiKey ? [apiKey] : [] };
    }
    case 'ollama': {
      const root = clientBase?.replace(/\/v1$/, '') ?? config.ollama?.baseUrl;
      if (!root) return notConfigured('Ollama is disabled on this server (OLLAMA_BASE_URL=off); enter a base URL in Settings to use one.');
      const provider = createOpenAICompatible({ name: 'ollama', baseURL: `${root}/v1`, apiKey: clientKey, includeUsage: true, fetch });
      return { ok: true, model: provider.chatModel(ref.model), providerLabel, secrets: clientKey ? [clientKey] : [] };
    }
  }
}
