import type { ImageFormula } from './mediaTokens';

/**
 * Which tokenizer counts a model's tokens, and whether the count is exact.
 *
 * Only OpenAI publishes its tokenizers: o200k_base for GPT-4o, GPT-4.1,
 * GPT-5 and the o-series; cl100k_base for GPT-4, GPT-3.5 and older chat
 * models. Everything else (Claude, Gemini, local models) is counted with
 * o200k and scaled by a calibration learned from the provider's reported
 * usage (calibration.ts). Pure: the UI uses it to decide when to show "≈".
 */

export type Provider = 'openai' | 'anthropic' | 'google' | 'compat' | 'ollama';
export type Encoding = 'o200k_base' | 'cl100k_base';

export interface TokenizerInfo {
  provider: Provider;
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

const PROVIDERS: readonly Provider[] = ['openai', 'anthropic', 'google', 'compat', 'ollama'];

/** Splits "provider:model"; a bare model name is guessed from its shape. */
export function parseModelId(modelId: string): { provider: Provider; model: string } {
  const colon = modelId.indexOf(':');
  if (colon > 0) {
    const p = modelId.slice(0, colon).toLowerCase();
    if ((PROVIDERS as readonly string[]).includes(p)) return { provider: p as Provider, model: modelId.slice(colon + 1) };
  }
  const m = modelId.toLowerCase();
  if (m.startsWith('claude')) return { provider: 'anthropic', model: modelId };
  if (m.startsWith('gemini')) return { provider: 'google', model: modelId };
  if (openaiEncoding(m)) return { provider: 'openai', model: modelId };
  return { provider: 'compat', model: modelId };
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

export function tokenizerFor(modelId: string): TokenizerInfo {
  const { provider, model } = parseModelId(modelId);
  // An OpenAI-compatible server that serves an OpenAI model name (a proxy or router) tokenizes like OpenAI.
  if (provider === 'openai' || provider === 'compat') {
    const enc = openaiEncoding(model);
    if (enc) return { provider, model, encoding: enc, exact: true, family: enc === 'o200k_base' ? 'gpt-o200k' : 'gpt-cl100k', imageFormula: 'openai' };
    if (provider === 'openai') {
      // An OpenAI model we do not know yet is most likely a new one: new models ship on o200k.
      return { provider, model, encoding: 'o200k_base', exact: false, family: 'gpt-o200k', imageFormula: 'openai' };
    }
  }
  if (provider === 'anthropic') return { provider, model, encoding: 'o200k_base', exact: false, family: 'claude', imageFormula: 'anthropic' };
  if (provider === 'google') return { provider, model, encoding: 'o200k_base', exact: false, family: 'gemini', imageFormula: 'google' };
  // Local models have tokenizers of their own; their vision adapters vary, OpenAI's tile rule is a middle guess.
  return { provider, model, encoding: 'o200k_base', exact: false, family: 'local', imageFormula: 'openai' };
}
