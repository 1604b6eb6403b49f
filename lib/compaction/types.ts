import type { ChatMessage, CompactionSettings, EntryId, SummaryDetails } from '@/lib/session/types';

/**
 * One unit of conversation handed to a summarizer. Plain data only: a
 * preparation crosses the worker boundary by structured clone.
 */
export type SummaryItem =
  | { kind: 'message'; entryId: EntryId; message: ChatMessage }
  /** A branch summary met on the path: summarised like any message (its own summary is not re-used as "previous"). */
  | { kind: 'branchSummary'; entryId: EntryId; summary: string }
  /** A compaction met inside an abandoned branch (branch summaries only): its text stands for what it replaced. */
  | { kind: 'compactionSummary'; entryId: EntryId; summary: string };

/** Files touched by tool calls, as sorted lists. A file that was read and later modified is in `modifiedFiles` only. */
export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Why `prepareCompaction` had nothing to do; shown by the preview. */
export type NoCompactionReason =
  /** The path holds no messages. */
  | 'empty'
  /** The newest context entry is a compaction already: compacting again would only re-summarise its kept tail. */
  | 'already-compacted'
  /** Everything since the last compaction fits inside keep-recent; nothing would be summarised. */
  | 'below-keep-recent'
  /** No user/assistant message lies between the previous kept start and any valid cut. */
  | 'nothing-to-summarize'
  /**
   * The context is over the compaction limit and no cut can bring it under:
   * the newest turn alone leaves no room for a summary (a very long message).
   */
  | 'recent-too-large';

/** The one output budget of a compaction (lib/compaction/summaryBudget.ts). */
export interface SummaryBudget {
  /** maxOutputTokens of the history summary; 0 when no new history is summarised. */
  history: number;
  /** maxOutputTokens of the turn-prefix summary; 0 for a clean cut. */
  turnPrefix: number;
  /** Tokens of what is kept as it was: the previous summary when only a turn prefix is new (the history part then is that summary). */
  carried: number;
  /** The user-messages section appended to a model summary (CompactionPreparation.userMessages), its join included; the model shares what it leaves. */
  userMessages: number;
  /** Framing, divider and file lists around the model's text. */
  fixed: number;
  /** Upper bound of the compaction entry's tokens in context. */
  total: number;
}

export interface CompactionPreparation {
  /** Leaf the preparation was computed at; the caller must not append if the leaf has moved since. */
  leafId: EntryId;
  /**
   * First entry the model keeps seeing verbatim (always a user or assistant
   * message). When `keepsNothing`, the compaction itself is that entry, and its
   * caller names it (a regeneration: the compaction's id; a new compaction: the
   * id it is appended with); until then this is the path's last entry.
   */
  firstKeptEntryId: EntryId;
  /** Index of `firstKeptEntryId` in the path; `path.length` when nothing is kept. */
  firstKeptIndex: number;
  /** Everything up to the leaf is summarised and nothing is kept verbatim (keep-recent 0 on a conversation at rest). */
  keepsNothing: boolean;
  /**
   * Index where the summarised region starts: the previous compaction's
   * firstKept index (its kept messages are summarised now, pi PR 1585), or 0.
   */
  summarizeFromIndex: number;
  /** The cut fell inside a turn: `turnPrefixMessages` got a summary of their own. */
  isSplitTurn: boolean;
  /** Index of the user message that opened the split turn; null for a clean cut. */
  turnStartIndex: number | null;
  /** History to summarise, oldest first (excludes the turn prefix). */
  messagesToSummarize: SummaryItem[];
  /** The start of the split turn, from its user message up to the cut. */
  turnPrefixMessages: SummaryItem[];
  /** Context size now (caller's figure when given, else from the path's token counts). */
  tokensBefore: number;
  /** Tokens of what stays verbatim after the cut. */
  tokensKept: number;
  /** Tokens of `messagesToSummarize` (path counts). */
  tokensSummarized: number;
  /** Tokens of `turnPrefixMessages` (path counts). */
  tokensTurnPrefix: number;
  /** Tokens of the previous summary that this one replaces (0 without one). */
  previousSummaryTokens: number;
  /** Tokens of the pinned messages before the cut (and their calls' results), carried verbatim after the summary. */
  tokensPinned: number;
  /** Those entries, in path order. */
  pinnedEntryIds: EntryId[];
  /** Upper bound of the context after compaction: kept and pinned tokens plus the bound of the summary entry (summaryBudget.total). */
  estimatedTokensAfter: number;
  /** The one output budget of this compaction, split between the history and a split turn's prefix. */
  summaryBudget: SummaryBudget;
  /** The user-messages section every model summary of this compaction ends with, decided with the budget ('' when none fits). */
  userMessages: string;
  /** Effective text of the compaction in effect (after revisions; undone ones skipped), file footer included. */
  previousSummary: string | null;
  previousCompactionId: EntryId | null;
  /** Cumulative file operations: previous compaction's details + branch summaries + tool calls summarised now. */
  fileOps: FileLists;
  firstSummarizedEntryId: EntryId | null;
  /** Entries whose content goes into this summary (history + turn prefix). */
  summarizedEntryCount: number;
  /** The keep-recent budget actually used (after force / window clamping). */
  keepRecentTokens: number;
  force: boolean;
  settings: CompactionSettings;
}

// ---------------------------------------------------------------- summary plans

export type SummaryPurpose = 'compaction' | 'turn-prefix' | 'chunk' | 'branch' | 'self-check';

/** One summarizer request, fully decided except for the text of a chained previous summary. */
export interface PlanStep {
  purpose: SummaryPurpose;
  system: string;
  /**
   * Where the previous-summary block comes from: the plan's `previousSummary`
   * ('input'), the output of the step before ('chain'), or nowhere ('none').
   */
  previous: 'none' | 'input' | 'chain';
  /** Serialized transcript, placed inside <conversation> tags at run time. */
  transcript: string;
  /** Task text that follows the transcript. */
  instructions: string;
  maxOutputTokens: number;
  /** Entries that went into this step's transcript. */
  entryIds: EntryId[];
  /** Items that had to be cut to fit the window. */
  truncatedItems: number;
  /** Planner's upper bound for system + prompt tokens (a chained summary counted at maxOutputTokens). */
  inputTokens: number;
}

export interface SummaryPlan {
  kind: 'compaction' | 'branch';
  /** Sequential steps for the history; each step after the first updates the summary of the one before. */
  history: PlanStep[];
  /** Sequential steps for the turn prefix of a split turn (empty otherwise). */
  turnPrefix: PlanStep[];
  /** Previous summary without its file footer (the footer is rebuilt from `fileOps`). */
  previousSummary: string | null;
  fileOps: FileLists;
  /** File-operations footer appended to the model's text. */
  footer: string;
  customInstructions?: string;
  window: number;
  maxOutputTokens: number;
  /** Things the planner had to give up on (e.g. a previous summary cut to fit), for the UI. */
  warnings: string[];
}

// ---------------------------------------------------------------- results and hooks

export interface CompactionResult {
  /** Final text to store: summary plus file footer. */
  summary: string;
  firstKeptEntryId: EntryId;
  /** Nothing is kept verbatim: the entry appended must name itself as its first kept entry (see compactionEntryFrom). */
  keepsNothing?: true;
  tokensBefore: number;
  estimatedTokensAfter: number;
  details: SummaryDetails;
  /** Leaf the preparation was made at; append only if it is still the leaf. */
  leafId: EntryId;
  /** Problems the user should hear about that did not stop the summary (a before-hook that threw and was skipped). */
  warnings?: string[];
}

export type MaybePromise<T> = T | Promise<T>;

/** What a before-hook may answer: skip the whole thing, or provide the summary itself (no LLM call). */
export type BeforeSummaryDecision =
  | { cancel: true }
  | { summary: string; details?: Partial<Pick<SummaryDetails, 'readFiles' | 'modifiedFiles' | 'usage'>>; name?: string }
  | void
  | undefined;

export interface CompactionHooks {
  /** Name shown as `summarizer: { kind: 'hook', name }` when the hook supplies the summary. */
  name?: string;
  beforeCompact?(prep: CompactionPreparation, ctx: { signal?: AbortSignal }): MaybePromise<BeforeSummaryDecision>;
  afterCompact?(result: CompactionResult): MaybePromise<void>;
}
