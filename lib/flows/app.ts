import { errorMessage } from '@/lib/errors';
import type { SearchResults, SyncReport } from '@/lib/search/service';
import type { SummaryEntry } from '@/lib/session/revisions';
import type { AppSettings } from '@/lib/settings/appSettings';
import { DEFAULT_COMPACTION_SETTINGS, type EntryId, type SessionEntry, type StoredSession, type UserContent } from '@/lib/session/types';
import { arriveAt, leavesBranch, type LeaveChoice } from './branch';
import { draftRow } from './draft';
import { changeModel, editAndResend, regenerateReply, send, stop, switchSibling } from './chat';
import { compactSession, previewCompaction, type CompactRequest } from './compaction';
import { exportEverything, exportSession, type ExportFormat } from './exportSessions';
import { ImportTracker, importFiles } from './importFiles';
import { LiveSession } from './liveSession';
import type { FlowPorts } from './ports';
import { RunRegistry } from './runs';
import { saveSettings, type SettingsChange } from './settings';
import { checkStorageHealth } from './storageHealth';
import type { SessionEnv, SessionHandle } from './session';
import { forkHere, repairInterrupted, setLabel } from './sessionTools';
import { showEntry } from './showEntry';
import { regenerateSummary, saveEdit, setUndone } from './summaryRevisions';
import { syncTokens } from './summaryPipeline';
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
  changeModel = (model: string) => changeModel(this, model);

  compact = (req: CompactRequest) => compactSession(this, req);
  previewCompaction = () => previewCompaction(this);
  syncTokens = () => syncTokens(this);
  contextBreakdown = async () => {
    await syncTokens(this);
    return this.ports.tokens.contextBreakdown(this.sessionId);
  };

  leavesBranch = (from: EntryId | null, to: EntryId | null) => leavesBranch(this, from, to);
  arriveAt = (target: EntryId | null, choice: LeaveChoice) => arriveAt(this, target, choice);
  setLabel = (targetId: EntryId, label: string | null) => setLabel(this, targetId, label);
  forkHere = () => forkHere(this);
  showEntry = (entryId: EntryId) => showEntry(this, entryId);
  repairInterrupted = (opts?: Parameters<typeof repairInterrupted>[1]) => repairInterrupted(this, opts);

  setSummaryUndone = (target: SummaryEntry, undone: boolean) => setUndone(this, target, undone);
  editSummary = (target: SummaryEntry, summary: string) => saveEdit(this, target, summary);
  regenerateSummary = (target: SummaryEntry, instructions?: string) => regenerateSummary(this, target, instructions);
}

/** Everything the app does, over one set of ports: what components call. */
export class AppFlows {
  readonly runs = new RunRegistry();
  readonly imports = new ImportTracker();
  private readonly open = new Map<string, SessionFlows>();

  constructor(readonly ports: FlowPorts) {}

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

  saveSettings = (change: SettingsChange) => saveSettings(this.ports, change);
  loadClientCredentials = () => this.ports.store.loadClientCredentials();

  importFiles = (files: File[], onImported: (sessionId: string) => void) => importFiles(this.ports, this.imports, files, onImported);
  exportSession = (sessionId: string, title: string, format: ExportFormat) => exportSession(this.ports, sessionId, title, format);
  exportEverything = () => exportEverything(this.ports);
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
