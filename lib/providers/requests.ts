import { z } from 'zod';
import { chatMessageSchema, usageSchema } from '@/lib/session/schema';
import type { Usage } from '@/lib/session/types';
import { PROVIDER_IDS, type ProviderId } from './descriptors';
import { INSTANCE_ID, MAX_MODEL_ID_LENGTH } from './modelId';

/**
 * Bodies of POST /api/chat and POST /api/summarize, and the metadata the
 * streams carry back. Shared by the routes (validation) and the client
 * (types, and parsing the metadata it receives).
 */

const clientFields = {
  apiKey: z.string().max(4096).optional(),
  baseUrl: z.string().max(2048).optional(),
};

const clientSchema = z
  .object({
    /** The browser-entered provider these belong to (the "@id" of its model ids); absent in the older form, a key or base URL for the server's provider. */
    instance: z.string().regex(INSTANCE_ID).optional(),
    /** Its name, for messages. */
    label: z.string().max(100).optional(),
    ...clientFields,
  })
  .strict();

/** A provider's key or base URL from this browser's Settings, sent along with the request that uses it. */
export type ClientCredentials = z.infer<typeof clientSchema>;

/** POST /api/models: list one browser-entered provider's models through this server. */
export const listProviderRequestSchema = z
  .object({
    provider: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]),
    instance: z.string().regex(INSTANCE_ID),
    label: z.string().trim().min(1).max(100),
    ...clientFields,
  })
  .strict();

export type ListProviderRequest = z.infer<typeof listProviderRequestSchema>;

const contextItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), entryId: z.string(), message: chatMessageSchema }),
  z.object({ kind: z.literal('compactionSummary'), entryId: z.string(), summary: z.string(), tokensBefore: z.number() }),
  z.object({ kind: z.literal('branchSummary'), entryId: z.string(), summary: z.string(), fromId: z.string() }),
]);

const modelIdSchema = z.string().trim().min(1).max(MAX_MODEL_ID_LENGTH);

export const chatRequestSchema = z
  .object({
    /** Qualified "provider:model"; DEFAULT_MODEL when absent. */
    model: modelIdSchema.optional(),
    system: z.string().max(1_000_000).optional(),
    context: z.array(contextItemSchema).min(1, 'context must contain at least one item'),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    client: clientSchema.optional(),
  })
  .strict();

export const summarizeRequestSchema = z
  .object({
    /** The session's chat model, used when neither summarizerModel nor SUMMARIZER_MODEL names one. */
    model: modelIdSchema.optional(),
    /** An explicit summarizer choice from the client's settings; wins over SUMMARIZER_MODEL. */
    summarizerModel: modelIdSchema.optional(),
    system: z.string().min(1).max(200_000),
    prompt: z.string().min(1),
    maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
    client: clientSchema.optional(),
  })
  .strict();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type SummarizeRequest = z.infer<typeof summarizeRequestSchema>;

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';

/** Message metadata on the UI stream: the model at `start`, everything at `finish`. */
export interface StreamMetadata {
  /** Qualified id of the model that answered. */
  model: string;
  provider?: string;
  finishReason?: FinishReason;
  usage?: Usage;
  /** Input tokens including cache reads/writes: what occupied the context window. */
  contextTokens?: number;
  durationMs?: number;
}

export const streamMetadataSchema = z.looseObject({
  model: z.string(),
  provider: z.string().optional(),
  finishReason: z.enum(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other']).optional(),
  usage: usageSchema.optional(),
  contextTokens: z.number().optional(),
  durationMs: z.number().optional(),
});

export function describeZodError(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`);
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : '';
  return `Invalid request body: ${issues.join('; ')}${more}`;
}
