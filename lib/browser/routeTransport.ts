import type { ChatStreamResult, StreamHandlers } from '@/lib/chat/turn';
import type { TextSummarizer } from '@/lib/compaction/summarizer';
import type { ModelTransport } from '@/lib/flows/ports';
import { parseErrorResponse, readChatStream } from '@/lib/providers/uiStream';
import { loadClientCredentials } from '@/lib/db';

/**
 * POSTs to one of the app's streaming routes (/api/chat, /api/summarize) and
 * reads the UI message stream back. A non-2xx answer (bad input, body too big)
 * becomes an error result with the route's own message, like a provider error.
 */
export async function streamFromRoute(url: string, body: Record<string, unknown>, h: StreamHandlers): Promise<ChatStreamResult> {
  const client = await loadClientCredentials();
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
      );
      // A failed or cut-off summary must not become an entry: the caller appends only on success.
      if (res.error) throw new Error(`The summarizer failed: ${res.error.message}`);
      if (!res.text.trim()) throw new Error('The summarizer returned an empty summary.');
      return { text: res.text, ...(res.usage ? { usage: res.usage } : {}) };
    },
  };
}

/** The models through this app's own route handlers. */
export const routeTransport: ModelTransport = {
  streamChat: (req, h) => streamFromRoute('/api/chat', { model: req.model, system: req.system, context: req.context }, h),
  summarizer: routeSummarizer,
};
