import { PROVIDERS, type CatalogFamily, type ProviderId } from './descriptors';
import { inferProvider } from './modelId';

/**
 * Context windows and output limits of well-known models, from the providers'
 * published model pages. Used when the provider's list endpoint does not report
 * them (OpenAI and Anthropic do not; Gemini and most OpenAI-compatible servers do).
 *
 * Entries match by prefix and the longest prefix wins, so dated snapshots
 * ("gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022") resolve to their family
 * while "gpt-4o-mini" does not fall back to "gpt-4o" or "gpt-4".
 */
export interface CatalogEntry {
  prefix: string;
  contextWindow: number;
  maxOutputTokens?: number;
}

const CATALOG: Record<CatalogFamily, CatalogEntry[]> = {
  openai: [
    { prefix: 'gpt-3.5-turbo', contextWindow: 16_385, maxOutputTokens: 4_096 },
    { prefix: 'gpt-4', contextWindow: 8_192, maxOutputTokens: 8_192 },
    { prefix: 'gpt-4-32k', contextWindow: 32_768, maxOutputTokens: 8_192 },
    { prefix: 'gpt-4-turbo', contextWindow: 128_000, maxOutputTokens: 4_096 },
    { prefix: 'gpt-4-1106', contextWindow: 128_000, maxOutputTokens: 4_096 },
    { prefix: 'gpt-4-0125', contextWindow: 128_000, maxOutputTokens: 4_096 },
    { prefix: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384 },
    { prefix: 'gpt-4o-mini', contextWindow: 128_000, maxOutputTokens: 16_384 },
    { prefix: 'chatgpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384 },
    { prefix: 'gpt-4.1', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    { prefix: 'gpt-4.5', contextWindow: 128_000, maxOutputTokens: 16_384 },
    // GPT-5's published 400k is input + output; the API rejects inputs above
    // 272k ("Input tokens exceed the configured limit of 272000 tokens").
    // Compaction has to respect the input limit, so that is what we report.
    { prefix: 'gpt-5', contextWindow: 272_000, maxOutputTokens: 128_000 },
    { prefix: 'gpt-5-chat', contextWindow: 128_000, maxOutputTokens: 16_384 },
    { prefix: 'o1', contextWindow: 200_000, maxOutputTokens: 100_000 },
    { prefix: 'o1-mini', contextWindow: 128_000, maxOutputTokens: 65_536 },
    { prefix: 'o1-preview', contextWindow: 128_000, maxOutputTokens: 32_768 },
    { prefix: 'o3', contextWindow: 200_000, maxOutputTokens: 100_000 },
    { prefix: 'o3-mini', contextWindow: 200_000, maxOutputTokens: 100_000 },
    { prefix: 'o4-mini', contextWindow: 200_000, maxOutputTokens: 100_000 },
  ],
  anthropic: [
    { prefix: 'claude-3-haiku', contextWindow: 200_000, maxOutputTokens: 4_096 },
    { prefix: 'claude-3-sonnet', contextWindow: 200_000, maxOutputTokens: 4_096 },
    { prefix: 'claude-3-opus', contextWindow: 200_000, maxOutputTokens: 4_096 },
    { prefix: 'claude-3-5-sonnet', contextWindow: 200_000, maxOutputTokens: 8_192 },
    { prefix: 'claude-3-5-haiku', contextWindow: 200_000, maxOutputTokens: 8_192 },
    { prefix: 'claude-3-7-sonnet', contextWindow: 200_000, maxOutputTokens: 64_000 },
    // The 1M-token window of Sonnet 4/4.5 is a beta behind a header we do not send.
    { prefix: 'claude-sonnet-4', contextWindow: 200_000, maxOutputTokens: 64_000 },
    { prefix: 'claude-opus-4', contextWindow: 200_000, maxOutputTokens: 32_000 },
    { prefix: 'claude-opus-4-5', contextWindow: 200_000, maxOutputTokens: 64_000 },
    { prefix: 'claude-haiku-4', contextWindow: 200_000, maxOutputTokens: 64_000 },
  ],
  google: [
    { prefix: 'gemini-1.5-pro', contextWindow: 2_097_152, maxOutputTokens: 8_192 },
    { prefix: 'gemini-1.5-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
    { prefix: 'gemini-2.0-flash', contextWindow: 1_048_576, maxOutputTokens: 8_192 },
    { prefix: 'gemini-2.5-pro', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    { prefix: 'gemini-2.5-flash', contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  ],
};

/**
 * Window assumed for a model nobody told us about. Unknown models are almost
 * always local or self-hosted (Ollama, llama.cpp, LM Studio, vLLM) where the
 * served window is whatever the operator configured, often far below the
 * model's trained maximum. Guessing too high means requests fail with an
 * overflow error (or, with Ollama, get silently truncated) before we compact;
 * guessing too low only means compacting earlier than needed. 32k is the
 * smallest window common among current open models (Mistral, Qwen, Llama 3.x
 * deployments), so it errs on the safe side without making them unusable.
 * Override per model with MODEL_CONTEXT_WINDOWS.
 */
export const FALLBACK_CONTEXT_WINDOW = 32_768;

function familyOf(provider: ProviderId, model: string): { family: CatalogFamily; name: string } | null {
  // Routers and compatible servers often prefix the vendor ("openai/gpt-4o",
  // "anthropic/claude-3.5-sonnet"); the catalog knows the bare name.
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const name = bare.toLowerCase().replace(/^models\//, '');
  const own = PROVIDERS[provider].catalog;
  if (own !== 'by-name') return { family: own, name };
  // A server serving other vendors' models: the family is whose bare ids the name looks like.
  const vendor = inferProvider(name);
  const family = vendor ? PROVIDERS[vendor].catalog : 'by-name';
  if (family === 'by-name') return null;
  // Routers spell Claude versions with dots ("claude-3.5-sonnet"); Anthropic's ids use dashes.
  return { family, name: family === 'anthropic' ? name.replace(/\./g, '-') : name };
}

export function lookupCatalog(provider: ProviderId, model: string): CatalogEntry | null {
  const f = familyOf(provider, model);
  if (!f) return null;
  let best: CatalogEntry | null = null;
  for (const e of CATALOG[f.family]) {
    if (f.name.startsWith(e.prefix) && (!best || e.prefix.length > best.prefix.length)) best = e;
  }
  return best;
}
