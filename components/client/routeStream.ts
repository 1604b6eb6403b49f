'use client';

import type { ChatStreamResult, StreamHandlers } from '@/lib/chat/turn';
import { parseErrorResponse, readChatStream } from '@/lib/providers/uiStream';
import { clientCredentials } from './credentials';

/**
 * POSTs to one of the app's streaming routes (/api/chat, /api/summarize) and
 * reads the UI message stream back. A non-2xx answer (bad input, body too big)
 * becomes an error result with the route's own message, like a provider error.
 */
export async function streamFromRoute(url: string, body: Record<string, unknown>, h: StreamHandlers): Promise<ChatStreamResult> {
  const client = await clientCredentials();
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
