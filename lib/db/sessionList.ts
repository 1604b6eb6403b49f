import { Dexie, RangeSet, cmp, type IntervalTree, type ObservabilitySet } from 'dexie';
import type { AppDB } from './db';
import type { SessionRow } from './schema';
import type { Unsubscribe } from './watch';

/**
 * The session list, kept in memory while someone watches it and patched from
 * what each write touched: a write to one session (a saved chunk of a reply,
 * a rename, a sync pull) reads that one row again, not the thousands of
 * others. Dexie's `storagemutated` event names the primary keys a committed
 * write changed, in this tab or another; a write it cannot narrow to keys (a
 * cleared table) reads the whole list again. A row whose stored fields did not
 * change keeps its object, so a memoised list item does not render again.
 */
class SessionListCache {
  private readonly rows = new Map<string, SessionRow>();
  private sorted: SessionRow[] | null = null;
  private loaded = false;
  /** What to read on the next flush: these ids, or everything. */
  private dirty: Set<string> | 'all' = 'all';
  private flushing = false;
  /** Subscribed to the database's changes (from the first watcher until a moment after the last one left). */
  private following = false;
  private readonly listeners = new Set<() => void>();
  private readonly onMutated = (parts: ObservabilitySet) => this.mutated(parts);

  constructor(private readonly db: AppDB) {}

  /** The rows newest first (ties by id, as the updatedAt index orders them reversed), or null before the first read. */
  list(): SessionRow[] | null {
    if (!this.loaded) return null;
    this.sorted ??= [...this.rows.values()].sort((a, b) => b.updatedAt - a.updatedAt || cmp(b.id, a.id));
    return this.sorted;
  }

  listen(fn: () => void): Unsubscribe {
    this.listeners.add(fn);
    if (!this.following) {
      this.following = true;
      Dexie.on('storagemutated', this.onMutated);
      this.dirty = 'all';
      void this.flush();
    } else if (this.loaded) fn();
    return () => {
      this.listeners.delete(fn);
      // A new search unsubscribes and subscribes again in one go (React's effect cleanup, then the
      // effect): the list is dropped only when nobody came back by then.
      queueMicrotask(() => {
        if (this.listeners.size > 0 || !this.following) return;
        // Nobody watches: changes are no longer followed, so the next watcher starts from a full read.
        Dexie.on.storagemutated.unsubscribe(this.onMutated);
        this.following = false;
        this.rows.clear();
        this.sorted = null;
        this.loaded = false;
      });
    };
  }

  private mutated(parts: ObservabilitySet): void {
    const prefix = `idb://${this.db.name}/${this.db.sessions.name}/`;
    for (const part of [prefix, `${prefix}:dels`]) {
      const tree = parts[part];
      if (tree) this.mark(tree);
    }
    if (this.dirty === 'all' || this.dirty.size > 0) void this.flush();
  }

  private mark(tree: IntervalTree): void {
    if (this.dirty === 'all') return;
    for (const range of RangeSet(tree)) {
      if (typeof range.from !== 'string' || cmp(range.from, range.to) !== 0) {
        this.dirty = 'all';
        return;
      }
      this.dirty.add(range.from);
    }
  }

  /** Reads what is dirty, one read at a time; writes that land meanwhile are read by the next round. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.listeners.size > 0 && (this.dirty === 'all' || this.dirty.size > 0)) {
        const take = this.dirty;
        this.dirty = new Set();
        let changed: boolean;
        try {
          changed = take === 'all' ? this.replaceAll(await this.db.sessions.toArray()) : this.patch([...take], await this.db.sessions.bulkGet([...take]));
        } catch {
          // A failed read (the database closing, a tab upgrading it) is retried in full on the next change.
          this.dirty = 'all';
          return;
        }
        const first = !this.loaded;
        this.loaded = true;
        if (changed || first) {
          this.sorted = null;
          for (const fn of [...this.listeners]) fn();
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private replaceAll(all: SessionRow[]): boolean {
    const seen = new Set<string>();
    let changed = all.length !== this.rows.size;
    for (const row of all) {
      seen.add(row.id);
      if (this.keep(row)) changed = true;
    }
    for (const id of [...this.rows.keys()]) if (!seen.has(id)) this.rows.delete(id);
    return changed;
  }

  private patch(ids: string[], rows: (SessionRow | undefined)[]): boolean {
    let changed = false;
    ids.forEach((id, i) => {
      const row = rows[i];
      if (row) changed = this.keep(row) || changed;
      else changed = this.rows.delete(id) || changed;
    });
    return changed;
  }

  /** Stores the row unless the same fields are already there; true when it changed. */
  private keep(row: SessionRow): boolean {
    const old = this.rows.get(row.id);
    if (old && old.rev === row.rev && JSON.stringify(old) === JSON.stringify(row)) return false;
    this.rows.set(row.id, row);
    return true;
  }
}

const caches = new WeakMap<AppDB, SessionListCache>();

/** The session list, newest first, filtered by title (case-insensitive); again after every change to a session. */
export function observeSessionList(db: AppDB, search: string, onRows: (rows: SessionRow[]) => void): Unsubscribe {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new SessionListCache(db)));
  const q = search.trim().toLowerCase();
  const c = cache;
  return c.listen(() => {
    const rows = c.list();
    if (rows) onRows(q ? rows.filter((r) => r.titleLower.includes(q)) : rows);
  });
}
