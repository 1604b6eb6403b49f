import { z } from 'zod';
import { MAX_PROJECT_CHARS, MAX_TAG_CHARS, MAX_TAGS } from './organize';
import type { SessionEntry, SessionMeta } from './types';

/**
 * Runtime validation of the domain types, used wherever data crosses a
 * boundary: the app's own JSONL on import, and the bodies the API routes accept.
 * Objects are loose on purpose (unknown keys survive), so files written by a
 * newer version still import.
 */

const text = z.object({ type: z.literal('text'), text: z.string() });
const image = z.object({
  type: z.literal('image'),
  mimeType: z.string(),
  data: z.string().optional(),
  url: z.string().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
  byteLength: z.number().optional(),
});
const file = z.object({
  type: z.literal('file'),
  name: z.string(),
  mimeType: z.string(),
  byteLength: z.number(),
  text: z.string().optional(),
});
const thinking = z.object({ type: z.literal('thinking'), thinking: z.string(), redacted: z.boolean().optional() });
const toolCall = z.object({
  type: z.literal('toolCall'),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

export const usageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number().optional(),
  cacheWrite: z.number().optional(),
  totalTokens: z.number().optional(),
  cost: z.number().optional(),
});

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.array(z.discriminatedUnion('type', [text, image, file])) }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [text, thinking, toolCall])),
    model: z.string().optional(),
    usage: usageSchema.optional(),
    stopReason: z.enum(['stop', 'length', 'toolUse', 'error', 'aborted', 'interrupted']).optional(),
    errorMessage: z.string().optional(),
    status: z.enum(['streaming', 'complete']).optional(),
  }),
  z.looseObject({
    role: z.literal('toolResult'),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.array(z.discriminatedUnion('type', [text, image])),
    isError: z.boolean(),
  }),
]);

const summarizerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('model'), model: z.string() }),
  z.object({ kind: z.literal('extractive') }),
  z.object({ kind: z.literal('hook'), name: z.string() }),
  z.object({ kind: z.literal('imported'), source: z.string() }),
]);

export const summaryDetailsSchema = z.looseObject({
  readFiles: z.array(z.string()),
  modifiedFiles: z.array(z.string()),
  summarizer: summarizerSchema,
  durationMs: z.number().optional(),
  usage: usageSchema.optional(),
  customInstructions: z.string().optional(),
  isSplitTurn: z.boolean().optional(),
  firstSummarizedEntryId: z.string().optional(),
  summarizedEntryCount: z.number().optional(),
  tokensSummarized: z.number().optional(),
  summaryTokens: z.number().optional(),
  fallback: z.object({ model: z.string(), reason: z.enum(['empty', 'length', 'larger', 'echo', 'unstructured']), attempts: z.number() }).optional(),
  selfCheck: z.object({ usage: usageSchema.optional(), patched: z.boolean() }).optional(),
});

const tokenCache = z.object({ v: z.number(), o200k: z.number(), cl100k: z.number().optional(), chars4: z.number() });

const base = {
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  timestamp: z.number(),
  tokens: tokenCache.optional(),
};

export const sessionEntrySchema = z.discriminatedUnion('type', [
  z.looseObject({ ...base, type: z.literal('message'), message: chatMessageSchema }),
  z.looseObject({
    ...base,
    type: z.literal('compaction'),
    summary: z.string(),
    firstKeptEntryId: z.string(),
    tokensBefore: z.number(),
    tokensAfter: z.number().optional(),
    details: summaryDetailsSchema,
  }),
  z.looseObject({ ...base, type: z.literal('branch_summary'), fromId: z.string(), summary: z.string(), details: summaryDetailsSchema }),
  z.looseObject({ ...base, type: z.literal('model_change'), model: z.string() }),
  z.looseObject({ ...base, type: z.literal('label'), targetId: z.string(), label: z.string().nullable() }),
  z.looseObject({
    ...base,
    type: z.literal('summary_revision'),
    targetId: z.string(),
    action: z.enum(['regenerate', 'edit', 'undo', 'redo']),
    summary: z.string().optional(),
    details: summaryDetailsSchema.partial().optional(),
  }),
  z.looseObject({ ...base, type: z.literal('custom'), customType: z.string(), data: z.unknown().optional(), display: z.string().optional() }),
  z.looseObject({ ...base, type: z.literal('pin'), targetId: z.string(), pinned: z.boolean() }),
  z.looseObject({
    ...base,
    type: z.literal('tool_mask'),
    maskedIds: z.array(z.string()),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    protectTokens: z.number(),
  }),
]);

export const compactionSettingsSchema = z.object({
  enabled: z.boolean(),
  reserveTokens: z.number().int().min(0),
  keepRecentTokens: z.number().int().min(0),
  thresholdPercent: z.number().min(0).max(1).optional(),
  toolResultMaxChars: z.number().int().min(0),
  selfCheck: z.boolean().optional(),
  maskToolOutput: z.boolean().optional(),
  maskProtectTokens: z.number().int().min(0).optional(),
  reviewBeforeApply: z.boolean().optional(),
});

export const sessionMetaSchema = z.looseObject({
  id: z.string().min(1),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  leafId: z.string().nullable(),
  model: z.string().optional(),
  systemPrompt: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().max(1_000_000).optional(),
  compaction: compactionSettingsSchema.partial().optional(),
  source: z
    .object({
      format: z.string(),
      fileName: z.string().optional(),
      hash: z.string().optional(),
      originalId: z.string().optional(),
      entries: z.number().int().nonnegative().optional(),
      entriesHash: z.string().optional(),
    })
    .optional(),
  cwd: z.string().optional(),
  undated: z.boolean().optional(),
  continuedFrom: z
    .object({
      sessionId: z.string().min(1),
      entryId: z.string().min(1),
      title: z.string(),
      origin: z.object({ hash: z.string(), originalId: z.string().optional() }).optional(),
    })
    .optional(),
  project: z.string().max(MAX_PROJECT_CHARS).optional(),
  tags: z.array(z.string().min(1).max(MAX_TAG_CHARS)).max(MAX_TAGS).optional(),
  archived: z.boolean().optional(),
  pinned: z.boolean().optional(),
});

// Compile-time check that the schemas and the hand-written types agree.
type Assert<T extends true> = T;
type _EntrySchemaMatches = Assert<z.infer<typeof sessionEntrySchema> extends SessionEntry ? true : false>;
type _MetaSchemaMatches = Assert<z.infer<typeof sessionMetaSchema> extends SessionMeta ? true : false>;
