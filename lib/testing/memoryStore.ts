import { newId } from '@/lib/session/ids';
import type { EntryId, NewEntry, SessionEntry } from '@/lib/session/types';

/** An in-memory stand-in for lib/db's append/update, recording every write. */
export class MemoryStore {
  readonly entries: SessionEntry[] = [];
  readonly writes: { op: 'append' | 'update'; id: EntryId; snapshot: SessionEntry }[] = [];
  leafId: EntryId | null = null;

  append = async (parentId: EntryId | null, news: NewEntry[]): Promise<SessionEntry[]> => {
    let parent = parentId;
    const out: SessionEntry[] = [];
    for (const n of news) {
      const e = { ...n, id: n.id ?? newId(), parentId: parent, timestamp: n.timestamp ?? Date.now() } as SessionEntry;
      this.entries.push(e);
      this.writes.push({ op: 'append', id: e.id, snapshot: structuredClone(e) });
      out.push(e);
      parent = e.id;
    }
    this.leafId = parent;
    return out;
  };

  update = async (id: EntryId, fn: (e: SessionEntry) => SessionEntry): Promise<SessionEntry> => {
    const i = this.entries.findIndex((e) => e.id === id);
    if (i < 0) throw new Error(`no entry ${id}`);
    const next = fn(this.entries[i]!);
    this.entries[i] = next;
    this.writes.push({ op: 'update', id, snapshot: structuredClone(next) });
    return next;
  };

  get(id: EntryId): SessionEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }
}
