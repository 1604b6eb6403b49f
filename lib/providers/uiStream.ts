import { parseJsonEventStream, uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { parseProviderErrorInfo, type ProviderErrorInfo } from './errors';
import { streamMetadataSchema, type StreamMetadata } from './requests';

/**
 * Reading what /api/chat and /api/summarize stream back, for the client.
 * No fetch in here: the caller passes the response body, so this runs the
 * same in the page, in a worker, and in tests against the real route handlers.
 *
 * The protocol is the AI SDK's UI message stream (SSE of JSON chunks). We read
 * text and reasoning deltas, the message metadata (model, usage, finish
 * reason) and error chunks, whose text is a JSON ProviderErrorInfo.
 */

export interface ChatStreamHandlers {
  onText?(delta: string, full: string): void;
  onReasoning?(delta: string, full: string): void;
  onMetadata?(meta: StreamMetadata): void;
  onError?(info: ProviderErrorInfo): void;
}

export interface ChatStreamResult {
  text: string;
  reasoning: string;
  metadata?: StreamMetadata;
  error?: ProviderErrorInfo;
  /** The stream reached its finish chunk (the reply is complete, possibly cut at the token limit). */
  finished: boolean;
  aborted: boolean;
}

function mergeMetadata(current: StreamMetadata | undefined, incoming: unknown): StreamMetadata | undefined {
  const parsed = streamMetadataSchema.safeParse(incoming);
  if (!parsed.success) return current;
  return { ...current, ...(parsed.data as StreamMetadata) };
}

export async function readChatStream(body: ReadableStream<Uint8Array>, handlers: ChatStreamHandlers = {}): Promise<ChatStreamResult> {
  const result: ChatStreamResult = { text: '', reasoning: '', finished: false, aborted: false };
  // Text since the last step start, so a 'reset-step' (a retried step) can take it back.
  let stepTextStart = 0;
  let stepReasoningStart = 0;

  const setMeta = (incoming: unknown) => {
    const next = mergeMetadata(result.metadata, incoming);
    if (next && next !== result.metadata) {
      result.metadata = next;
      handlers.onMetadata?.(next);
    }
  };
  const fail = (info: ProviderErrorInfo) => {
    // The first error is the cause; later ones (a broken stream after an error chunk) add nothing.
    if (result.error) return;
    result.error = info;
    handlers.onError?.(info);
  };

  const chunks = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema });
  const reader = chunks.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!value.success) {
        fail({ kind: 'unknown', message: 'The server sent a stream this client cannot read.' });
        continue;
      }
      const chunk = value.value as UIMessageChunk;
      switch (chunk.type) {
        case 'text-delta':
          result.text += chunk.delta;
          handlers.onText?.(chunk.delta, result.text);
          break;
        case 'reasoning-delta':
          result.reasoning += chunk.delta;
          handlers.onReasoning?.(chunk.delta, result.reasoning);
          break;
        case 'start-step':
          stepTextStart = result.text.length;
          stepReasoningStart = result.reasoning.length;
          break;
        case 'reset-step':
          result.text = result.text.slice(0, stepTextStart);
          result.reasoning = result.reasoning.slice(0, stepReasoningStart);
          break;
        case 'start':
        case 'message-metadata':
          if (chunk.messageMetadata !== undefined) setMeta(chunk.messageMetadata);
          break;
        case 'finish':
          if (chunk.messageMetadata !== undefined) setMeta(chunk.messageMetadata);
          result.finished = true;
          break;
        case 'error':
          fail(parseProviderErrorInfo(chunk.errorText));
          break;
        case 'abort':
          result.aborted = true;
          break;
        default:
          break;
      }
    }
  } catch (e) {
    const name = (e as { name?: string } | null)?.name;
    if (name === 'AbortError') {
      result.aborted = true;
    } else {
      fail({ kind: 'network', message: 'The connection to the server broke off before the reply was complete.' });
    }
  } finally {
    reader.releaseLock();
  }
  return result;
}

/** For non-2xx responses of the routes: their body is `{ error: ProviderErrorInfo }`. */
export function parseErrorResponse(status: number, text: string): ProviderErrorInfo {
  const info = parseProviderErrorInfo(text);
  if (info.kind !== 'unknown' || text.trim().startsWith('{')) return { ...info, status: info.status ?? status };
  return { kind: status === 413 ? 'invalid_request' : status >= 500 ? 'server' : 'invalid_request', status, message: text.trim() || `HTTP ${status}` };
}
