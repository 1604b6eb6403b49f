import type { ChatStreamResult, StreamHandlers } from '@/lib/chat/turn';
import type { TextSummarizer } from '@/lib/compaction/summarizer';
import type { ModelTransport, TextRequest } from '@/lib/flows/ports';
import { credentialsOf, type BrowserProvider } from '@/lib/providers/browserProviders';
import type { ProviderListingResponse } from '@/lib/providers/listing';
import { parseModelId } from '@/lib/providers/modelId';
import type { ClientCredentials } from '@/lib/providers/requests';
import { parseErrorResponse, readChatStream } from '@/lib/providers/uiStream';
import { browserCredentials } from '@/lib/db';

/**
 * The settings of the browser-entered provider a model belongs to, to send
 * with a request for it; nothing for the server's own providers, whose keys
 * stay on the server.
 */
async function credentialsFor(model: string | undefined): Promise<ClientCredentials | undefined> {
  const instance = model ? parseModelId(model)?.instance : undefined;
  return instance ? browserCredentials(instance) : undefined;
}

/**
 * POSTs to one of the app's streaming routes (/api/chat, /api/summarize) and
 * reads the UI message stream back. A non-2xx answer (bad input, body too big)
 * becomes an error result with the route's own message, like a provider error.
 * `credentialsModel` names the model whose provider's settings go along.
 */
export async function streamFromRoute(url: string, body: Record<string, unknown>, h: StreamHandlers, credentialsModel?: string): Promise<ChatStreamResult> {
  const client = await credentialsFor(credentialsModel);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(client ? { ...body, client } : body),
    signal: h.signal,
  });
  if (!res.ok || !res.body) {
    const info = parseErrorResponse(res.status, await res.text().catch(() => ''));
    return { text: '', error: { kind: info.kind, status: info.status, message: info.message } };
  }
  const out = await readChatStream(res.body, {
    onText: (_d, full) => h.onText(full),
    onReasoning: (_d, full) => h.onReasoning?.(full),
  });
  if (out.aborted || h.signal.aborted) throw Object.assign(new Error('Aborted'), { name: 'AbortError' });
  const error = out.error ?? (out.finished ? undefined : { kind: 'network', message: 'The connection dropped before the reply finished; what arrived is kept.' });
  return {
    text: out.text,
    reasoning: out.reasoning,
    usage: out.metadata?.usage,
    finishReason: out.metadata?.finishReason,
    ...(error ? { error } : {}),
  };
}

/** The app's summarizer: streams through /api/summarize, which picks the provider on the server. */
export function routeSummarizer(summarizerModel: string, chatModel?: string): TextSummarizer {
  return {
    info: { kind: 'model', model: summarizerModel },
    async complete(req, opts) {
      let seen = '';
      const res = await streamFromRoute(
        '/api/summarize',
        { summarizerModel, model: chatModel, system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens },
        {
          signal: opts.signal ?? new AbortController().signal,
          onText: (full) => {
            opts.onDelta?.(full.slice(seen.length));
            seen = full;
          },
        },
        summarizerModel,
      );
      // A failed summary must not become an entry: the caller appends only on success. An empty or
      // cut-off one is judged by the caller (lib/compaction/summaryCheck.ts), which retries or falls back.
      if (res.error) throw new Error(`The summarizer failed: ${res.error.message}`);
      return { text: res.text, ...(res.usage ? { usage: res.usage } : {}), ...(res.finishReason ? { finishReason: res.finishReason } : {}) };
    },
  };
}

/** A short text through /api/summarize, naming the model as the one to use (the route then takes no server default instead). */
async function completeText(req: TextRequest, signal?: AbortSignal): Promise<string> {
  const res = await streamFromRoute(
    '/api/summarize',
    { summarizerModel: req.model, model: req.model, system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens },
    { signal: signal ?? new AbortController().signal, onText: () => {} },
    req.model,
  );
  if (res.error) throw new Error(res.error.message);
  if (!res.text.trim()) throw new Error('The model returned nothing.');
  return res.text;
}

/** POST /api/models: the provider's settings go to this app's server, which asks the provider. */
async function listProvider(p: BrowserProvider): Promise<ProviderListingResponse> {
  const res = await fetch('/api/models', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: p.provider, ...credentialsOf(p) }),
    cache: 'no-store',
  });
  if (!res.ok) throw new Error(parseErrorResponse(res.status, await res.text().catch(() => '')).message);
  return (await res.json()) as ProviderListingResponse;
}

/** The models through this app's own route handlers. */
export const routeTransport: ModelTransport = {
  streamChat: (req, h) =>
    streamFromRoute(
      '/api/chat',
      { model: req.model, system: req.system, context: req.context, ...(req.temperature !== undefined ? { temperature: req.temperature } : {}), ...(req.maxOutputTokens !== undefined ? { maxOutputTokens: req.maxOutputTokens } : {}) },
      h,
      req.model,
    ),
  summarizer: routeSummarizer,
  completeText,
  listProvider,
};
