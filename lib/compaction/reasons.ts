import { formatCount } from '@/lib/format/numbers';
import type { PendingAtEnd } from './cutPoint';
import type { NoCompactionReason } from './types';

/**
 * Said (on its card, and when asked to regenerate it) of a summary whose
 * history is not in the session: an imported compaction that opens its file,
 * or the first entry of a session continued from another.
 */
export const HISTORY_MISSING = 'The history this summary replaced is not in this session, so it cannot be regenerated.';

/** What is known when a compaction has nothing it can do (a preview that is not ok). */
export interface NoCompactionFacts {
  reason: NoCompactionReason;
  tokensBefore: number;
  keepRecentTokens: number;
  /** The compaction limit of the chat model's window, when one is known. */
  limit?: number;
}

/**
 * Why a compaction did nothing, in words a user can act on: the Compact
 * dialog shows it, and a compaction that was due (over the limit) announces
 * it instead of silently leaving the context as it is.
 */
export function noCompactionMessage(f: NoCompactionFacts): string {
  switch (f.reason) {
    case 'empty':
      return 'Nothing to compact: this session has no messages yet.';
    case 'already-compacted':
      return 'Nothing new to compact: the latest entry is already a compaction. Send a message first, or undo that compaction in the Timeline to compact again differently.';
    case 'below-keep-recent':
      return `Nothing to compact yet: everything since the last compaction fits in the ${formatCount(f.keepRecentTokens)} tokens kept word for word. Lower “Keep recent” (e.g. to 1 turn) in the Compact dialog, or “Keep recent tokens” in Settings for automatic compaction, to summarise more.`;
    case 'nothing-to-summarize':
      return 'Nothing to compact: there is no complete message before the recent part that is kept word for word. Lower “Keep recent” (e.g. to 1 turn) in the Compact dialog, or “Keep recent tokens” in Settings for automatic compaction, to summarise more.';
    case 'recent-too-large': {
      const over = f.limit !== undefined ? `The context (${formatCount(f.tokensBefore)} tokens) is over the compaction limit (${formatCount(f.limit)}), and` : 'The context is over the compaction limit, and';
      return `${over} compacting cannot bring it under: the newest messages since the last compaction are too large to keep next to a summary (usually one very long message or tool result). Shorten or split that message, continue in a new session from an earlier message, or switch to a model with a larger context window.`;
    }
  }
}

/**
 * Why a compaction with "Keep recent" 0 still keeps the end of the
 * conversation (the Compact dialog says it next to what is kept): what is
 * waiting for the model's answer stays word for word (cutPoint.ts says why).
 */
export function keptAnywayMessage(why: Exclude<PendingAtEnd, null>): string {
  return why === 'unanswered-prompt'
    ? 'Keep recent is 0, but the last message has not been answered yet: it stays word for word, so that the next reply answers it and not a summary of it.'
    : 'Keep recent is 0, but the model is in the middle of a turn: its last tool calls and their results stay word for word, since its next step answers them and a tool result cannot be sent without the call that asked for it.';
}
