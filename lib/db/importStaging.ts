import { entriesHash } from '@/lib/formats/reimport';
import { newId } from '@/lib/session/ids';
import type { SessionEntry, SessionMeta, SessionSnapshot } from '@/lib/session/types';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import { deleteSessionEntries, packedRows } from './packed';
import { domainEntry, sessionRow, type MetaFields } from './rows';
import type { PackedRow, SessionRow } from './schema';
import { decideAndWrite, findCandidates, hasCandidates, type StagedSession } from './reimportStore';
import { nextRev, prepareImport, sameSourceKey, type ImportOutcome, type Tx } from './sessions';
import { nextLocalHlc } from './syncMarks';

/**
 * Writing one imported file in bounded steps, all or nothing.
 *
 * A 100 MB export is thousands of sessions: one transaction for all of them
 * holds the whole file in memory and blocks the database for seconds. So the
 * entries are written a batch at a time (`add`), each batch in its own short
 * transaction, and nothing of the file is visible until `commit` writes the
 * session rows, all in one transaction. Each session's entries are written
 * packed, a few rows per session (packed.ts); in a sync space the sync worker
 * turns them into marked rows before it pushes. Entries without a session row are
 * invisible: every reader (the list, loading, export, the sync outbox) starts
 * from session rows. `abort` (a cancel, a bad line further down the file, a
 * full disk) deletes the entries written so far, so a file lands whole or not
 * at all, and the session rows were never there for another tab to see.
 *
 * Why staging by withholding the rows rather than writing rows with a
 * "staged" flag: no reader has to learn about a flag, and a commit writes
 * only the small rows, never the entries a second time.
 *
 * A tab closed mid-import leaves entries with no row. The staging record
 * (a settings row listing the session ids, refreshed with every batch) lets
 * the next import sweep them once they are clearly abandoned.
 */

/**
 * Entries per write transaction: about 1 MB of a ChatGPT export. Two batches are alive at once (one
 * written, one filling), and so are their serialized copies in IndexedDB's queue; in Chromium,
 * 500 instead of 2,000 took the renderer's peak from about 1.9× to 1.3× a 100 MB file, for the same
 * CPU time in the browser process (which does not depend on the batch size between 250 and 8,000).
 */
const BATCH_ENTRIES = 500;
/** A staging record not refreshed for this long belongs to a tab that is gone. */
const ABANDONED_MS = 10 * 60_000;
const STAGING_PREFIX = 'import-staging:';

interface StagingRecord {
  sessionIds: string[];
  at: number;
}

interface Pending {
  /** The session's position in the file (duplicates are reported by it). */
  index: number;
  id: string;
  entryCount: number;
  /** Read at commit: a streamed export's hash is known only after its last byte. */
  meta: SessionMeta | MetaFields;
  /** The app's own export: the id the file gave the session, by which a session made or synced here is found. */
  fileId?: string;
  native: boolean;
}

export interface StageOptions {
  fileName?: string;
  /** Store sessions even when the same ones were imported before (the user asked for a copy). */
  allowDuplicates?: boolean;
  /** Only the sessions at these positions of the file ("Import a copy" of the duplicates). */
  only?: ReadonlySet<number>;
  signal?: AbortSignal;
  /** After each batch: sessions whose entries are stored. */
  onStored?: (stored: number) => void;
  /** Entries per write transaction (tests make it small). */
  batchEntries?: number;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DOMException('The import was cancelled.', 'AbortError');
}

export class StagedImport {
  private readonly key = `${STAGING_PREFIX}${newId()}`;
  /** Sessions whose entries are stored or being written: what an abort deletes, and (all written by then) what a commit lists. */
  private readonly staged: Pending[] = [];
  /** How many of them are stored. */
  private stored = 0;
  /**
   * The batch being written. The database works in its own thread, so the next batch is parsed
   * meanwhile; never more than one in flight, so memory stays at about two batches.
   */
  private inFlight: Promise<void> | null = null;
  private buffer: { index: number; snap: SessionSnapshot; hashFollows: boolean; native: boolean }[] = [];
  private buffered = 0;
  private seen = 0;
  private finished = false;

  constructor(
    private readonly opts: StageOptions = {},
    private readonly db: AppDB = getDB(),
  ) {}

  /** Sessions read from the file so far. */
  get read(): number {
    return this.seen;
  }

  /** Sessions to be stored so far: read, and asked for (`only`). */
  get accepted(): number {
    return this.staged.length + this.buffer.length;
  }

  /**
   * Takes sessions in file order; writes a batch whenever enough entries are
   * waiting. `hashFollows`: the file's hash will be set on these metas before
   * `commit` (a streamed export), so no content hash is computed for them.
   * `native`: the sessions are the app's own export (matched by their id too,
   * and never taken as a tool's transcript of themselves).
   */
  async add(snapshots: readonly SessionSnapshot[], hashFollows = false, native = false): Promise<void> {
    throwIfAborted(this.opts.signal);
    for (const snap of snapshots) {
      const index = this.seen++;
      if (this.opts.only && !this.opts.only.has(index)) continue;
      this.buffer.push({ index, snap, hashFollows, native });
      this.buffered += snap.entries.length;
      if (this.buffered >= (this.opts.batchEntries ?? BATCH_ENTRIES)) await this.flush();
    }
  }

  /** Waits for the batch being written; its error, if any, is this call's. */
  private async settle(): Promise<void> {
    const writing = this.inFlight;
    this.inFlight = null;
    if (writing) await writing;
  }

  /** Starts writing the waiting sessions' entries in one transaction (after the previous batch); their rows wait for `commit`. */
  private async flush(): Promise<void> {
    throwIfAborted(this.opts.signal);
    await this.settle();
    const batch = this.buffer;
    this.buffer = [];
    this.buffered = 0;
    if (batch.length === 0) return;
    const db = this.db;
    const written: { pending: Pending; entries: SessionEntry[] }[] = [];
    // Domain fields only (rows.ts), picked here, once, outside the transaction: the converted sessions are dropped with the batch.
    for (const { index, snap, hashFollows, native } of batch) {
      // What a later copy of a transcript is compared with (lib/formats/reimport.ts), set in place: a streamed
      // export's file hash is set on this same source object later.
      if (!native && snap.meta.source?.originalId) Object.assign(snap.meta.source, { entries: snap.entries.length, entriesHash: entriesHash(snap.entries) });
      // A content hash for sessions that carry none (the app's own exports); a streamed export gets the file's at commit.
      const { meta, entries } = hashFollows ? { meta: snap.meta, entries: snap.entries.map(domainEntry) } : prepareImport(snap, this.opts.fileName);
      written.push({ pending: { index, id: newId(), entryCount: entries.length, meta, native, ...(native ? { fileId: snap.meta.id } : {}) }, entries });
    }
    this.staged.push(...written.map((w) => w.pending));
    const record: StagingRecord = { sessionIds: this.staged.map((p) => p.id), at: Date.now() };
    const writing = guarded(() =>
      db.transaction('rw', [db.packedEntries, db.meta, db.settings], async (tx) => {
        const rev = await nextRev(tx as Tx);
        // Packed in a sync space too: the sync worker unpacks and marks them before pushing (sync.ts unpackForPush).
        const packed: PackedRow[] = [];
        for (const w of written) packed.push(...packedRows(w.pending.id, w.entries, rev));
        await db.packedEntries.bulkAdd(packed);
        await db.settings.put({ key: this.key, value: record });
      }),
    ).then(() => {
      this.stored += written.length;
      this.opts.onStored?.(this.stored);
    });
    // Seen by the next flush, commit or abort; until then a failure must not count as unhandled.
    writing.catch(() => {});
    this.inFlight = writing;
  }

  /**
   * Writes the rest and then every session row in one transaction. A session
   * that is one stored already is not added: a transcript known by its tool's
   * id, or the app's own export by its session id, updates the stored session
   * when it grew, and is imported as a copy (with why) when its earlier part
   * changed (reimportStore.ts); any other session whose source (file hash and
   * conversation) is stored is a duplicate. Two indexed queries for the whole
   * file; the staged entries of what is not added are deleted again.
   */
  async commit(): Promise<ImportOutcome> {
    if (this.finished) throw new Error('This import was already committed or aborted.');
    await this.flush();
    await this.settle();
    throwIfAborted(this.opts.signal);
    const db = this.db;
    const outcome = await guarded(() =>
      db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.meta, db.syncState, db.settings], async (tx) => {
        const outcome: ImportOutcome = { imported: [], duplicates: [] };
        const rev = await nextRev(tx as Tx);
        const hlc = await nextLocalHlc(db);
        const metas = this.staged.map((p) => ({ ...p, fields: prepareImport({ meta: p.meta as SessionMeta, entries: [] }, undefined).meta }));
        const asStaged = (p: (typeof metas)[number]): StagedSession => ({ id: p.id, fields: p.fields, native: p.native, ...(p.fileId !== undefined ? { fileId: p.fileId } : {}) });
        // Sessions of the file that are sessions stored already (a transcript by its tool and id, the app's own export by
        // its session id too) are decided one by one; the others are new unless the same file was imported before (hash).
        const candidates = this.opts.allowDuplicates ? null : await findCandidates(db, metas.map(asStaged));
        const seen = new Map<string, string>();
        if (candidates) {
          const hashes = [...new Set(metas.flatMap((p) => (p.fields.source?.hash && !hasCandidates(candidates, asStaged(p)) ? [p.fields.source.hash] : [])))];
          const existing = hashes.length ? await db.sessions.where('source.hash').anyOf(hashes).toArray() : [];
          for (const r of existing) seen.set(sameSourceKey(r.source)!, r.id);
        }
        const rows: SessionRow[] = [];
        const updated: NonNullable<ImportOutcome['updated']> = [];
        const copies: NonNullable<ImportOutcome['copies']> = [];
        for (const p of metas) {
          if (candidates && hasCandidates(candidates, asStaged(p))) {
            const d = await decideAndWrite(db, asStaged(p), candidates, rev, hlc);
            if (d.kind === 'unchanged') {
              outcome.duplicates.push({ index: p.index, title: d.title, existingId: d.existingId });
              continue;
            }
            if (d.kind === 'updated') {
              updated.push({ index: p.index, id: d.existingId, title: d.title, entries: d.entries, messages: d.messages, onBranch: d.onBranch });
              continue;
            }
            if (d.kind === 'copy') copies.push({ index: p.index, id: p.id, title: p.fields.title, reason: d.reason });
            rows.push({ ...sessionRow(p.fields, { id: p.id, entryCount: p.entryCount, rev }), hlc, syncDirty: 1 });
            continue;
          }
          const key = sameSourceKey(p.fields.source);
          const existingId = key === undefined || !candidates ? undefined : seen.get(key);
          if (existingId !== undefined) {
            outcome.duplicates.push({ index: p.index, title: p.fields.title, existingId });
            await deleteSessionEntries(db, p.id);
            continue;
          }
          rows.push({ ...sessionRow(p.fields, { id: p.id, entryCount: p.entryCount, rev }), hlc, syncDirty: 1 });
          if (key !== undefined) seen.set(key, p.id);
        }
        if (updated.length) outcome.updated = updated;
        if (copies.length) outcome.copies = copies;
        await db.sessions.bulkAdd(rows);
        await db.settings.delete(this.key);
        outcome.imported = rows;
        return outcome;
      }),
    );
    this.finished = true;
    return outcome;
  }

  /** Deletes whatever this import wrote. Safe to call after a failed write or twice. */
  async abort(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.buffer = [];
    // A batch still being written is deleted too, once it has landed (or failed).
    await this.settle().catch(() => {});
    await deleteStaged(this.db, this.key, this.staged.map((p) => p.id));
  }
}

async function deleteStaged(db: AppDB, key: string, sessionIds: readonly string[]): Promise<void> {
  await guarded(() =>
    db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.settings], async () => {
      for (const id of sessionIds) {
        // A row means the import committed after all: never delete a committed session.
        if (await db.sessions.get(id)) continue;
        await deleteSessionEntries(db, id);
      }
      await db.settings.delete(key);
    }),
  );
}

/** Deletes the entries of imports abandoned mid-way (their tab closed): staging records not refreshed for ten minutes. */
export async function sweepAbandonedImports(db: AppDB = getDB(), now = Date.now()): Promise<number> {
  const stale = (await db.settings.where(':id').startsWith(STAGING_PREFIX).toArray()).filter((r) => {
    const rec = r.value as Partial<StagingRecord> | undefined;
    return !rec || typeof rec.at !== 'number' || now - rec.at > ABANDONED_MS;
  });
  for (const r of stale) {
    const ids = (r.value as Partial<StagingRecord> | undefined)?.sessionIds;
    await deleteStaged(db, r.key, Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : []);
  }
  return stale.length;
}
