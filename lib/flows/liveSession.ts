import { errorMessage } from '@/lib/errors';
import { advanceSessionContext, buildSessionContext, type SessionContext } from '@/lib/session/context';
import { resolveLabels } from '@/lib/session/revisions';
import { SessionTree } from '@/lib/session/tree';
import type { EntryId, SessionEntry, StoredSession } from '@/lib/session/types';
import type { SessionStore, Unsubscribe } from './ports';

export interface LiveSessionState {
  status: 'loading' | 'ready' | 'missing' | 'error';
  error?: string;
  row: StoredSession | null;
  tree: SessionTree;
  /** This tab's position. Follows the stored leaf while that only extends our path. */
  leafId: EntryId | null;
  /** Bumped on every change so React memos can depend on it. */
  version: number;
  /**
   * A new session that exists only in this tab until its first message is
   * stored (draft.ts): `row` is an unsaved stand-in and nothing is in storage.
   */
  draft: boolean;
}

/**
 * Keeps one session's tree in memory and in step with IndexedDB, across tabs.
 * Loads the session once, then watches the session row's revision and fetches
 * only the entries written since the last revision it saw, so a 10,000-entry
 * session costs one load, not one per streamed chunk.
 */
export class LiveSession {
  private state: LiveSessionState;
  private listeners = new Set<() => void>();
  private unwatch: Unsubscribe | null = null;
  private lastRev = 0;
  private syncing: Promise<void> | null = null;
  private resync = false;
  /**
   * Leaves this tab moved away from since storage last named its own position. A notice naming one of them
   * is late news of this tab's own earlier write (shown at once by applyLocal), not another tab's move.
   */
  private readonly left = new Set<EntryId>();
  /** Entries written since `derived` was computed; null when something else changed (a new tree, a leaf moved). */
  private changedSince: SessionEntry[] | null = null;
  private derived: { version: number; tree: SessionTree; context: SessionContext; labels: Map<EntryId, string> } | null = null;

  constructor(
    readonly sessionId: string,
    private readonly store: Pick<SessionStore, 'loadSession' | 'entriesChangedSince' | 'watchSession' | 'getSession'>,
    /** Set for a new session not stored yet: its absence from storage is not "deleted", and `row` stands in until it is. */
    private readonly draftRow?: StoredSession,
  ) {
    this.state = { status: 'loading', row: null, tree: new SessionTree(), leafId: null, version: 0, draft: false };
  }

  getSnapshot = (): LiveSessionState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) this.stop();
    };
  };

  /** `changed`: the entries this change wrote to the tree, or 'other' for anything the derived data cannot follow by itself. */
  private emit(patch: Partial<LiveSessionState>, changed: readonly SessionEntry[] | 'other') {
    this.update(patch, changed);
    this.notify();
  }

  private update(patch: Partial<LiveSessionState>, changed: readonly SessionEntry[] | 'other') {
    if (changed === 'other') this.changedSince = null;
    else this.changedSince?.push(...changed);
    this.state = { ...this.state, ...patch, version: this.state.version + 1 };
  }

  private notify() {
    for (const l of this.listeners) l();
  }

  /**
   * The context at a snapshot's leaf and the labels of its tree. Derived from the previous ones when only
   * messages were written near the leaf (each saved chunk of a streaming reply), so that costs what the
   * chunk changed, not a walk over the whole session; built from scratch otherwise.
   */
  derive(state: LiveSessionState): { context: SessionContext; labels: Map<EntryId, string> } {
    const prev = this.derived;
    if (prev?.version === state.version && prev.tree === state.tree) return prev;
    const latest = state === this.state;
    const changes = latest && prev?.tree === state.tree ? this.changedSince : null;
    const context = (changes && prev && advanceSessionContext(prev.context, state.tree, state.leafId, changes)) || buildSessionContext(state.tree, state.leafId);
    const labels = changes && prev && !changes.some((e) => e.type === 'label') ? prev.labels : resolveLabels(state.tree.entries());
    const next = { version: state.version, tree: state.tree, context, labels };
    // Only the latest snapshot is remembered: the changes recorded from now on are relative to it.
    if (latest) {
      this.derived = next;
      this.changedSince = [];
    }
    return next;
  }

  /**
   * Applies this tab's own writes at once, without waiting for the round trip
   * through IndexedDB (which confirms them later; replacing is idempotent).
   */
  applyLocal(entries: readonly SessionEntry[], leafId?: EntryId | null) {
    for (const e of entries) this.state.tree.replace(e);
    this.emit(leafId === undefined ? {} : { leafId }, entries);
  }

  /** Changes the unsaved stand-in row of a draft (its model, before anything is stored). */
  patchDraft(patch: Partial<StoredSession>) {
    if (this.state.draft && this.state.row) this.emit({ row: { ...this.state.row, ...patch } }, []);
  }

  /** Moves this tab's leaf (the caller persists it). */
  setLeaf(leafId: EntryId | null) {
    const from = this.state.leafId;
    if (from !== null && from !== leafId) this.left.add(from);
    this.emit({ leafId }, 'other');
  }

  private start() {
    void this.load();
  }

  private stop() {
    this.unwatch?.();
    this.unwatch = null;
  }

  private async load() {
    try {
      const loaded = await this.store.loadSession(this.sessionId);
      if (!loaded && this.draftRow) {
        // Watched all the same: the first send stores the row, and the watch then takes it like any write.
        this.emit({ status: 'ready', row: this.draftRow, draft: true }, 'other');
      } else if (!loaded) {
        return this.emit({ status: 'missing', row: null }, 'other');
      } else {
        // Reading, deriving and rendering a long session are one task each, not one long task together
        // (a 10,000-entry session: 20, 10 and 35 ms on the bench machine): the page answers input in between.
        const tree = new SessionTree(loaded.entries);
        this.lastRev = loaded.row.rev;
        const leafId = loaded.row.leafId && tree.has(loaded.row.leafId) ? loaded.row.leafId : tree.newestLeaf();
        await nextTask();
        this.update({ status: 'ready', row: loaded.row, tree, leafId }, 'other');
        this.derive(this.state); // remembered: the render that follows finds it
        await nextTask();
        this.notify();
      }
      this.unwatch = this.store.watchSession(
        this.sessionId,
        (row) => void this.onRow(row),
        (err) => this.emit({ status: 'error', error: String(err) }, 'other'),
      );
    } catch (err) {
      this.emit({ status: 'error', error: errorMessage(err) }, 'other');
    }
  }

  private async onRow(row: StoredSession | undefined) {
    if (!row && this.state.draft) return; // not stored yet
    if (!row) return this.emit({ status: 'missing', row: null }, 'other');
    if (row.rev <= this.lastRev && this.state.row) {
      // Its entries already arrived with an earlier catch-up (which fetches up to the newest write, past the row it
      // was called for), but its leaf may be newer than the one that catch-up followed. A row no newer than the
      // one applied (the watch's first notice arriving after a move) is old news: its leaf would undo the move.
      if (row.rev > this.state.row.rev) {
        const leafId = this.followedLeaf(row);
        this.emit({ row, leafId }, leafId === this.state.leafId ? [] : 'other');
      }
      return;
    }
    // Serialise fetches: a burst of writes becomes one catch-up query.
    if (this.syncing) {
      this.resync = true;
      return;
    }
    this.syncing = this.catchUp(row);
    await this.syncing;
    this.syncing = null;
    if (this.resync) {
      this.resync = false;
      const latest = await this.store.getSession(this.sessionId);
      await this.onRow(latest);
    }
  }

  private async catchUp(row: StoredSession) {
    const changed = await this.store.entriesChangedSince(this.sessionId, this.lastRev);
    const tree = this.state.tree;
    for (const e of changed.entries) tree.replace(e);
    this.lastRev = Math.max(row.rev, changed.rev);
    this.emit({ row, leafId: this.followedLeaf(row), draft: false }, changed.entries);
  }

  /**
   * Follow the stored leaf when it extends where we are (our own append, or
   * another tab continuing our path); stay put when it went elsewhere.
   */
  private followedLeaf(row: StoredSession): EntryId | null {
    const { tree, leafId } = this.state;
    const stored = row.leafId;
    // Storage caught up with this tab's own position: what it left before is no longer news.
    if (stored === leafId) this.left.clear();
    if (stored && this.left.has(stored)) return leafId;
    if (stored && tree.has(stored) && (leafId === null || !tree.has(leafId) || tree.isAncestor(leafId, stored))) return stored;
    return leafId;
  }
}

/** Resolves in a later task of the event loop (a timer), so that what follows does not lengthen the current one. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
