import type { SessionEntry, SessionMeta } from '@/lib/session/types';

/**
 * What the sync engine needs from this device's storage (implemented by
 * lib/db/sync.ts over IndexedDB). Everything here is local: the checkpoint,
 * the clock, the outbox marks and the status are never synced themselves.
 */

/** A device's membership of a space. The words are kept so any device can show the code to add another. */
export interface SpaceConfig {
  spaceId: string;
  words: string;
  deviceId: string;
  /** The secret this device authenticates with; the server keeps only its SHA-256. */
  deviceToken: string;
  deviceName: string;
  joinedAt: number;
}

export type MetaFields = Omit<SessionMeta, 'id'>;

export interface OutboxBatch {
  /** Sessions whose metadata changed since it was last pushed (deleted ones as tombstones: meta null). */
  sessions: { sessionId: string; hlc: string; meta: MetaFields | null }[];
  /** Entries not yet pushed, oldest first, replies still streaming left out. */
  entries: { sessionId: string; entry: SessionEntry; /** The store's own key for the row, to mark it cheaply. */ localKey?: number }[];
}

export type RemoteChange =
  | { kind: 'entry'; sessionId: string; entry: SessionEntry }
  /** meta null: the session was deleted. */
  | { kind: 'session'; sessionId: string; hlc: string; meta: MetaFields | null };

export type SyncState = 'off' | 'synced' | 'syncing' | 'offline' | 'error';

export interface SyncStatus {
  state: SyncState;
  /** Entries and session changes waiting to be sent. */
  pending: number;
  /** Receiving a backlog: records received of the backlog there was when it started. */
  incoming: { done: number; total: number } | null;
  lastSyncAt: number | null;
  /** The reason, in a sentence, when state is `error` (or a warning that did not stop sync, such as refused records). */
  message: string | null;
  /** Records that failed their integrity check and were not applied, since joining. */
  rejected: number;
}

export const OFF_STATUS: SyncStatus = { state: 'off', pending: 0, incoming: null, lastSyncAt: null, message: null, rejected: 0 };

export interface SyncLocalStore {
  loadSpace(): Promise<SpaceConfig | null>;
  /** Joins: stores the space, resets the checkpoint, and marks everything stored here to be pushed (a set union with the space). */
  saveSpace(space: SpaceConfig): Promise<void>;
  /** Leaves: forgets the space and the checkpoint; sessions stay on this device. */
  forgetSpace(): Promise<void>;
  checkpoint(): Promise<number>;
  /** The next batch to push, at most `maxRecords` records and about `maxBytes` of content. */
  outbox(limits: { maxRecords: number; maxBytes: number }): Promise<OutboxBatch>;
  /** Marks a pushed batch as synced; anything changed since it was read stays pending. */
  markPushed(batch: OutboxBatch): Promise<void>;
  pendingCount(): Promise<number>;
  /**
   * Applies pulled changes in one transaction, and moves the checkpoint (unless null).
   * Entries are added as a set union (never rewriting a stored one); session metadata
   * wins by clock. Resolves with the sessions that came back from deletion here and
   * whose entries must be fetched again.
   */
  applyRemote(changes: RemoteChange[], checkpoint: number | null): Promise<{ revived: string[] }>;
  readStatus(): Promise<SyncStatus>;
  writeStatus(status: SyncStatus): Promise<void>;
  /** Calls back whenever the outbox may have changed (a write in any tab), or the space did (joined or left in another tab). */
  watchOutbox(onChange: () => void): () => void;
}
