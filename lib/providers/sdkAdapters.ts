import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ProviderId, SdkAdapterName } from './descriptors';
import type { FetchLike } from './guardedFetch';

interface AdapterTarget {
  provider: ProviderId;
  /** Where the SDK sends requests (the instance's URL plus the descriptor's sdkPath). */
  baseURL: string;
  apiKey: string | undefined;
  /** True when baseURL is the vendor's own API rather than a gateway in front of it. */
  official: boolean;
  fetch: FetchLike;
}

/** Builds a language model for a model name: one per SDK package, whichever providers use it. */
type SdkAdapter = (target: AdapterTarget, model: string) => LanguageModel;

export const SDK_ADAPTERS: Record<SdkAdapterName, SdkAdapter> = {
  openai: ({ baseURL, apiKey, official, fetch }, model) => {
    const provider = createOpenAI({ apiKey, baseURL, fetch });
    // Proxies and gateways behind a custom base URL speak Chat Completions far more often than the Responses API.
    return official ? provider(model) : provider.chat(model);
  },
  anthropic: ({ baseURL, apiKey, fetch }, model) => createAnthropic({ apiKey, baseURL, fetch })(model),
  google: ({ baseURL, apiKey, fetch }, model) => createGoogleGenerativeAI({ apiKey, baseURL, fetch })(model),
  'openai-compatible': ({ provider, baseURL, apiKey, fetch }, model) =>
    createOpenAICompatible({ name: provider, baseURL, apiKey, includeUsage: true, fetch }).chatModel(model),
};
