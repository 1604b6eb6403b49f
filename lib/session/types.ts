/**
 * The session domain: an append-only tree of entries.
 *
 * Every entry has an id and the id of its parent; the active conversation is the
 * path from the root to the session's leaf. Nothing is rewritten by compaction:
 * a compaction is itself an entry, and the context the model sees is rebuilt by
 * walking the path (see context.ts). This follows pi's v3 session format in
 * spirit (id / parentId on every entry, firstKeptEntryId on compactions), with
 * two additions of our own: `summary_revision` (regenerate / edit / undo a
 * summary without touching the original entry) and `custom` (imported records
 * that have no place in the model's context but must survive a round trip).
 */

export type EntryId = string;

/** Milliseconds since the epoch. Stored as a number so it sorts and diffs cheaply. */
export type Timestamp = number;

// ---------------------------------------------------------------- content parts

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  mimeType: string;
  /** base64 without a data: prefix. Absent when the source only referenced the image. */
  data?: string;
  /** An external reference when the image was not embedded. */
  url?: string;
  /** Pixel size when known; token formulas of the providers are based on it. */
  width?: number;
  height?: number;
  /** Decoded size in bytes, for the fallback estimate when dimensions are unknown. */
  byteLength?: number;
}

/** A non-image attachment. Text files carry their text so they can be counted and sent. */
export interface FilePart {
  type: 'file';
  name: string;
  mimeType: string;
  byteLength: number;
  text?: string;
}

export interface ThinkingPart {
  type: 'thinking';
  thinking: string;
  /** Provider-encrypted reasoning we cannot show. */
  redacted?: boolean;
}

export interface ToolCallPart {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type UserContent = TextPart | ImagePart | FilePart;
export type AssistantContent = TextPart | ThinkingPart | ToolCallPart;
export type ToolResultContent = TextPart | ImagePart;

// ---------------------------------------------------------------- messages

export interface Usage {
  /** Input tokens the provider billed, excluding cache reads/writes where it reports them apart. */
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** input + output + cache, as reported or summed. */
  totalTokens?: number;
  /** Cost in USD where the provider (or importer) reports it. */
  cost?: number;
}

/**
 * Why an assistant message ended. `interrupted` means the tab closed or crashed
 * while the reply was streaming: what arrived is kept.
 */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted' | 'interrupted';

export interface UserMessage {
  role: 'user';
  content: UserContent[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContent[];
  /** Qualified model id, "provider:model" (e.g. "openai:gpt-4o"). */
  model?: string;
  usage?: Usage;
  stopReason?: StopReason;
  errorMessage?: string;
  /** `streaming` while a tab is writing it; anything else means final. */
  status?: 'streaming' | 'complete';
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: ToolResultContent[];
  isError: boolean;
}

export type ChatMessage = UserMessage | AssistantMessage | ToolResultMessage;

// ---------------------------------------------------------------- entries

/** Cached token counts of an entry, computed once in the worker. */
export interface TokenCache {
  /** Version of the counting rules; a bump invalidates the cache. */
  v: number;
  o200k: number;
  cl100k?: number;
  /** chars/4 of the same text, kept for the accuracy comparison and the baseline. */
  chars4: number;
}

interface EntryBase {
  id: EntryId;
  parentId: EntryId | null;
  timestamp: Timestamp;
  tokens?: TokenCache;
}

export interface MessageEntry extends EntryBase {
  type: 'message';
  message: ChatMessage;
}

export type SummarizerInfo =
  | { kind: 'model'; model: string }
  | { kind: 'extractive' }
  | { kind: 'hook'; name: string }
  | { kind: 'imported'; source: string };

export interface SummaryDetails {
  readFiles: string[];
  modifiedFiles: string[];
  summarizer: SummarizerInfo;
  durationMs?: number;
  usage?: Usage;
  customInstructions?: string;
  /** The cut fell inside a turn and the turn's prefix got a summary of its own. */
  isSplitTurn?: boolean;
  /** First entry id whose content went into this summary (inclusive), on the path at the time. */
  firstSummarizedEntryId?: EntryId;
  /** Number of entries whose content went into this summary. */
  summarizedEntryCount?: number;
  /** Tokens of what was summarised (branch summaries; compactions have tokensBefore). */
  tokensSummarized?: number;
  /** Tokens the summary occupies in context (branch summaries; compactions have tokensAfter). */
  summaryTokens?: number;
  /** The model's summary was rejected (empty, cut off, or larger than what it replaces) twice; this is the extractive summary instead. */
  fallback?: SummaryFallback;
  /** The optional self-check pass ran: what it cost, and whether it changed the summary. */
  selfCheck?: { usage?: Usage; patched: boolean };
}

export type SummaryFlaw = 'empty' | 'length' | 'larger' | 'echo' | 'unstructured';

export interface SummaryFallback {
  /** The model whose summaries were rejected. */
  model: string;
  /** Why the last attempt was rejected. */
  reason: SummaryFlaw;
  attempts: number;
}

export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  /** First entry the model still sees in full after this compaction. */
  firstKeptEntryId: EntryId;
  tokensBefore: number;
  tokensAfter?: number;
  details: SummaryDetails;
}

export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  /** The leaf of the abandoned branch. */
  fromId: EntryId;
  summary: string;
  details: SummaryDetails;
}

export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  model: string;
}

export interface LabelEntry extends EntryBase {
  type: 'label';
  targetId: EntryId;
  /** null clears the label. */
  label: string | null;
}

/**
 * A later decision about a compaction or branch summary, appended to the path
 * instead of editing the original: a regenerated or edited text, an undo, or a
 * redo. Only revisions on the current path apply, so an undo on one branch
 * leaves the other branches as they were.
 */
export interface SummaryRevisionEntry extends EntryBase {
  type: 'summary_revision';
  targetId: EntryId;
  action: 'regenerate' | 'edit' | 'undo' | 'redo';
  summary?: string;
  details?: Partial<SummaryDetails>;
}

/** A record from an imported file that the model never sees but a round trip must keep. */
export interface CustomEntry extends EntryBase {
  type: 'custom';
  customType: string;
  data?: unknown;
  /** One line shown in the tree and timeline. */
  display?: string;
}

/**
 * Pins a message (or unpins it): a pinned message is never summarised away.
 * Whatever compaction is in effect, it reaches the model verbatim, after the
 * summary and in path order. Appended at the leaf and applied only on the
 * path it is on, like a summary revision, so the context of a path never
 * depends on entries outside it. The latest pin entry for a target wins.
 */
export interface PinEntry extends EntryBase {
  type: 'pin';
  targetId: EntryId;
  pinned: boolean;
}

/**
 * Observation masking: from here on, the model sees these old tool results as
 * a one-line stub instead of their output. The originals stay in their
 * entries (and on screen). Undone and redone like a summary, by a
 * `summary_revision` with action undo / redo targeting it.
 */
export interface ToolMaskEntry extends EntryBase {
  type: 'tool_mask';
  /** Tool result entries whose output the model sees as a stub. */
  maskedIds: EntryId[];
  /** Context before masking and after it, as counted when it was made. */
  tokensBefore: number;
  tokensAfter: number;
  /** The most recent context, in tokens, that was left untouched. */
  protectTokens: number;
}

export type SessionEntry =
  | MessageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | ModelChangeEntry
  | LabelEntry
  | SummaryRevisionEntry
  | CustomEntry
  | PinEntry
  | ToolMaskEntry;

export type EntryType = SessionEntry['type'];

/** An entry before the store gives it an id, parent and timestamp. */
export type NewEntry = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, 'id' | 'parentId' | 'timestamp'> & Partial<Pick<E, 'id' | 'timestamp'>>
    : never
  : never;

// ---------------------------------------------------------------- sessions

export interface CompactionSettings {
  /** Auto-compaction between turns and before sending. */
  enabled: boolean;
  /** Head-room left for the next prompt and reply. */
  reserveTokens: number;
  /** Minimum recent context kept verbatim after the cut. */
  keepRecentTokens: number;
  /** Alternative trigger: compact when context exceeds this fraction of the window (0..1). */
  thresholdPercent?: number;
  /** Tool results are cut to this many characters in the summarizer's input. */
  toolResultMaxChars: number;
  /** After a model summary, one more call checks it for omissions and patches it (costs a second request). Off when absent. */
  selfCheck?: boolean;
  /**
   * Mask old tool output first: before a summary, tool results older than the
   * protected window are shown to the model as one-line stubs (a recorded,
   * undoable entry); the summary runs only when that is not enough.
   * Off by default (docs/compaction.md says why). Absent means off.
   */
  maskToolOutput?: boolean;
  /** The most recent context, in tokens, whose tool output masking leaves alone. Absent: keepRecentTokens. */
  maskProtectTokens?: number;
  /**
   * Review before apply: an automatic compaction prepares its summary and
   * waits for the user to apply, edit or discard it; it applies on its own
   * only once the context no longer fits. Off by default. Absent means off.
   */
  reviewBeforeApply?: boolean;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
  toolResultMaxChars: 2_000,
  selfCheck: false,
  maskToolOutput: false,
  maskProtectTokens: 20_000,
  reviewBeforeApply: false,
};

export interface SessionSource {
  /** Detected import format, e.g. "pi-v1", "claude-code", "chatgpt". */
  format: string;
  fileName?: string;
  /** Content hash of what was imported, to notice the same file twice. */
  hash?: string;
  /**
   * Id the source gave the conversation, when it had one. With `format` it is
   * the session's identity: a later file with the same tool and id is the same
   * session, grown or changed (lib/formats/reimport.ts).
   */
  originalId?: string;
  /** Entries the source has given this session so far (its last import or update): fewer in a later file means part of it is gone. */
  entries?: number;
  /** Hash of those entries as the source gave them (lib/formats/reimport.ts entriesHash): the same in a later file means nothing of this session changed. */
  entriesHash?: string;
}

/**
 * Where a session that was continued from another one came from ("Continue in
 * new session"). Every import gives a session a new id, so the link also
 * carries what survives one: a session made here keeps its old id as
 * `source.originalId` when its export is imported, and a session that was
 * itself imported keeps its `source` (hash and original id), copied here as
 * `origin`. Entry ids never change. The title names the source where it is
 * not in this browser.
 */
export interface ContinuedFrom {
  sessionId: string;
  /** The entry the new session's summary covers up to, inclusive. */
  entryId: EntryId;
  /** The source session's title at the time. */
  title: string;
  /** The source session's own import source, when it was imported from a file. */
  origin?: { hash: string; originalId?: string };
}

export interface SessionMeta {
  id: string;
  title: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** The current position in the tree; null for an empty session. */
  leafId: EntryId | null;
  /** Qualified model id "provider:model". */
  model?: string;
  /** Instructions sent with every request of this session; empty or absent: the defaults from Settings. */
  systemPrompt?: string;
  /** Sampling temperature (0–2) of this session's requests; absent: the default. */
  temperature?: number;
  /** Longest reply this session asks for, in tokens; absent: the default (the provider's own when none is set). */
  maxOutputTokens?: number;
  /** Overrides of the global compaction settings for this session. */
  compaction?: Partial<CompactionSettings>;
  source?: SessionSource;
  /** Working directory the transcript came from (coding agents); shown, never used. */
  cwd?: string;
  /**
   * The imported file recorded no times at all: `createdAt`, `updatedAt` and the
   * entries' timestamps are when it was imported, and the UI says so instead of
   * showing them as the conversation's dates.
   */
  undated?: boolean;
  /** This session continues another one from one of its entries. */
  continuedFrom?: ContinuedFrom;
  /**
   * The project the user put the session in. Absent: the project of an agent
   * session is its working directory (`cwd`); empty: in no project, even with a
   * `cwd` (lib/session/organize.ts projectOf).
   */
  project?: string;
  /** The user's tags, trimmed and without duplicates (organize.ts normalizeTags). */
  tags?: string[];
  /** Out of the session list (still searchable, still synced); absent means not archived. */
  archived?: boolean;
  /** Shown above the other sessions of the list; absent means not pinned. */
  pinned?: boolean;
}

/** A whole session in memory: what importers produce and exporters consume. */
export interface SessionSnapshot {
  meta: SessionMeta;
  entries: SessionEntry[];
}

/** A session as the store lists it: its meta plus the counters the store keeps (entries, write revision). */
export type StoredSession = SessionMeta & {
  entryCount: number;
  /** Write revision of the session's last change; rises with every write, in every tab. */
  rev: number;
};
