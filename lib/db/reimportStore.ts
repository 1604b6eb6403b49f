import { planReimport, type ReimportPlan } from '@/lib/formats/reimport';
import type { SessionEntry, SessionMeta } from '@/lib/session/types';
import type { AppDB } from './db';
import { deleteSessionEntries, readPacked, readSessionEntries } from './packed';
import { entryRow, type MetaFields } from './rows';
import type { SessionRow } from './schema';
import { unsynced } from './syncMarks';

/**
 * The store's side of a file read again (lib/formats/reimport.ts): finding
 * the stored sessions a file's session may be, deciding, and writing an
 * update. It all runs in the import's commit transaction (importStaging.ts),
 * so a file still lands whole or not at all and nothing can change between
 * the decision and the write. The file's entries were staged like any
 * import's; an update appends the new ones to the stored session and drops
 * the staged copy.
 */

/** A session of the file as staged: its meta, where its entries are staged, and how it may be matched. */
export interface StagedSession {
  id: string;
  fields: MetaFields;
  /** The id the file gave the session (the app's own format only: a session made or synced here has it). */
  fileId?: string;
  native: boolean;
}

export type Decision =
  | { kind: 'new' }
  | { kind: 'unchanged'; existingId: string; title: string }
  | { kind: 'updated'; existingId: string; title: string; entries: number; messages: number; onBranch: boolean }
  | { kind: 'copy'; reason: string };

export interface Candidates {
  byIdentity: Map<string, SessionRow[]>;
  byId: Map<string, SessionRow>;
  /** Rows this commit changed, as they are now (a file may hold one session twice). */
  written: Map<string, SessionRow>;
}

const identityKey = (format: string, originalId: string) => `${format}\n${originalId}`;

/** Every stored session the staged ones may be, in two indexed reads for the whole file. */
export async function findCandidates(db: AppDB, staged: readonly StagedSession[]): Promise<Candidates> {
  const keys: [string, string][] = [];
  const fileIds: string[] = [];
  for (const s of staged) {
    const src = s.fields.source;
    if (src?.format && src.originalId) keys.push([src.format, src.originalId]);
    if (s.native && s.fileId) fileIds.push(s.fileId);
  }
  const byIdentity = new Map<string, SessionRow[]>();
  if (keys.length) {
    for (const r of await db.sessions.where('[source.format+source.originalId]').anyOf(keys).toArray()) {
      const k = identityKey(r.source!.format, r.source!.originalId!);
      byIdentity.set(k, [...(byIdentity.get(k) ?? []), r]);
    }
  }
  const byId = new Map<string, SessionRow>();
  if (fileIds.length) for (const r of await db.sessions.bulkGet(fileIds)) if (r) byId.set(r.id, r);
  return { byIdentity, byId, written: new Map() };
}

/** True when the session may be a stored one (worth a decision). */
export function hasCandidates(c: Candidates, s: StagedSession): boolean {
  const src = s.fields.source;
  return (src?.originalId !== undefined && c.byIdentity.has(identityKey(src.format, src.originalId))) || (s.fileId !== undefined && c.byId.has(s.fileId));
}

/**
 * Decides what one staged session is, and writes it when it is a stored
 * session (unchanged or grown): inside the commit transaction. A new session
 * or a copy is left for the caller to add.
 */
export async function decideAndWrite(db: AppDB, s: StagedSession, c: Candidates, rev: number, hlc: string): Promise<Decision> {
  const src = s.fields.source;
  const found = new Map<string, SessionRow>();
  if (src?.originalId) for (const r of c.byIdentity.get(identityKey(src.format, src.originalId)) ?? []) found.set(r.id, r);
  const same = s.fileId ? c.byId.get(s.fileId) : undefined;
  if (same) found.set(same.id, same);
  const rows = [...found.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  if (rows.length === 0) return { kind: 'new' };
  let staged: SessionEntry[] | null = null;
  let reason: string | undefined;
  for (const known of rows) {
    const row = c.written.get(known.id) ?? known;
    // The same entries as taken last time: nothing to read.
    if (!s.native && src?.entriesHash && row.source?.entriesHash === src.entriesHash) {
      await dropStaged(db, s.id);
      return { kind: 'unchanged', existingId: row.id, title: row.title };
    }
    staged ??= (await readPacked(db, s.id)).flatMap((p) => p.entries);
    const entries = await readSessionEntries(db, row.id);
    const plan = planReimport({ leafId: row.leafId, entries, source: row.source }, { meta: { ...s.fields, id: s.fileId ?? '' } as SessionMeta, entries: staged }, s.native ? 'native' : 'source', src?.entriesHash);
    if (plan.kind === 'changed') {
      reason ??= plan.reason;
      continue;
    }
    // A transcript's bookkeeping follows the file, so the next check of the same content reads nothing; the
    // app's own export carries another device's bookkeeping, which is not this file's.
    const source = !s.native && row.source && src ? { ...row.source, ...pick(src) } : row.source;
    if (plan.kind === 'unchanged') {
      if (source !== row.source && JSON.stringify(source) !== JSON.stringify(row.source)) {
        const patch = { source, rev, hlc, syncDirty: 1 as const };
        await db.sessions.update(row.id, patch);
        c.written.set(row.id, { ...row, ...patch });
      }
      await dropStaged(db, s.id);
      return { kind: 'unchanged', existingId: row.id, title: row.title };
    }
    c.written.set(row.id, await write(db, row, plan, s.fields.updatedAt, source, rev, hlc));
    await dropStaged(db, s.id);
    return { kind: 'updated', existingId: row.id, title: row.title, entries: plan.append.length, messages: plan.messages, onBranch: plan.onBranch };
  }
  return { kind: 'copy', reason: reason ?? 'its earlier part changed' };
}

/** The bookkeeping fields of the file's source. */
function pick(src: NonNullable<MetaFields['source']>): Partial<NonNullable<MetaFields['source']>> {
  const out: Partial<NonNullable<MetaFields['source']>> = {};
  if (src.fileName !== undefined) out.fileName = src.fileName;
  if (src.hash !== undefined) out.hash = src.hash;
  if (src.entries !== undefined) out.entries = src.entries;
  if (src.entriesHash !== undefined) out.entriesHash = src.entriesHash;
  return out;
}

/** The new entries as rows after the stored ones, marked for sync as every append is, and the session row. */
async function write(db: AppDB, row: SessionRow, plan: Extract<ReimportPlan, { kind: 'updated' }>, updatedAt: number, source: SessionRow['source'], rev: number, hlc: string): Promise<SessionRow> {
  await db.entries.bulkAdd(plan.append.map((e) => unsynced(entryRow(e, row.id, rev))));
  const patch: Partial<SessionRow> = { entryCount: row.entryCount + plan.append.length, rev, hlc, syncDirty: 1, updatedAt: Math.max(row.updatedAt, updatedAt) };
  if (plan.leafId !== null) patch.leafId = plan.leafId;
  if (source) patch.source = source;
  await db.sessions.update(row.id, patch);
  return { ...row, ...patch };
}

async function dropStaged(db: AppDB, stagedId: string): Promise<void> {
  await deleteSessionEntries(db, stagedId);
}
