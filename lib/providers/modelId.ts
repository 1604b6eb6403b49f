/**
 * Qualified model ids: "provider:model". The provider part picks the client
 * package and the credentials; the model part goes to the provider unchanged
 * (it may itself contain ':' or '/', e.g. Ollama's "llama3.1:8b" or
 * OpenRouter's "openai/gpt-4o").
 */

export const PROVIDER_IDS = ['openai', 'anthropic', 'google', 'compat', 'ollama'] as const;

/** The longest qualified id the model routes accept; listings leave out what could not be used. */
export const MAX_MODEL_ID_LENGTH = 300;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export interface ModelRef {
  provider: ProviderId;
  model: string;
}

export function isProviderId(s: string): s is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(s);
}

/**
 * Unqualified ids are accepted where the family is unambiguous, so that
 * DEFAULT_MODEL=gpt-4o or an id from an older export still resolves.
 */
function inferProvider(model: string): ProviderId | null {
  if (/^(gpt-|chatgpt-|o\d(?:-|$))/i.test(model)) return 'openai';
  if (/^claude-/i.test(model)) return 'anthropic';
  if (/^gemini-/i.test(model)) return 'google';
  return null;
}

export function parseModelId(id: string): ModelRef | null {
  const trimmed = id.trim();
  if (!trimmed) return null;
  const colon = trimmed.indexOf(':');
  if (colon > 0) {
    const head = trimmed.slice(0, colon);
    const model = trimmed.slice(colon + 1);
    if (isProviderId(head)) return model ? { provider: head, model } : null;
  }
  const provider = inferProvider(trimmed);
  return provider ? { provider, model: trimmed } : null;
}

export function formatModelId(ref: ModelRef): string {
  return `${ref.provider}:${ref.model}`;
}
