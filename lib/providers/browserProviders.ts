import { z } from 'zod';
import { PROVIDER_IDS, PROVIDERS, type ProviderId } from './descriptors';
import { INSTANCE_ID } from './modelId';

/**
 * Providers the user enters in Settings → Providers: an OpenAI key, a local
 * Ollama, an OpenAI-compatible server by its base URL. They live in this
 * browser (lib/db) and travel to this app's own server only with the request
 * that uses them (requests.ts: `client`), where they become a ProviderInstance
 * like the environment's (browserInstance.ts) and go through the same listing
 * and model resolution. Their models are named "provider@id:model"
 * (modelId.ts), so a request says whose key and base URL go with it.
 *
 * Pure: the form's rules, validation of what is stored (read back field by
 * field: a row written by an older version or edited in devtools must not
 * break the app), and the old single key/base-URL pair this replaces.
 */

export interface BrowserProvider {
  /** Instance id: the "@id" in its model ids. */
  id: string;
  provider: ProviderId;
  /** Its name in the picker and in messages. */
  label: string;
  /** Normalised (no trailing slash); absent when the provider's own API is meant. */
  baseUrl?: string;
  apiKey?: string;
  addedAt: number;
}

export const MAX_LABEL_LENGTH = 60;
export const MAX_KEY_LENGTH = 4096;
export const MAX_BASE_URL_LENGTH = 2048;

/** What the form asks for, per kind of provider: derived from its descriptor. */
export interface ProviderFormSpec {
  provider: ProviderId;
  label: string;
  baseUrl: 'required' | 'optional' | 'none';
  apiKey: 'required' | 'optional' | 'none';
  /** Filled in for the user: where this kind of server usually listens. */
  suggestedBaseUrl?: string;
  /** Where requests go when the base URL is left empty. */
  defaultBaseUrl?: string;
}

export function providerFormSpec(provider: ProviderId): ProviderFormSpec {
  const d = PROVIDERS[provider];
  const spec = d.baseUrl;
  const baseUrl = spec.from === 'default' ? 'none' : spec.from === 'env-or-default' ? 'optional' : 'required';
  return {
    provider,
    label: d.label,
    baseUrl,
    apiKey: d.auth.kind,
    ...(spec.from === 'probe' ? { suggestedBaseUrl: spec.url } : {}),
    ...(spec.from === 'env-or-default' ? { defaultBaseUrl: spec.url } : {}),
  };
}

/** The kinds the form offers, in the picker's order. */
export const PROVIDER_FORM_SPECS: readonly ProviderFormSpec[] = PROVIDER_IDS.map(providerFormSpec);

const storedSchema = z.object({
  id: z.string().regex(INSTANCE_ID),
  provider: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]),
  label: z.string().trim().min(1).max(MAX_LABEL_LENGTH),
  baseUrl: z.string().max(MAX_BASE_URL_LENGTH).optional(),
  apiKey: z.string().max(MAX_KEY_LENGTH).optional(),
  addedAt: z.number().finite(),
});

/** A stored list (anything) as valid providers: each row on its own, bad or repeated ones left out. */
export function readBrowserProviders(raw: unknown): BrowserProvider[] {
  if (!Array.isArray(raw)) return [];
  const out: BrowserProvider[] = [];
  const ids = new Set<string>();
  for (const row of raw) {
    const parsed = storedSchema.safeParse(row);
    if (!parsed.success || ids.has(parsed.data.id)) continue;
    ids.add(parsed.data.id);
    const { baseUrl, apiKey, ...rest } = parsed.data;
    out.push({ ...rest, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) });
  }
  return out;
}

/** What the user typed into the form. */
export interface ProviderDraft {
  provider: ProviderId;
  label?: string;
  baseUrl?: string;
  apiKey?: string;
}

export type DraftCheck = { ok: true; value: Omit<BrowserProvider, 'id' | 'addedAt'> } | { ok: false; error: string };

/**
 * The syntax of a base URL; where the server may send requests is its own
 * policy (urlPolicy.ts), checked when the server is asked, and said in the
 * provider's state.
 */
function checkBaseUrlSyntax(raw: string): { ok: true; url: string } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: `“${raw.slice(0, 80)}” is not a URL; write it like http://127.0.0.1:8080/v1.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, error: 'The base URL must start with http:// or https://.' };
  if (url.username || url.password) return { ok: false, error: 'Put the key in the API key field, not in the URL.' };
  if (url.search || url.hash) return { ok: false, error: 'The base URL takes no query or fragment (nothing after ? or #).' };
  const s = `${url.origin}${url.pathname}`;
  return { ok: true, url: s.endsWith('/') ? s.slice(0, -1) : s };
}

/** A name no other provider in the list has: the kind's label, numbered when taken. */
export function uniqueLabel(wanted: string, taken: readonly string[]): string {
  const lower = new Set(taken.map((t) => t.toLowerCase()));
  if (!lower.has(wanted.toLowerCase())) return wanted;
  for (let n = 2; ; n++) if (!lower.has(`${wanted} ${n}`.toLowerCase())) return `${wanted} ${n}`;
}

/** Validates a draft against the kind's form; `takenLabels` are the names already in the picker. */
export function checkProviderDraft(draft: ProviderDraft, takenLabels: readonly string[]): DraftCheck {
  if (!(PROVIDER_IDS as readonly string[]).includes(draft.provider)) return { ok: false, error: 'Choose which kind of provider this is.' };
  const spec = providerFormSpec(draft.provider);
  const label = (draft.label ?? '').trim();
  if (label.length > MAX_LABEL_LENGTH) return { ok: false, error: `The name is longer than ${MAX_LABEL_LENGTH} characters.` };
  if (label && takenLabels.some((t) => t.toLowerCase() === label.toLowerCase())) return { ok: false, error: `Another provider is already called “${label}”.` };

  // Keys are pasted: whitespace around (or a line break inside) is never part of one.
  const apiKey = (draft.apiKey ?? '').replace(/\s+/g, '');
  if (apiKey.length > MAX_KEY_LENGTH) return { ok: false, error: 'That key is too long to be an API key.' };
  if (spec.apiKey === 'required' && !apiKey) return { ok: false, error: `${spec.label} needs an API key.` };

  const rawUrl = (draft.baseUrl ?? '').trim() || (spec.baseUrl === 'required' ? (spec.suggestedBaseUrl ?? '') : '');
  let baseUrl: string | undefined;
  if (rawUrl && spec.baseUrl !== 'none') {
    if (rawUrl.length > MAX_BASE_URL_LENGTH) return { ok: false, error: 'The base URL is too long.' };
    const check = checkBaseUrlSyntax(rawUrl);
    if (!check.ok) return check;
    baseUrl = check.url;
  }
  if (spec.baseUrl === 'required' && !baseUrl) return { ok: false, error: `${spec.label} needs a base URL (the server’s address, e.g. http://127.0.0.1:8080/v1).` };

  return {
    ok: true,
    value: {
      provider: draft.provider,
      label: label || uniqueLabel(spec.label, takenLabels),
      ...(baseUrl ? { baseUrl } : {}),
      ...(apiKey && spec.apiKey !== 'none' ? { apiKey } : {}),
    },
  };
}

/** A fresh instance id: 8 base-36 characters from the given source of randomness. */
export function newInstanceId(random: () => number = Math.random): string {
  let id = '';
  for (let i = 0; i < 8; i++) id += Math.floor(random() * 36).toString(36);
  return id;
}

/** What goes along with a request for one of this provider's models (requests.ts `client`). */
export function credentialsOf(p: BrowserProvider): { instance: string; label: string; apiKey?: string; baseUrl?: string } {
  return { instance: p.id, label: p.label, ...(p.apiKey ? { apiKey: p.apiKey } : {}), ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}) };
}

/**
 * The single key / base-URL pair that earlier versions kept, as a provider of
 * the kind it must have meant: a base URL is an OpenAI-compatible server (an
 * Ollama on its usual port), a bare key is recognised by its vendor prefix.
 * null when neither tells.
 */
export function providerFromLegacyCredentials(legacy: { apiKey?: string; baseUrl?: string } | undefined, addedAt: number): BrowserProvider | null {
  const apiKey = legacy?.apiKey?.trim() || undefined;
  const rawUrl = legacy?.baseUrl?.trim();
  let provider: ProviderId | null = null;
  let baseUrl: string | undefined;
  if (rawUrl) {
    const check = checkBaseUrlSyntax(rawUrl);
    if (!check.ok) return null;
    const ollama = new URL(check.url).port === '11434';
    provider = ollama ? 'ollama' : 'compat';
    baseUrl = ollama ? check.url.replace(/\/v1$/, '') : check.url;
  } else if (apiKey) {
    provider = apiKey.startsWith('sk-ant-') ? 'anthropic' : apiKey.startsWith('AIza') ? 'google' : apiKey.startsWith('sk-') ? 'openai' : null;
  }
  if (!provider) return null;
  const keep = PROVIDERS[provider].auth.kind !== 'none' && apiKey;
  return { id: 'legacy', provider, label: PROVIDERS[provider].label, ...(baseUrl ? { baseUrl } : {}), ...(keep ? { apiKey } : {}), addedAt };
}
