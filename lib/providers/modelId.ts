import { PROVIDER_IDS, PROVIDERS, type ProviderId } from './descriptors';

/**
 * Qualified model ids: "provider:model", or "provider@instance:model" for a
 * provider the user entered in this browser (Settings → Providers). The
 * provider part picks the descriptor (descriptors.ts): the client package, the
 * credentials, the tokenizer; the instance part says which of the user's
 * providers of that kind (two OpenAI-compatible servers, say) the model
 * belongs to, so the browser knows whose key and base URL go with a request.
 * The model part goes to the provider unchanged (it may itself contain ':' or
 * '/', e.g. Ollama's "llama3.1:8b" or OpenRouter's "openai/gpt-4o"). The one
 * parser of model ids: the routes, the listing and the token counter all read
 * ids through it.
 */

/** The longest qualified id the model routes accept; listings leave out what could not be used. */
export const MAX_MODEL_ID_LENGTH = 300;

/** Instance ids: short, lower-case letters and digits, so they can never contain the ':' or '@' that delimit them. */
export const INSTANCE_ID = /^[a-z0-9]{1,24}$/;

export interface ModelRef {
  provider: ProviderId;
  model: string;
  /** The browser-entered provider this model belongs to; absent for the server's own providers. */
  instance?: string;
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

/** "openai", "compat@k3x9": the provider part of an id, with its instance. */
function parseQualifier(head: string): { provider: ProviderId; instance?: string } | null {
  const at = head.indexOf('@');
  if (at < 0) return isProviderId(head) ? { provider: head } : null;
  const provider = head.slice(0, at);
  const instance = head.slice(at + 1);
  return isProviderId(provider) && INSTANCE_ID.test(instance) ? { provider, instance } : null;
}

/** null when the id names no known provider and its family cannot be recognised. */
export function parseModelId(id: string): ModelRef | null {
  const trimmed = id.trim();
  if (!trimmed) return null;
  const colon = trimmed.indexOf(':');
  if (colon > 0) {
    const q = parseQualifier(trimmed.slice(0, colon));
    const model = trimmed.slice(colon + 1);
    if (q) return model ? { ...q, model } : null;
  }
  const provider = inferProvider(trimmed);
  return provider ? { provider, model: trimmed } : null;
}

/** The provider part of an id: "openai", or "compat@k3x9" for a browser-entered instance. Models of one qualifier share credentials. */
export function qualifierOf(ref: Pick<ModelRef, 'provider' | 'instance'>): string {
  return ref.instance ? `${ref.provider}@${ref.instance}` : ref.provider;
}

export function formatModelId(ref: ModelRef): string {
  return `${qualifierOf(ref)}:${ref.model}`;
}
