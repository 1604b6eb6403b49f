import { BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX } from '@/lib/providers/modelMessages';
import type { ChatMessage, FilePart, ImagePart, SessionEntry } from '@/lib/session/types';

/**
 * What one entry shows the model, reduced to what a token counter needs.
 *
 * This is the single definition of "the text of an entry" for counting: the
 * exact counter (exact.ts, worker only), the chars/4 baseline and the cheap
 * heuristic (estimate.ts) all read it, so they measure the same thing and
 * their differences are differences of method, never of input.
 *
 * Pure: no tokenizer here, the UI may import it.
 */

/**
 * Bump whenever what is counted, or how, changes: every cached TokenCache with
 * another version is recounted by the worker on the next load.
 */
export const TOKEN_CACHE_VERSION = 1;

/**
 * Tokens the OpenAI chat format wraps around each message: `<|im_start|>`,
 * the role (one token for user / assistant / tool / system), `<|im_sep|>` and
 * `<|im_end|>`. gpt-tokenizer's encodeChat produces exactly this framing.
 */
export const MESSAGE_OVERHEAD = 4;

/**
 * A function call inside an assistant message costs its name, its JSON
 * arguments and some metadata; 3 is the metadata figure OpenAI's cookbook and
 * gpt-tokenizer's function-calling counter use.
 */
export const TOOL_CALL_OVERHEAD = 3;

/** Every request ends with `<|im_start|>assistant<|im_sep|>` to prime the reply. */
export const REPLY_PRIMING = 3;

export interface CountingInput {
  /** Text as the model receives it, one piece per content part (counted piece by piece). */
  pieces: string[];
  /** Chat messages this entry becomes: 0 or 1. Each costs MESSAGE_OVERHEAD. */
  messages: number;
  /** Tool calls, each costing TOOL_CALL_OVERHEAD besides its name and arguments. */
  toolCalls: number;
  /** Parts whose cost comes from the provider's size formula, not the tokenizer. */
  media: (ImagePart | FilePart)[];
}

const EMPTY: CountingInput = Object.freeze({ pieces: [], messages: 0, toolCalls: 0, media: [] }) as CountingInput;

/*
 * How summaries reach the model: as a user message with the preamble the
 * request builder (lib/providers/modelMessages.ts) puts before them. The
 * prefixes are imported from there so the count is of what is sent; if that
 * wrapper changes shape, bump TOKEN_CACHE_VERSION.
 */
export function compactionSummaryText(summary: string): string {
  return `${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n${summary.trim()}\n</summary>`;
}

export function branchSummaryText(summary: string): string {
  return `${BRANCH_SUMMARY_PREFIX}\n\n<summary>\n${summary.trim()}\n</summary>`;
}

export function summaryText(kind: 'compaction' | 'branch_summary', summary: string): string {
  return kind === 'compaction' ? compactionSummaryText(summary) : branchSummaryText(summary);
}

/** The same rule as buildSessionContext: a failed turn that produced nothing is not sent. */
function isEmptyFailedReply(m: ChatMessage): boolean {
  return m.role === 'assistant' && m.content.length === 0 && (m.stopReason === 'error' || m.stopReason === 'aborted' || m.stopReason === 'interrupted');
}

function messageInput(m: ChatMessage): CountingInput {
  if (isEmptyFailedReply(m)) return EMPTY;
  const pieces: string[] = [];
  const media: (ImagePart | FilePart)[] = [];
  let toolCalls = 0;
  for (const p of m.content) {
    switch (p.type) {
      case 'text':
        pieces.push(p.text);
        break;
      case 'thinking':
        // Redacted reasoning is an opaque provider blob: its length says nothing about tokens.
        if (!p.redacted) pieces.push(p.thinking);
        break;
      case 'toolCall':
        toolCalls++;
        pieces.push(p.name, JSON.stringify(p.arguments ?? {}));
        break;
      case 'image':
        media.push(p);
        break;
      case 'file':
        if (p.text !== undefined) pieces.push(p.text);
        else media.push(p);
        break;
    }
  }
  return { pieces, messages: 1, toolCalls, media };
}

/**
 * The counting input of an entry. Labels, model changes, custom records and
 * summary revisions show the model nothing of their own (a revision's text is
 * counted for the summary it revises; see PathTokenIndex).
 */
export function countingInput(entry: SessionEntry): CountingInput {
  switch (entry.type) {
    case 'message':
      return messageInput(entry.message);
    case 'compaction':
      return { pieces: [compactionSummaryText(entry.summary)], messages: 1, toolCalls: 0, media: [] };
    case 'branch_summary':
      return { pieces: [branchSummaryText(entry.summary)], messages: 1, toolCalls: 0, media: [] };
    default:
      return EMPTY;
  }
}

/** Framing tokens of an input: per message and per tool call. Independent of the encoding. */
export function framingTokens(input: CountingInput): number {
  return input.messages * MESSAGE_OVERHEAD + input.toolCalls * TOOL_CALL_OVERHEAD;
}

export function countingChars(input: CountingInput): number {
  let n = 0;
  for (const p of input.pieces) n += p.length;
  return n;
}

/** pi's estimate: characters / 4, rounded up, on the same text (no framing, no media). */
export function chars4(input: CountingInput): number {
  return Math.ceil(countingChars(input) / 4);
}

/**
 * What the worker needs to count an entry: its text pieces and framing, no
 * object graph. Extracting it is cheap and tokenizer-free, so the main thread
 * can send these instead of whole entries: cloning strings across threads
 * costs a fraction of cloning entries (ids, usage, tool-call objects...),
 * and that clone is the worker's only serial overhead.
 */
export interface CountingPayload {
  pieces: string[];
  framing: number;
}

export function countingPayload(entry: SessionEntry): CountingPayload {
  const input = countingInput(entry);
  return { pieces: input.pieces, framing: framingTokens(input) };
}

/**
 * Only the media parts of an entry: what countingInput(entry).media holds,
 * without building the text pieces (no JSON.stringify of tool arguments).
 */
export function mediaParts(entry: SessionEntry): (ImagePart | FilePart)[] {
  if (entry.type !== 'message' || isEmptyFailedReply(entry.message)) return [];
  let out: (ImagePart | FilePart)[] | null = null;
  for (const p of entry.message.content) {
    if (p.type === 'image' || (p.type === 'file' && p.text === undefined)) (out ??= []).push(p);
  }
  return out ?? [];
}
