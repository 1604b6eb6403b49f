import type { CompactionSettings, ContinuedFrom, EntryType, SessionEntry, SessionMeta, SessionSource } from '@/lib/session/types';
import { StorageError } from './errors';
import type { SessionRow, StoredEntry } from './schema';

/**
 * The one place stored rows are built. A row is assembled from the domain
 * object's known fields only, listed here per entry type; the fields storage
 * owns (the `seq` key, `sessionId`, revisions, counts, the lower-cased title,
 * the session id) are then set by storage. So whatever a file or a caller puts
 * on an object, such as `"seq": 1e300` (which would exhaust the auto-increment
 * key generator and stop every later write), never reaches the database.
 *
 * Only top-level fields are picked: nested values (a message, summary details,
 * a custom entry's data) are domain content and are stored as given.
 */

/** Every key of T, required: the compiler rejects a list that misses a field of the type, or names one it lacks. */
type AllKeys<T> = { readonly [K in keyof Required<T>]: true };
type EntryOf<T extends EntryType> = Extract<SessionEntry, { type: T }>;

const BASE = { id: true, parentId: true, timestamp: true, tokens: true, type: true } as const;

const ENTRY_FIELDS: { readonly [T in EntryType]: AllKeys<EntryOf<T>> } = {
  message: { ...BASE, message: true },
  compaction: { ...BASE, summary: true, firstKeptEntryId: true, tokensBefore: true, tokensAfter: true, details: true },
  branch_summary: { ...BASE, fromId: true, summary: true, details: true },
  model_change: { ...BASE, model: true },
  label: { ...BASE, targetId: true, label: true },
  summary_revision: { ...BASE, targetId: true, action: true, summary: true, details: true },
  custom: { ...BASE, customType: true, data: true, display: true },
  pin: { ...BASE, targetId: true, pinned: true },
  tool_mask: { ...BASE, maskedIds: true, tokensBefore: true, tokensAfter: true, protectTokens: true },
};

const META_FIELDS: AllKeys<SessionMeta> = {
  id: true,
  title: true,
  createdAt: true,
  updatedAt: true,
  leafId: true,
  model: true,
  systemPrompt: true,
  temperature: true,
  maxOutputTokens: true,
  compaction: true,
  source: true,
  cwd: true,
  undated: true,
  continuedFrom: true,
  project: true,
  tags: true,
  archived: true,
  pinned: true,
};

const SOURCE_FIELDS: AllKeys<SessionSource> = { format: true, fileName: true, hash: true, originalId: true, entries: true, entriesHash: true };
const CONTINUED_FIELDS: AllKeys<ContinuedFrom> = { sessionId: true, entryId: true, title: true, origin: true };

const COMPACTION_FIELDS: AllKeys<CompactionSettings> = {
  enabled: true,
  reserveTokens: true,
  keepRecentTokens: true,
  thresholdPercent: true,
  toolResultMaxChars: true,
  selfCheck: true,
  maskToolOutput: true,
  maskProtectTokens: true,
  reviewBeforeApply: true,
};

/** The listed own fields of `obj` that have a value, in the object's own key order (so a re-export keeps its bytes). */
function pick<T extends object>(obj: T, fields: object): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const value = (obj as Record<string, unknown>)[key];
    if (Object.hasOwn(fields, key) && value !== undefined) out[key] = value;
  }
  return out as Partial<T>;
}

/** The entry's domain fields for its type, nothing else. */
export function domainEntry(entry: SessionEntry): SessionEntry {
  const fields = Object.hasOwn(ENTRY_FIELDS, entry.type) ? ENTRY_FIELDS[entry.type] : undefined;
  if (!fields) throw new StorageError('unknown', `Cannot store an entry of unknown type ${JSON.stringify(String(entry.type)).slice(0, 60)}.`);
  return pick(entry, fields) as SessionEntry;
}

export function entryRow(entry: SessionEntry, sessionId: string, rev: number, seq?: number): StoredEntry {
  const row: StoredEntry = { ...domainEntry(entry), sessionId, rev };
  if (seq !== undefined) row.seq = seq;
  return row;
}

export type MetaFields = Omit<SessionMeta, 'id'>;

/** The session's domain fields; `id` is left out, it is storage's to give. */
export function domainMeta(meta: MetaFields & { id?: string }): MetaFields {
  const { id: _id, ...picked } = pick(meta, META_FIELDS);
  const out = picked as MetaFields;
  if (out.source) out.source = pick(out.source, SOURCE_FIELDS) as SessionSource;
  if (out.continuedFrom) out.continuedFrom = pick(out.continuedFrom, CONTINUED_FIELDS) as ContinuedFrom;
  if (out.compaction) out.compaction = pick(out.compaction, COMPACTION_FIELDS);
  return out;
}

export function sessionRow(meta: MetaFields, owned: { id: string; entryCount: number; rev: number }): SessionRow {
  const fields = domainMeta(meta);
  // id first, as createSession writes it, so exported headers keep their usual key order.
  return { id: owned.id, ...fields, titleLower: fields.title.toLowerCase(), entryCount: owned.entryCount, rev: owned.rev };
}

/** A stored entry back to the domain entry: the fields storage owns are dropped. */
export function toDomainEntry(stored: StoredEntry): SessionEntry {
  const { sessionId: _s, seq: _q, rev: _r, unsynced: _u, ...entry } = stored;
  return entry as SessionEntry;
}
