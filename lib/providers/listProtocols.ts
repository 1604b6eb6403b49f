import type { ContextWindowSource } from './contextWindow';
import type { ListProtocolName } from './descriptors';
import type { FetchLike } from './guardedFetch';

/**
 * The ways providers list their models, one function per protocol
 * (descriptors.ts names which one each provider speaks). Each asks one
 * server and throws what its fetch throws, or an Error with statusCode and
 * responseBody for a non-2xx answer: listing.ts turns both into the
 * provider's status.
 */

interface ListTarget {
  /** The instance's base URL (for Ollama, its root). */
  baseUrl: string;
  apiKey: string | undefined;
  /** True when baseUrl is the vendor's own API rather than a gateway in front of it. */
  official: boolean;
}

type ListProtocol = (target: ListTarget, fetch: FetchLike, timeoutMs: number) => Promise<Listed[]>;

/**
 * What Ollama serves when the model sets no num_ctx: its server default
 * (OLLAMA_CONTEXT_LENGTH, 4096 unless the operator raised it), whatever the
 * model was trained for. Its OpenAI endpoint truncates silently past that, so
 * we plan with the served size, not the advertised one.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** A model as a provider's list endpoint reports it. */
export interface Listed {
  name: string;
  label?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  source?: ContextWindowSource;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);

async function getJson(fetch: FetchLike, url: string, timeoutMs: number, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) {
    const err = new Error(`HTTP ${res.status}`) as Error & { statusCode: number; responseBody: string };
    err.statusCode = res.status;
    err.responseBody = text;
    throw err;
  }
  return JSON.parse(text) as unknown;
}

function dataArray(j: unknown, key = 'data'): Record<string, unknown>[] {
  const arr = (j as Record<string, unknown> | null)?.[key];
  return Array.isArray(arr) ? (arr.filter((x) => x && typeof x === 'object') as Record<string, unknown>[]) : [];
}

const OPENAI_NON_CHAT = /(embedding|tts|whisper|dall-e|davinci|babbage|image|audio|realtime|transcribe|moderation|search|instruct|computer-use|sora)/i;

const listOpenAI: ListProtocol = async ({ baseUrl, apiKey, official }, fetch, timeoutMs) => {
  const j = await getJson(fetch, `${baseUrl}/models`, timeoutMs, { headers: { authorization: `Bearer ${apiKey}` } });
  return dataArray(j)
    .map((m) => String(m.id ?? ''))
    .filter((id) => id && (!official || (/^(gpt-|chatgpt-|o\d)/.test(id) && !OPENAI_NON_CHAT.test(id))))
    .map((name) => ({ name }));
};

const listAnthropic: ListProtocol = async ({ baseUrl, apiKey }, fetch, timeoutMs) => {
  const j = await getJson(fetch, `${baseUrl}/models?limit=1000`, timeoutMs, {
    headers: { 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' },
  });
  return dataArray(j).map((m) => ({
    name: String(m.id),
    label: typeof m.display_name === 'string' ? m.display_name : undefined,
    // Reported by newer API versions; the catalog covers older ones.
    contextWindow: num(m.max_input_tokens) ?? num(m.context_window),
    maxOutputTokens: num(m.max_tokens) ?? num(m.max_output_tokens),
  }));
};

const listGoogle: ListProtocol = async ({ baseUrl, apiKey }, fetch, timeoutMs) => {
  const j = await getJson(fetch, `${baseUrl}/models?pageSize=1000`, timeoutMs, { headers: { 'x-goog-api-key': apiKey ?? '' } });
  return dataArray(j, 'models')
    .filter((m) => Array.isArray(m.supportedGenerationMethods) && (m.supportedGenerationMethods as unknown[]).includes('generateContent'))
    .map((m) => ({
      name: String(m.name ?? '').replace(/^models\//, ''),
      label: typeof m.displayName === 'string' ? m.displayName : undefined,
      contextWindow: num(m.inputTokenLimit),
      maxOutputTokens: num(m.outputTokenLimit),
    }))
    .filter((m) => m.name.startsWith('gemini'));
};

/** OpenAI-compatible /models: servers that know the window report it under one of several names. */
export function compatWindow(m: Record<string, unknown>): { contextWindow?: number; maxOutputTokens?: number } {
  const top = (m.top_provider ?? {}) as Record<string, unknown>;
  const meta = (m.meta ?? {}) as Record<string, unknown>;
  const candidates = [
    num(m.context_length), // OpenRouter, LM Studio-style, our mock
    num(m.max_model_len), // vLLM
    num(m.context_window), // Groq, Together
    num(m.max_context_length), // LM Studio /api/v0
    num(top.context_length), // OpenRouter: what the serving provider really accepts
    num(meta.n_ctx), // llama.cpp: configured context
  ].filter((x): x is number => x !== undefined);
  // Where several are reported (OpenRouter's model vs. its serving provider), the smaller is what is enforced.
  const contextWindow = candidates.length ? Math.min(...candidates) : num(meta.n_ctx_train);
  const maxOutputTokens = num(top.max_completion_tokens) ?? num(m.max_completion_tokens) ?? num(m.max_output_tokens);
  return { contextWindow, maxOutputTokens };
}

const listCompatible: ListProtocol = async ({ baseUrl, apiKey }, fetch, timeoutMs) => {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const j = await getJson(fetch, `${baseUrl}/models`, timeoutMs, { headers });
  return dataArray(j).map((m) => ({ name: String(m.id), ...compatWindow(m) }));
};

function parseNumCtx(parameters: unknown): number | undefined {
  if (typeof parameters !== 'string') return undefined;
  const m = /^\s*num_ctx\s+(\d+)/m.exec(parameters);
  return m ? Number(m[1]) : undefined;
}

const listOllama: ListProtocol = async ({ baseUrl: root }, fetch, timeoutMs) => {
  const tags = await getJson(fetch, `${root}/api/tags`, timeoutMs);
  const names = dataArray(tags, 'models')
    .map((m) => String(m.name ?? m.model ?? ''))
    .filter(Boolean);
  // /api/show is cheap (metadata only, no model load); ask for at most 24 models, in parallel.
  return Promise.all(
    names.map(async (name, i): Promise<Listed> => {
      if (i >= 24) return { name, contextWindow: OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      try {
        const show = (await getJson(fetch, `${root}/api/show`, timeoutMs * 2, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: name }),
        })) as Record<string, unknown>;
        const numCtx = parseNumCtx(show.parameters);
        const info = (show.model_info ?? {}) as Record<string, unknown>;
        const trained = Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1];
        if (numCtx) return { name, contextWindow: numCtx, source: 'provider' };
        const trainedN = num(trained);
        return { name, contextWindow: trainedN ? Math.min(trainedN, OLLAMA_DEFAULT_NUM_CTX) : OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      } catch {
        return { name, contextWindow: OLLAMA_DEFAULT_NUM_CTX, source: 'fallback' };
      }
    }),
  );
};

export const LIST_PROTOCOLS: Record<ListProtocolName, ListProtocol> = {
  openai: listOpenAI,
  anthropic: listAnthropic,
  google: listGoogle,
  'openai-compatible': listCompatible,
  ollama: listOllama,
};

