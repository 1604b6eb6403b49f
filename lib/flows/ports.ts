import type { ChatStreamResult, ChatTurnRequest, StreamHandlers } from '@/lib/chat/turn';
import type { TextSummarizer } from '@/lib/compaction/summarizer';
import type { SpanMessage } from '@/lib/compaction/probes/probes';
import type { ProbeReport } from '@/lib/compaction/probes/report';
import type { PendingSummary } from '@/lib/compaction/pending';
import type { ExportKind } from '@/lib/formats/service';
import type { SearchService } from '@/lib/search/service';
import type { ImportResult } from '@/lib/formats/types';
import type { ProviderListingResponse } from '@/lib/providers/listing';
import type { BrowserProvider } from '@/lib/providers/browserProviders';
import type { AppSettings } from '@/lib/settings/appSettings';
import type { Calibration } from '@/lib/tokens/calibration';
import type { TokensService } from '@/lib/sessionTokens/service';
import type { EntryId, NewEntry, SessionEntry, SessionMeta, SessionSnapshot, StoredSession, TokenCache } from '@/lib/session/types';
import type { SyncService } from '@/lib/sync/service';
import type { OrganizeChange } from '@/lib/session/organize';

/**
 * What the flows need from the world, as interfaces. The browser wires IndexedDB
 * (lib/db), the workers, fetch to the app's own routes, Web Locks and toasts in
 * (lib/browser/ports.ts); unit tests wire fake-indexeddb, the token service on
 * the same thread and scripted transports. The flows never know which.
 */

export type Unsubscribe = () => void;

/** Sessions and entries as the store keeps them. Every write is one transaction: it lands whole or not at all. */
export interface SessionStore {
  createSession(init?: Partial<SessionMeta>): Promise<StoredSession>;
  getSession(id: string): Promise<StoredSession | undefined>;
  loadSession(id: string): Promise<{ row: StoredSession; entries: SessionEntry[] } | null>;
  /** Entries written after revision `rev`, parents before children, and the newest revision among them. */
  entriesChangedSince(id: string, rev: number): Promise<{ entries: SessionEntry[]; rev: number }>;
  /** Calls back with the session row now and after every change to it (any tab); undefined once it is deleted. */
  watchSession(id: string, onRow: (row: StoredSession | undefined) => void, onError: (err: unknown) => void): Unsubscribe;
  appendEntries(sessionId: string, parentId: EntryId | null, entries: NewEntry[], opts?: { moveLeaf?: boolean }): Promise<SessionEntry[]>;
  updateEntry(sessionId: string, entryId: EntryId, update: (e: SessionEntry) => SessionEntry): Promise<SessionEntry>;
  updateSession(id: string, patch: Partial<Pick<SessionMeta, 'title' | 'model' | 'systemPrompt' | 'temperature' | 'maxOutputTokens' | 'compaction' | 'leafId'>>): Promise<void>;
  renameSession(id: string, title: string): Promise<void>;
  /** Renames only if the title is still `expected` (an automatic title never replaces one the user typed); resolves with whether it did. */
  retitleSession(id: string, expected: string, title: string): Promise<boolean>;
  deleteSession(id: string): Promise<void>;
  /** Deletes these sessions in one transaction; resolves with how many were there. */
  deleteSessions(ids: readonly string[]): Promise<number>;
  /** Projects, tags, archive and pins of many sessions at once (lib/session/organize.ts); resolves with how many changed. */
  organizeSessions(ids: readonly string[], change: OrganizeChange): Promise<number>;
  /** Every session of project `from` moves to `to`; resolves with how many. */
  renameProject(from: string, to: string): Promise<number>;
  /** The named sessions whole, in the order given. */
  exportSnapshots(ids: readonly string[]): Promise<SessionSnapshot[]>;
  listSessions(search?: string): Promise<StoredSession[]>;
  /** `fileName` names the file the snapshots came from: sessions without a source of their own are deduplicated by content then. */
  importSnapshots(snapshots: SessionSnapshot[], opts?: { allowDuplicates?: boolean; fileName?: string }): Promise<ImportOutcome>;
  exportSnapshot(id: string): Promise<SessionSnapshot | null>;
  exportAllSnapshots(): Promise<SessionSnapshot[]>;
  setEntryTokens(sessionId: string, tokens: ReadonlyArray<{ id: EntryId; tokens: TokenCache }>): Promise<void>;
  getCalibration(model: string): Promise<Calibration | undefined>;
  setCalibration(model: string, value: Calibration): Promise<void>;
  loadAppSettings(): Promise<AppSettings>;
  saveAppSettings(patch: Partial<AppSettings>): Promise<void>;
  /** The providers entered in this browser (Settings → Providers), keys included. */
  loadBrowserProviders(): Promise<BrowserProvider[]>;
  /** Adds the provider, or replaces the one with its id. */
  saveBrowserProvider(p: BrowserProvider): Promise<void>;
  removeBrowserProvider(id: string): Promise<void>;
  /** The summary waiting for the user to apply it (review before apply), if any. Kept in this browser only. */
  getPendingSummary(sessionId: string): Promise<PendingSummary | undefined>;
  /** Stores the draft unless the session has one already; resolves with the one stored. */
  offerPendingSummary(p: PendingSummary): Promise<PendingSummary>;
  /** Changes the draft named by its entry id; resolves false when it is gone or was replaced. */
  updatePendingSummary(sessionId: string, id: EntryId, patch: Pick<PendingSummary, 'entry' | 'edited'>): Promise<boolean>;
  /** Removes the draft if it is still `id` (any, without one) and resolves with it: of two tabs, exactly one gets it. */
  takePendingSummary(sessionId: string, id?: EntryId): Promise<PendingSummary | undefined>;
  watchPendingSummary(sessionId: string, onValue: (p: PendingSummary | undefined) => void, onError: (err: unknown) => void): Unsubscribe;
  getLastBackupAt(): Promise<number | null>;
  setLastBackupAt(at: number): Promise<void>;
}

export interface ImportOutcome {
  imported: StoredSession[];
  /** Snapshots skipped because a session from the same source content already exists; `index` is the snapshot's position. */
  duplicates: { index: number; title: string; existingId: string }[];
  /** Sessions stored already that the file continues (lib/formats/reimport.ts): entries appended, messages among them, and whether they are a branch of their own. */
  updated?: { index: number; id: string; title: string; entries: number; messages: number; onBranch: boolean }[];
  /** Sessions stored already whose earlier part changed in the file: imported as new sessions (also in `imported`), with why. */
  copies?: { index: number; id: string; title: string; reason: string }[];
}

/** The token service (lib/tokens/service.ts) as a worker exposes it: every call is asynchronous. */
export type TokensPort = { [K in keyof TokensService]: TokensService[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

export interface ImportProgress {
  bytesRead: number;
  totalBytes: number;
  /** Sessions whose entries are stored. */
  stored: number;
  /** Sessions to store, known once the whole file is read; null until then. */
  total: number | null;
}

export interface ImportFileOptions {
  /** Store sessions even when the same ones were imported before (the user asked for a copy). */
  allowDuplicates?: boolean;
  /** Only the sessions at these positions of the file (`duplicates[].index`). */
  only?: readonly number[];
  /** Names the import, so that `cancelImport` can stop it. */
  importId?: string;
  importedAt?: number;
  /** Entries per write transaction (tests make it small). */
  batchEntries?: number;
}

/** A file read and stored: every session it holds, or (after an error or a cancel) none. */
export interface StoredImport {
  format: ImportResult['format'];
  warnings: string[];
  skipped?: ImportResult['skipped'];
  /** Sessions the file holds. */
  read: number;
  imported: { id: string; title: string }[];
  /** Sessions already here and unchanged (the same file, or the same entries). */
  duplicates: ImportOutcome['duplicates'];
  /** Sessions already here that the file continues: their new entries were appended. */
  updated: NonNullable<ImportOutcome['updated']>;
  /** Sessions already here that changed in their earlier part, imported as copies (also in `imported`). */
  copies: NonNullable<ImportOutcome['copies']>;
}

/** Import (reading, parsing and storing) and export rendering, off the main thread. */
export interface FormatsPort {
  /** Reads the file and stores its sessions, all or none; rejects with an AbortError after `cancelImport`, with the line at fault for a bad file. */
  importFileToStore(file: Blob, fileName: string, opts?: ImportFileOptions, onProgress?: (p: ImportProgress) => void): Promise<StoredImport>;
  cancelImport(importId: string): Promise<void>;
  exportSession(snapshot: SessionSnapshot, kind: ExportKind): Promise<string>;
  exportAll(snapshots: SessionSnapshot[]): Promise<Uint8Array>;
}

/**
 * What a summary carries of the span it replaced (lib/compaction/probes/report.ts),
 * computed off the main thread: a span can be 100k tokens.
 */
export interface ProbesPort {
  report(span: SpanMessage[], summary: string): Promise<ProbeReport>;
}

/** Full-text search across every session (lib/search/service.ts), kept in its own worker; every call is asynchronous already. */
export type SearchPort = SearchService;

/** A short text from a model that nobody watches stream in (a session's title). */
export interface TextRequest {
  model: string;
  system: string;
  prompt: string;
  maxOutputTokens: number;
}

/** The models, reached through the app's own server. */
export interface ModelTransport {
  streamChat(req: ChatTurnRequest, handlers: StreamHandlers): Promise<ChatStreamResult>;
  summarizer(summarizerModel: string, chatModel: string | undefined): TextSummarizer;
  /** The whole text; rejects when the call fails or nothing came back. */
  completeText(req: TextRequest, signal?: AbortSignal): Promise<string>;
  /** One provider entered in this browser: its state and models, asked through the app's server. Rejects only when the server cannot be asked. */
  listProvider(p: BrowserProvider): Promise<ProviderListingResponse>;
}

/** Marks which replies a tab is still streaming; a lock vanishes with its tab, which is what tells an interrupted reply apart. */
export interface StreamLocks {
  hold(entryId: EntryId): Promise<() => void>;
  isHeld(entryId: EntryId): Promise<boolean>;
}

export interface NoticeAction {
  label: string;
  run: () => void;
}

/** What the user is told: short sentences, some with one action. */
export interface Notifier {
  success(message: string): void;
  info(message: string, opts?: { action?: NoticeAction; durationMs?: number }): void;
  warning(message: string, opts?: { action?: NoticeAction; durationMs?: number }): void;
  error(message: string): void;
}

/** The browser's storage for this site: how full it is, and whether it may be evicted. */
export interface StorageQuota {
  estimate(): Promise<{ usage?: number; quota?: number } | null>;
  /** null when the browser cannot tell. */
  persisted(): Promise<boolean | null>;
  /** Asks the browser not to evict this site's data; resolves with whether it agreed. */
  persist(): Promise<boolean>;
}

/** Saves a file to the user's disk. */
export type SaveFile = (name: string, data: string | Uint8Array, mime: string) => void;

/** A file of a kept folder: its path inside the folder (starting with the folder's name), size, time, and a way to read it. */
export interface FolderFile {
  path: string;
  size: number;
  modified: number;
  file(): Promise<Blob>;
}

/** Folders the browser lets the app keep and read again (File System Access API); handles are opaque to the flows. */
export interface FolderAccess {
  supported(): boolean;
  /** Asks the user for a folder; null when they closed the picker. */
  pick(): Promise<{ name: string; handle: unknown } | null>;
  /** Whether the folder may be read; with `ask`, asks the user when it is not yet allowed (needs a click). */
  permitted(handle: unknown, ask: boolean): Promise<boolean>;
  /** Every file under the folder (hidden ones left out). */
  files(handle: unknown): Promise<FolderFile[]>;
}

/** The kept folders as stored (lib/db/folders.ts). */
export interface KeptFolder {
  id: string;
  name: string;
  handle: unknown;
  checkedAt?: number;
  onFocus?: boolean;
  seen: Record<string, { size: number; modified: number }>;
}

export interface FolderStore {
  list(): Promise<KeptFolder[]>;
  add(name: string, handle: unknown): Promise<KeptFolder>;
  update(id: string, patch: Partial<Pick<KeptFolder, 'checkedAt' | 'onFocus' | 'seen'>>): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface FlowPorts {
  store: SessionStore;
  tokens: TokensPort;
  formats: FormatsPort;
  search: SearchPort;
  transport: ModelTransport;
  locks: StreamLocks;
  notify: Notifier;
  saveFile: SaveFile;
  quota: StorageQuota;
  /** Kept folders: the browser's access to them and their records; absent where the browser has no such API. */
  folders?: { access: FolderAccess; store: FolderStore };
  /** Sync with other devices (the sync worker); absent where there is none (unit tests of other flows). */
  sync?: SyncService;
  /** Scores summaries against their spans in a worker; absent where there is none (cards then show no kept/lost list). */
  probes?: ProbesPort;
  /** Timers, so tests can drive time. */
  now?: () => number;
}
