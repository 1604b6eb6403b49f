import { createUIMessageStream, createUIMessageStreamResponse, streamText, toUIMessageStream, type LanguageModelUsage, type ModelMessage, type InferUIMessageChunk, type ToolSet, type UIMessage } from 'ai';
import type { Usage } from '@/lib/session/types';
import { MB, readJsonBody } from './body';
import { watchBodyBreaks } from './bodyBreaks';
import { retryStaleConnection } from './staleConnection';
import { readServerConfig, type EnvLike, type ServerConfig } from './env';
import { classifyProviderError, jsonError, type ProviderErrorInfo } from './errors';
import { PROVIDER_IDS, PROVIDERS } from './descriptors';
import { resolveLanguageModel } from './factory';
import type { FetchLike } from './guardedFetch';
import { contextToModelMessages } from './modelMessages';
import { formatModelId, parseModelId, qualifierOf, type ModelRef } from './modelId';
import { chatRequestSchema, describeZodError, summarizeRequestSchema, type ClientCredentials, type FinishReason, type StreamMetadata } from './requests';

/**
 * The logic of POST /api/chat and POST /api/summarize, kept out of app/ so it
 * can be exercised with an injected environment and fetch. The route files
 * only pass process.env and the global fetch.
 */
export interface ServerDeps {
  env: EnvLike;
  fetch: FetchLike;
  /** One line per failed call: kind, status, provider. Never keys or prompts. */
  log?: (line: string) => void;
}

export const CHAT_BODY_LIMIT = 32 * MB;
export const SUMMARIZE_BODY_LIMIT = 8 * MB;

function badRequest(message: string, status = 400): Response {
  return jsonError(status, { kind: 'invalid_request', status, message });
}

/** A UI message stream that carries nothing but one error: for failures found before any model call. */
function errorStream(info: ProviderErrorInfo, model: string): Response {
  const stream = createUIMessageStream<UIMessage<StreamMetadata>>({
    execute({ writer }) {
      writer.write({ type: 'start', messageMetadata: { model } });
      writer.write({ type: 'error', errorText: JSON.stringify(info) });
    },
  });
  return createUIMessageStreamResponse({ stream, headers: { 'cache-control': 'no-store' } });
}

export function toUsage(u: LanguageModelUsage | undefined): { usage?: Usage; contextTokens?: number } {
  if (!u) return {};
  const cacheRead = u.inputTokenDetails?.cacheReadTokens;
  const cacheWrite = u.inputTokenDetails?.cacheWriteTokens;
  const total = u.inputTokens;
  // Our Usage.input excludes cache traffic where the provider reports it apart.
  const input = u.inputTokenDetails?.noCacheTokens ?? (total !== undefined ? Math.max(0, total - (cacheRead ?? 0) - (cacheWrite ?? 0)) : undefined);
  if (input === undefined && u.outputTokens === undefined) return {};
  const usage: Usage = { input: input ?? 0, output: u.outputTokens ?? 0 };
  if (cacheRead !== undefined) usage.cacheRead = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWrite = cacheWrite;
  usage.totalTokens = u.totalTokens ?? usage.input + usage.output + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return { usage, contextTokens: total ?? usage.input + (cacheRead ?? 0) + (cacheWrite ?? 0) };
}

interface RunOptions {
  request: Request;
  deps: ServerDeps;
  config: ServerConfig;
  ref: ModelRef;
  client: ClientCredentials | undefined;
  route: string;
  system?: string;
  messages: ModelMessage[];
  maxOutputTokens?: number;
  temperature?: number;
}

type Chunk = InferUIMessageChunk<UIMessage<StreamMetadata>>;

function runModel(o: RunOptions): Response {
  const modelId = formatModelId(o.ref);
  const breaks = watchBodyBreaks(retryStaleConnection(o.deps.fetch));
  const resolved = resolveLanguageModel(o.ref, o.config, o.client, breaks.fetch);
  if (!resolved.ok) {
    if (resolved.reason === 'base_url_refused') return badRequest(resolved.message);
    const missingKey = /API key/i.test(resolved.message);
    return errorStream({ kind: missingKey ? 'auth' : 'invalid_request', message: resolved.message, provider: resolved.providerLabel }, modelId);
  }

  const classify = (e: unknown) => classifyProviderError(e, { provider: resolved.providerLabel, protocol: PROVIDERS[o.ref.provider].listing, secrets: resolved.secrets });
  const started = Date.now();
  const result = streamText({
    model: resolved.model,
    instructions: o.system,
    messages: o.messages,
    maxOutputTokens: o.maxOutputTokens,
    temperature: o.temperature,
    abortSignal: o.request.signal,
    // Retries belong to the client: it shows the wait (retryAfterMs) and can compact on overflow instead.
    maxRetries: 0,
    // Replaces the SDK's default console logging of the raw error object.
    onError: () => {},
  });

  const onError = (error: unknown) => {
    // After a break, what the provider code says about the cut stream ("ended
    // without a finish reason") is a consequence; the break is the cause.
    const broke = breaks.broken();
    const info = classify(broke ? { statusCode: broke.status, cause: broke.error } : error);
    o.deps.log?.(`[${o.route}] ${modelId}: ${info.kind}${info.status ? ` ${info.status}` : ''}`);
    return JSON.stringify(info);
  };

  // A reply body that broke off ends the model stream like a normal end (see
  // bodyBreaks.ts), so the text before the break gets through. That end must
  // not read as a finished reply: its finish becomes the break's error, unless
  // the provider code already reported the cut stream as one.
  let errorSent = false;
  const finishOrBreak = new TransformStream<Chunk, Chunk>({
    transform(part, controller) {
      if (part.type === 'error') errorSent = true;
      if (part.type !== 'finish' || !breaks.broken()) controller.enqueue(part);
      else if (!errorSent) controller.enqueue({ type: 'error', errorText: onError(undefined) });
    },
  });

  // The outer stream turns any other failure of the model stream into an error chunk too.
  const stream = createUIMessageStream<UIMessage<StreamMetadata>>({
    execute({ writer }) {
      writer.merge(
        toUIMessageStream<ToolSet, UIMessage<StreamMetadata>>({
          stream: result.stream,
          sendReasoning: true,
          messageMetadata: ({ part }) => {
            if (part.type === 'start') return { model: modelId, provider: resolved.providerLabel };
            if (part.type === 'finish') {
              return {
                model: modelId,
                provider: resolved.providerLabel,
                finishReason: part.finishReason as FinishReason,
                ...toUsage(part.totalUsage),
                durationMs: Date.now() - started,
              };
            }
            return undefined;
          },
          onError,
        }).pipeThrough(finishOrBreak),
      );
    },
    onError,
  });

  return createUIMessageStreamResponse({ stream, headers: { 'cache-control': 'no-store' } });
}

export async function handleChat(request: Request, deps: ServerDeps): Promise<Response> {
  const body = await readJsonBody(request, CHAT_BODY_LIMIT);
  if (!body.ok) return badRequest(body.message, body.status);
  const parsed = chatRequestSchema.safeParse(body.value);
  if (!parsed.success) return badRequest(describeZodError(parsed.error));
  const req = parsed.data;
  const config = readServerConfig(deps.env);

  const ref = req.model ? parseModelId(req.model) : (config.defaultModel ?? null);
  if (!ref) return badRequest(req.model ? `Unknown model id "${req.model}": expected provider:model with provider one of ${PROVIDER_IDS.join(', ')}.` : 'No model given and DEFAULT_MODEL is not set.');

  const messages = contextToModelMessages(req.context);
  if (!messages.length) return badRequest('The context has nothing to send: every message in it is empty.');

  return runModel({
    request,
    deps,
    config,
    ref,
    client: req.client,
    route: 'api/chat',
    system: req.system,
    messages,
    maxOutputTokens: req.maxOutputTokens,
    temperature: req.temperature,
  });
}

export async function handleSummarize(request: Request, deps: ServerDeps): Promise<Response> {
  const body = await readJsonBody(request, SUMMARIZE_BODY_LIMIT);
  if (!body.ok) return badRequest(body.message, body.status);
  const parsed = summarizeRequestSchema.safeParse(body.value);
  if (!parsed.success) return badRequest(describeZodError(parsed.error));
  const req = parsed.data;
  const config = readServerConfig(deps.env);

  const named = req.summarizerModel ?? req.model;
  const namedRef = named ? parseModelId(named) : null;
  if (named && !namedRef) return badRequest(`Unknown model id "${named}": expected provider:model.`);
  const ref = (req.summarizerModel ? namedRef : null) ?? config.summarizerModel ?? namedRef ?? config.defaultModel ?? null;
  if (!ref) return badRequest('No model to summarise with: pass model, or set SUMMARIZER_MODEL or DEFAULT_MODEL on the server.');

  // Credentials typed for one provider must not travel to another when the server substitutes SUMMARIZER_MODEL.
  const client = namedRef && qualifierOf(namedRef) === qualifierOf(ref) ? req.client : undefined;

  return runModel({
    request,
    deps,
    config,
    ref,
    client,
    route: 'api/summarize',
    system: req.system,
    messages: [{ role: 'user', content: req.prompt }],
    maxOutputTokens: req.maxOutputTokens,
    // Summaries should be reproducible, not creative.
    temperature: 0,
  });
}
