import { errorMessage } from '@/lib/errors';
import { importBatch, type BatchImportTracker, type BatchSummary } from './importBatch';
import type { FlowPorts, FolderFile, KeptFolder } from './ports';

/**
 * Keeping a folder current: a folder the user picked once (~/.claude/projects,
 * ~/.codex/sessions) is read again on "Check for new sessions", or when the
 * app gets the focus back if the user asked for that. Only files whose size or
 * time changed since the last check are read, and they go through the folder
 * import, where a grown transcript updates its session (lib/formats/reimport.ts):
 * so a check of hundreds of sessions reads the few that moved.
 */

/** Focus comes and goes often (a switch of windows); a check on focus runs at most this often. */
const FOCUS_INTERVAL_MS = 30_000;

const changedSince = (files: readonly FolderFile[], seen: KeptFolder['seen']) =>
  files.filter((f) => {
    const s = seen[f.path];
    return !s || s.size !== f.size || s.modified !== f.modified;
  });

export class FolderFlows {
  private lastFocusCheck = -Infinity;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly ports: FlowPorts,
    private readonly tracker: BatchImportTracker,
  ) {}

  /** Whether this browser can keep folders (the File System Access API). */
  get supported(): boolean {
    return this.ports.folders?.access.supported() ?? false;
  }

  private get folders() {
    const f = this.ports.folders;
    if (!f) throw new Error('This browser cannot keep folders; import the folder instead.');
    return f;
  }

  /** Asks for a folder, remembers it, and reads it. */
  async keep(onImported: (sessionId: string) => void): Promise<BatchSummary | null> {
    try {
      const picked = await this.folders.access.pick();
      if (!picked) return null;
      const folder = await this.folders.store.add(picked.name, picked.handle);
      return await this.check(folder.id, onImported, { ask: true });
    } catch (err) {
      this.ports.notify.error(`Could not keep that folder: ${errorMessage(err)}`);
      return null;
    }
  }

  /**
   * Reads what changed in the folder. `ask`: the user clicked, so the browser may
   * ask for permission; `quiet`: a check on focus, which says nothing unless
   * something was imported or updated.
   */
  async check(id: string, onImported: (sessionId: string) => void, opts: { ask: boolean; quiet?: boolean }): Promise<BatchSummary | null> {
    const { access, store } = this.folders;
    const folder = (await store.list()).find((f) => f.id === id);
    if (!folder) return null;
    const say = (message: string) => {
      if (!opts.quiet) this.ports.notify.info(message);
    };
    try {
      if (!(await access.permitted(folder.handle, opts.ask))) {
        say(`The browser does not let Longctx read ${folder.name} now; “Check for new sessions” asks again.`);
        return null;
      }
      const files = await access.files(folder.handle);
      const changed = changedSince(files, folder.seen);
      const now = this.ports.now?.() ?? Date.now();
      const seen = Object.fromEntries(files.map((f) => [f.path, { size: f.size, modified: f.modified }]));
      if (changed.length === 0) {
        await store.update(id, { checkedAt: now, seen });
        say(`Nothing new in ${folder.name}.`);
        return null;
      }
      const batch = await Promise.all(changed.map(async (f) => ({ path: f.path, file: await f.file() })));
      const summary = await importBatch(this.ports, this.tracker, folder.name, batch, onImported, { quiet: opts.quiet });
      // A cancelled check left files unread: the next one reads them (a file read twice is found unchanged).
      if (!summary.cancelled) await store.update(id, { checkedAt: now, seen });
      return summary;
    } catch (err) {
      if (!opts.quiet) this.ports.notify.error(`Could not read ${folder.name}: ${errorMessage(err)}`);
      return null;
    }
  }

  /** Every kept folder, one after the other. */
  async checkAll(onImported: (sessionId: string) => void, opts: { ask: boolean; quiet?: boolean } = { ask: true }): Promise<void> {
    if (this.running) return;
    const run = (async () => {
      for (const f of await this.folders.store.list()) {
        if (!opts.quiet || f.onFocus) await this.check(f.id, onImported, opts);
      }
    })();
    this.running = run;
    try {
      await run;
    } finally {
      this.running = null;
    }
  }

  /** The app got the focus back: folders kept "on focus" are checked quietly, unless a check or a folder import is running. */
  async onFocus(onImported: (sessionId: string) => void): Promise<void> {
    if (!this.ports.folders || this.tracker.getSnapshot().running || this.running) return;
    const now = this.ports.now?.() ?? Date.now();
    if (now - this.lastFocusCheck < FOCUS_INTERVAL_MS) return;
    this.lastFocusCheck = now;
    await this.checkAll(onImported, { ask: false, quiet: true });
  }

  async setOnFocus(id: string, on: boolean): Promise<void> {
    await this.folders.store.update(id, { onFocus: on });
  }

  async forget(id: string): Promise<void> {
    await this.folders.store.remove(id);
  }
}
