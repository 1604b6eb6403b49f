import { errorMessage } from '@/lib/errors';
import type { SearchResults, SyncReport } from '@/lib/search/service';
import type { SummaryEntry } from '@/lib/session/revisions';
import type { BrowserProvider, ProviderDraft } from '@/lib/providers/browserProviders';
import type { AppSettings } from '@/lib/settings/appSettings';
import type { ChatSettings } from '@/lib/settings/chatSettings';
import { DEFAULT_COMPACTION_SETTINGS, type ContinuedFrom, type EntryId, type SessionEntry, type StoredSession, type ToolMaskEntry, type UserContent } from '@/lib/session/types';
import { arriveAt, leavesBranch, type LeaveChoice } from './branch';
import { draftRow } from './draft';
import { changeModel, editAndResend, regenerateReply, send, stop, switchSibling } from './chat';
import type { KeepRecent } from '@/lib/compaction/keepRecent';
import { compactSession, previewCompaction, resummarisePending, type CompactRequest } from './compaction';
import { applyPendingSummary, discardPendingSummary, editPendingSummary, watchPendingSummary } from './pendingSummary';
import type { PendingSummary } from '@/lib/compaction/pending';
import { draftContinuation, findContinuationSource, startContinuation, type ContinuationDraft } from './continueSession';
import { exportEverything, exportSession, type ExportFormat } from './exportSessions';
import { BatchImportTracker, importBatch, type BatchFile } from './importBatch';
import { FolderFlows } from './folders';
import { ImportTracker, importFiles } from './importFiles';
import { deleteMany, exportMany, organize, renameProject } from './organize';
import type { OrganizeChange } from '@/lib/session/organize';
import { LiveSession } from './liveSession';
import type { FlowPorts } from './ports';
import { RunRegistry } from './runs';
import { addProvider, listProvider, removeProvider } from './providers';
import { saveSettings, type SettingsChange } from './settings';
import { checkStorageHealth } from './storageHealth';
import type { SessionEnv, SessionHandle } from './session';
import { saveSessionChatSettings, setContextWindow } from './chatSettings';
import { forkHere, repairInterrupted, setLabel, setPinned } from './sessionTools';
import { maskToolOutput, previewMasking, setMaskUndone } from './masking';
import { showEntry } from './showEntry';
import { regenerateSummary, saveEdit, setUndone } from './summaryRevisions';
import { syncTokens } from './summaryPipeline';
import { ProbeCache, summaryProbes } from './probes';
import { SyncFlows } from './sync';
import { TokenSync } from './tokenSync';

/**
 * The user's actions on one open session, bound to it. The UI tells it the
 * models and settings in force (setEnv) on every render; the flows read them
 * at the moment they need them, so a model picked mid-stream is used by the
 * next request, not the running one.
 */
export class SessionFlows implements SessionHandle {
  readonly live: LiveSession;
  readonly sync: TokenSync;
  private latest: SessionEnv = { settings: DEFAULT_COMPACTION_SETTINGS };

  constructor(
    readonly sessionId: string,
    readonly ports: FlowPorts,
    readonly runs: RunRegistry,
    opts: { draft?: boolean } = {},
  ) {
    this.live = new LiveSession(sessionId, ports.store, opts.draft ? draftRow(sessionId, ports.now?.() ?? Date.now()) : undefined);
    this.sync = new TokenSync(sessionId, ports.tokens, ports.store);
  }

  env = (): SessionEnv => this.latest;
  setEnv = (env: SessionEnv): void => {
    this.latest = env;
  };

  /** Resolves once the message is stored (true) or could not be (false); the reply goes on after that. */
  send = (text: string, attachments: UserContent[] = []): Promise<boolean> => {
    const { stored, finished } = send(this, text, attachments);
    this.track(finished);
    return stored;
  };
  editAndResend = (entry: SessionEntry, text: string) => this.track(editAndResend(this, entry, text));
  regenerateReply = (entry: SessionEntry) => this.track(regenerateReply(this, entry));

  private readonly inflight = new Set<Promise<unknown>>();

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
    return p;
  }

  /** Resolves when every send, edit and regeneration started here has finished, replies and compactions included. */
  idle = async (): Promise<void> => {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  };
  stop = () => stop(this);
  switchSibling = (entry: SessionEntry, direction: -1 | 1) => switchSibling(this, entry, direction);
  /** The session's own instructions, temperature and reply length; what is left out follows the defaults. */
  saveChatSettings = (settings: ChatSettings) => saveSessionChatSettings(this, settings);
  changeModel = (model: string) => changeModel(this, model);

  compact = (req: CompactRequest) => compactSession(this, req);
  previewCompaction = (keep?: KeepRecent) => previewCompaction(this, keep);
  syncTokens = () => syncTokens(this);
  contextBreakdown = async () => {
    await syncTokens(this);
    return this.ports.tokens.contextBreakdown(this.sessionId);
  };

  leavesBranch = (from: EntryId | null, to: EntryId | null) => leavesBranch(this, from, to);
  arriveAt = (target: EntryId | null, choice: LeaveChoice) => arriveAt(this, target, choice);
  setLabel = (targetId: EntryId, label: string | null) => setLabel(this, targetId, label);
  /** Observation masking: what it would save now, doing it, undoing / redoing it. */
  previewMasking = () => previewMasking(this);
  maskToolOutput = () => maskToolOutput(this);
  setMaskUndone = (target: Pick<ToolMaskEntry, 'id'>, undone: boolean) => setMaskUndone(this, target, undone);
  /** "Keep verbatim": the message is carried into the context after every compaction (false unpins). */
  setPinned = (targetId: EntryId, pinned: boolean) => setPinned(this, targetId, pinned);
  forkHere = () => forkHere(this);
  /** Summarises the conversation up to `entryId` for a new session; the user reviews the draft before startContinuation. */
  draftContinuation = (entryId: EntryId) => draftContinuation(this, entryId);
  showEntry = (entryId: EntryId) => showEntry(this, entryId);
  repairInterrupted = (opts?: Parameters<typeof repairInterrupted>[1]) => repairInterrupted(this, opts);

  setSummaryUndone = (target: SummaryEntry, undone: boolean) => setUndone(this, target, undone);
  editSummary = (target: SummaryEntry, summary: string) => saveEdit(this, target, summary);
  regenerateSummary = (target: SummaryEntry, instructions?: string) => regenerateSummary(this, target, instructions);

  /** Review before apply: the summary waiting for the user, and what they do with it. */
  watchPendingSummary = (onValue: (p: PendingSummary | undefined) => void) => watchPendingSummary(this, onValue);
  applyPendingSummary = (id: EntryId) => applyPendingSummary(this, id);
  editPendingSummary = (id: EntryId, summary: string) => editPendingSummary(this, id, summary);
  discardPendingSummary = (id: EntryId) => discardPendingSummary(this, id);
  resummarisePending = (id: EntryId, instructions: string) => this.track(resummarisePending(this, id, instructions));

  readonly probeCache = new ProbeCache();
  /** What a summary carries of `span` (the entries it replaced) and what it lost; `key` names the summary's version (summaryProbeKey). */
  summaryProbes = (key: string, span: readonly SessionEntry[], summary: string) => summaryProbes(this, key, span, summary);
}

/** Everything the app does, over one set of ports: what components call. */
export class AppFlows {
  readonly runs = new RunRegistry();
  readonly imports = new ImportTracker();
  readonly batch = new BatchImportTracker();
  private readonly open = new Map<string, SessionFlows>();
  /** Sync with other devices; null where the ports have none. */
  readonly sync: SyncFlows | null;
  /** Folders kept current (where the browser can keep them: `folders.supported`). */
  readonly folders: FolderFlows;

  constructor(readonly ports: FlowPorts) {
    this.sync = ports.sync ? new SyncFlows(ports.sync, ports.notify) : null;
    this.folders = new FolderFlows(ports, this.batch);
  }

  /**
   * The flows of one session; the same object for the life of the page, so its live tree is loaded once.
   * `draft`: a new session that is stored only when its first message is (draft.ts).
   */
  session(id: string, opts: { draft?: boolean } = {}): SessionFlows {
    let s = this.open.get(id);
    if (!s) {
      s = new SessionFlows(id, this.ports, this.runs, opts);
      this.open.set(id, s);
    }
    return s;
  }

  async createSession(): Promise<StoredSession | null> {
    try {
      return await this.ports.store.createSession();
    } catch (err) {
      this.ports.notify.error(errorMessage(err));
      return null;
    }
  }

  async renameSession(id: string, title: string): Promise<void> {
    try {
      await this.ports.store.renameSession(id, title);
    } catch (err) {
      this.ports.notify.error(errorMessage(err));
    }
  }

  async deleteSession(row: Pick<StoredSession, 'id' | 'title'>): Promise<boolean> {
    try {
      await this.ports.store.deleteSession(row.id);
      this.ports.notify.success(`Deleted “${row.title}”`);
      return true;
    } catch (err) {
      this.ports.notify.error(errorMessage(err));
      return false;
    }
  }

  async saveAppSettings(patch: Partial<AppSettings>): Promise<boolean> {
    try {
      await this.ports.store.saveAppSettings(patch);
      return true;
    } catch (err) {
      this.ports.notify.error(errorMessage(err));
      return false;
    }
  }

  /** Pin, archive, tag or move sessions, one or many at once. */
  organize = (ids: readonly string[], change: OrganizeChange) => organize(this.ports, ids, change);
  deleteSessions = (ids: readonly string[]) => deleteMany(this.ports, ids);
  exportSessions = (ids: readonly string[]) => exportMany(this.ports, ids);
  renameProject = (from: string, to: string) => renameProject(this.ports, from, to);

  saveSettings = (change: SettingsChange) => saveSettings(this.ports, change);
  /** The window the user says a model has (null: back to what the provider, the catalog or the fallback says). */
  setContextWindow = (modelId: string, tokens: number | null) => setContextWindow(this.ports, modelId, tokens);

  addProvider = (draft: ProviderDraft, takenLabels?: readonly string[]) => addProvider(this.ports, draft, takenLabels);
  removeProvider = (p: Pick<BrowserProvider, 'id' | 'label'>) => removeProvider(this.ports, p);
  listProvider = (p: BrowserProvider) => listProvider(this.ports, p);

  importFiles = (files: File[], onImported: (sessionId: string) => void) => importFiles(this.ports, this.imports, files, onImported);
  /** A whole folder as one batch: one progress, one summary, cancellable (flows.batch). */
  importFolder = (folder: string, files: readonly BatchFile[], onImported: (sessionId: string) => void) => importBatch(this.ports, this.batch, folder, files, onImported);
  exportSession = (sessionId: string, title: string, format: ExportFormat) => exportSession(this.ports, sessionId, title, format);
  exportEverything = () => exportEverything(this.ports);
  startContinuation = (draft: ContinuationDraft, edited: { summary: string; title: string }) => startContinuation(this.ports, draft, edited);
  findContinuationSource = (link: ContinuedFrom) => findContinuationSource(this.ports.store, link);
  checkStorageHealth = (cancelled?: () => boolean) => checkStorageHealth(this.ports, cancelled);

  /** Messages and titles across every session; the index catches up with storage first. */
  search = async (query: string, opts?: { limit?: number }): Promise<SearchResults | null> => {
    try {
      return await this.ports.search.search(query, opts);
    } catch (err) {
      this.ports.notify.error(`Search failed: ${errorMessage(err)}`);
      return null;
    }
  };
  /** Builds or refreshes the search index ahead of the first query. */
  warmSearch = async (): Promise<SyncReport | null> => {
    try {
      return await this.ports.search.sync();
    } catch {
      return null; // the search itself will say what went wrong
    }
  };
}
