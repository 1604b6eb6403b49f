import { PROVIDER_IDS, PROVIDERS, type ProviderId } from './descriptors';

/**
 * Qualified model ids: "provider:model". The provider part picks the
 * descriptor (descriptors.ts): the client package, the credentials, the
 * tokenizer; the model part goes to the provider unchanged (it may itself
 * contain ':' or '/', e.g. Ollama's "llama3.1:8b" or OpenRouter's
 * "openai/gpt-4o"). The one parser of model ids: the routes, the listing and
 * the token counter all read ids through it.
 */

/** The longest qualified id the model routes accept; listings leave out what could not be used. */
export const MAX_MODEL_ID_LENGTH = 300;

export interface ModelRef {
  provider: ProviderId;
  model: string;
}

export function isProviderId(s: string): s is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(s);
}

/**
 * The provider whose family a bare id unambiguously belongs to, or null.
 * Bare ids are accepted so that DEFAULT_MODEL=gpt-4o or an id from an older
 * export still resolves.
 */
export function inferProvider(model: string): ProviderId | null {
  return PROVIDER_IDS.find((id) => PROVIDERS[id].unqualified?.test(model)) ?? null;
}

/** null when the id names no known provider and its family cannot be recognised. */
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
