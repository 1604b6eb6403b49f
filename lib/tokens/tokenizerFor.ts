import { PROVIDERS, type ProviderId, type TokenizerFamily } from '@/lib/providers/descriptors';
import { parseModelId } from '@/lib/providers/modelId';
import type { ImageFormula } from './mediaTokens';

/**
 * Which tokenizer counts a model's tokens, and whether the count is exact.
 *
 * Only OpenAI publishes its tokenizers: o200k_base for GPT-4o, GPT-4.1,
 * GPT-5 and the o-series; cl100k_base for GPT-4, GPT-3.5 and older chat
 * models. Everything else (Claude, Gemini, local models) is counted with
 * o200k and scaled by a calibration learned from the provider's reported
 * usage (calibration.ts). Pure: the UI uses it to decide when to show "≈".
 *
 * Which rule applies is the provider's tokenizer family (lib/providers/descriptors.ts).
 */

export type Encoding = 'o200k_base' | 'cl100k_base';

export interface TokenizerInfo {
  provider: ProviderId;
  /** The model part of "provider:model". */
  model: string;
  encoding: Encoding;
  /** True when the encoding is the model's own tokenizer. */
  exact: boolean;
  /** A coarse family for display and grouping: "gpt-o200k", "gpt-cl100k", "claude", "gemini", "local". */
  family: 'gpt-o200k' | 'gpt-cl100k' | 'claude' | 'gemini' | 'local';
  /** Whose image formula prices this model's images. */
  imageFormula: ImageFormula;
}

/**
 * The encoding of an OpenAI model name, or null if the name is not OpenAI's.
 * Order matters: "gpt-4.1" and "gpt-4o" start with "gpt-4" but are o200k.
 */
export function openaiEncoding(model: string): Encoding | null {
  // Routers spell OpenAI models "openai/gpt-4o"; the tokenizer is the same.
  const m = model.toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-4o|o[1-9](?:$|-))/.test(m)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k_base';
  return null;
}

type Counting = Omit<TokenizerInfo, 'provider' | 'model'>;

const LOCAL: Counting = { encoding: 'o200k_base', exact: false, family: 'local', imageFormula: 'openai' };

function openaiCounting(enc: Encoding): Counting {
  return { encoding: enc, exact: true, family: enc === 'o200k_base' ? 'gpt-o200k' : 'gpt-cl100k', imageFormula: 'openai' };
}

const RULES: Record<TokenizerFamily, (model: string) => Counting> = {
  openai: (model) => {
    const enc = openaiEncoding(model);
    // An OpenAI model we do not know yet is most likely a new one: new models ship on o200k.
    return enc ? openaiCounting(enc) : { encoding: 'o200k_base', exact: false, family: 'gpt-o200k', imageFormula: 'openai' };
  },
  // An OpenAI-compatible server that serves an OpenAI model name (a proxy or router) tokenizes like OpenAI.
  router: (model) => {
    const enc = openaiEncoding(model);
    return enc ? openaiCounting(enc) : LOCAL;
  },
  claude: () => ({ encoding: 'o200k_base', exact: false, family: 'claude', imageFormula: 'anthropic' }),
  gemini: () => ({ encoding: 'o200k_base', exact: false, family: 'gemini', imageFormula: 'google' }),
  // Local models have tokenizers of their own; their vision adapters vary, OpenAI's tile rule is a middle guess.
  local: () => LOCAL,
};

/** An id no provider claims (an import from another app, a typo) is counted as an OpenAI-compatible server's model would be. */
const UNCLAIMED: ProviderId = 'compat';

export function tokenizerFor(modelId: string): TokenizerInfo {
  const { provider, model } = parseModelId(modelId) ?? { provider: UNCLAIMED, model: modelId };
  return { provider, model, ...RULES[PROVIDERS[provider].tokenizer](model) };
}
