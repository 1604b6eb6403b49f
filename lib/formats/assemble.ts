import type { EntryId, SessionEntry } from '@/lib/session/types';
import { ImportError, type FormatId } from './types';

/**
 * The timestamp of a record that has none and follows no record that has one.
 * Readers give an entry the last time seen before it; where there is none yet,
 * this placeholder is resolved by `EntryAssembler.finish()`, never stored.
 */
export const NO_TIME = Number.NaN;

/**
 * Collects the entries a reader produces and makes them a well-formed tree:
 * unique ids, source ids that were merged or split resolved to the entry that
 * stands for them, and parents before children (the order SessionTree and the
 * store rely on). Every reader ends with `finish()`, so these rules live here once.
 *
 * Times: an entry stamped NO_TIME (nothing before it had a time) takes the
 * first real time of the file; a file with no time at all takes the import
 * time and is `undated`, so no session is ever dated 1 January 1970.
 */
export class EntryAssembler {
  readonly entries: SessionEntry[] = [];
  private readonly ids = new Set<EntryId>();
  /** Source id → id of the entry children of that source record attach to. */
  private readonly aliases = new Map<string, EntryId>();
  private duplicates = 0;
  /** After finish(): no entry had a time of its own; every timestamp is the import time. */
  undated = false;

  constructor(
    private readonly format: FormatId,
    private readonly warnings: string[],
    private readonly importedAt?: number,
  ) {}

  has(id: EntryId): boolean {
    return this.ids.has(id);
  }

  /** Adds an entry; a repeated id (a record written twice) is skipped and counted. */
  add(entry: SessionEntry): boolean {
    if (this.ids.has(entry.id)) {
      this.duplicates++;
      return false;
    }
    this.ids.add(entry.id);
    this.entries.push(entry);
    return true;
  }

  /** Children of source record `from` attach to entry `to` (records merged into or split across entries). */
  alias(from: string, to: EntryId): void {
    if (from !== to) this.aliases.set(from, to);
  }

  resolve(id: string): EntryId {
    let cur = id;
    for (let guard = 0; guard < 64; guard++) {
      const next = this.aliases.get(cur);
      if (next === undefined || next === cur) return cur;
      cur = next;
    }
    return cur;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The time that stands for "unknown" at the end: the file's first real time, else the import time. */
  get fallbackTime(): number {
    for (const e of this.entries) if (Number.isFinite(e.timestamp)) return e.timestamp;
    return this.importedAt ?? Date.now();
  }

  private fillTimes(): void {
    let first: number | undefined;
    for (const e of this.entries) {
      if (Number.isFinite(e.timestamp)) {
        first = e.timestamp;
        break;
      }
    }
    this.undated = first === undefined && this.entries.length > 0;
    const fill = first ?? this.importedAt ?? Date.now();
    for (const e of this.entries) if (!Number.isFinite(e.timestamp)) e.timestamp = fill;
  }

  finish(): SessionEntry[] {
    if (this.duplicates > 0) {
      this.warnings.push(`${this.duplicates} record(s) repeated an id already seen; the later copies were skipped.`);
    }
    for (const e of this.entries) {
      if (e.parentId !== null) e.parentId = this.resolve(e.parentId);
      if (e.type === 'compaction') e.firstKeptEntryId = this.resolve(e.firstKeptEntryId);
      else if (e.type === 'branch_summary') e.fromId = this.resolve(e.fromId);
      else if (e.type === 'label' || e.type === 'summary_revision' || e.type === 'pin') e.targetId = this.resolve(e.targetId);
      else if (e.type === 'tool_mask') e.maskedIds = e.maskedIds.map((id) => this.resolve(id));
    }
    this.fillTimes();
    const ordered = parentsFirst(this.entries, this.format);
    let dangling = 0;
    for (const e of ordered) if (e.parentId !== null && !this.ids.has(e.parentId)) dangling++;
    if (dangling > 0) {
      this.warnings.push(`${dangling} entr${dangling === 1 ? 'y refers' : 'ies refer'} to a parent that is not in the file; shown as separate roots.`);
    }
    return ordered;
  }
}

/** Creation and last-change time of a session from its entries (after EntryAssembler.finish(), so all are real times). */
export function timeSpan(entries: readonly SessionEntry[], fallback: number): { createdAt: number; updatedAt: number } {
  let createdAt = Infinity;
  let updatedAt = -Infinity;
  for (const e of entries) {
    if (e.timestamp < createdAt) createdAt = e.timestamp;
    if (e.timestamp > updatedAt) updatedAt = e.timestamp;
  }
  return Number.isFinite(createdAt) ? { createdAt, updatedAt } : { createdAt: fallback, updatedAt: fallback };
}

/**
 * Stable reorder so every entry comes after its parent. Files are nearly always
 * in this order already, so it is a single pass; an entry whose parent appears
 * later waits for it. Entries still waiting at the end are on a cycle.
 */
export function parentsFirst(entries: SessionEntry[], format?: FormatId): SessionEntry[] {
  const ids = new Set(entries.map((e) => e.id));
  const placed = new Set<EntryId>();
  const waiting = new Map<EntryId, SessionEntry[]>();
  const out: SessionEntry[] = [];
  const place = (first: SessionEntry) => {
    const stack = [first];
    while (stack.length) {
      const e = stack.pop()!;
      out.push(e);
      placed.add(e.id);
      const kids = waiting.get(e.id);
      if (kids) {
        waiting.delete(e.id);
        for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
      }
    }
  };
  for (const e of entries) {
    const p = e.parentId;
    if (p === null || !ids.has(p) || placed.has(p)) place(e);
    else {
      const list = waiting.get(p);
      if (list) list.push(e);
      else waiting.set(p, [e]);
    }
  }
  if (out.length !== entries.length) {
    const stuck = entries.find((e) => !placed.has(e.id))!;
    throw new ImportError(`The entries' parent links form a cycle (at entry ${JSON.stringify(stuck.id)}), so they are not a conversation tree.`, { format });
  }
  return out;
}
