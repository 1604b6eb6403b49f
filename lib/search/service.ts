import MiniSearch, { type Options } from 'minisearch';
import type { EntryId, SessionEntry, StoredSession } from '@/lib/session/types';
import { hitKind, searchableText, type HitKind } from './documents';
import { makeSnippet, type Snippet } from './snippet';

/**
 * Full-text search over every session's messages and summaries, for the
 * search worker. The index lives in memory (MiniSearch) and is kept in step
 * with storage by reconciling revisions: each session row carries the
 * revision of its last write, so a sync asks storage only for the entries of
 * sessions whose revision moved, and drops sessions that are gone. That one
 * rule covers this tab's appends, imports, deletions and other tabs' writes
 * alike, and the first sync is the whole build.
 *
 * Building is the slow part (a 100 MB ChatGPT export: tens of seconds), so
 * after a sync that indexed many entries the index is stored (IndexStore)
 * with the revision it reached for each session. The next load reads it back
 * and the first sync then reads only what changed since: the same rule.
 */

/** What the service reads from storage (lib/db in the worker, the test's store in tests). */
export interface SearchSource {
  listSessions(): Promise<Pick<StoredSession, 'id' | 'title' | 'rev' | 'updatedAt'>[]>;
  /** Entries written after revision `rev`, and the newest revision among them. */
  entriesChangedSince(sessionId: string, rev: number): Promise<{ entries: SessionEntry[]; rev: number }>;
  getEntries(sessionId: string, ids: readonly EntryId[]): Promise<SessionEntry[]>;
}

export interface SearchHit {
  sessionId: string;
  sessionTitle: string;
  /** The matching entry; null when the session's title matched. */
  entryId: EntryId | null;
  kind: HitKind | 'title';
  snippet: Snippet;
  /** When the entry was written (the session's last change for a title hit). */
  timestamp: number;
}

export interface SearchResults {
  query: string;
  hits: SearchHit[];
  /** Matches in all, of which `hits` are the best. */
  total: number;
}

export interface SyncReport {
  /** The index was read back from the stored copy before this sync (the first of a page). */
  loaded: boolean;
  sessions: number;
  /** Sessions whose entries were read in this sync. */
  sessionsRead: number;
  /** Entries (re)indexed or dropped in this sync. */
  entriesChanged: number;
  documents: number;
  ms: number;
}

export interface SearchService {
  /** Brings the index up to date with storage. Searches sync first, so calling this is only a warm-up. */
  sync(): Promise<SyncReport>;
  search(query: string, opts?: { limit?: number }): Promise<SearchResults>;
}

/** Where the index is kept between loads (lib/db/searchIndexStore.ts: a database of its own, a cache). */
export interface IndexStore {
  load(): Promise<PersistedIndex | undefined>;
  save(index: PersistedIndex): Promise<void>;
}

export interface PersistedIndex {
  /** INDEX_FORMAT when it was written: a copy in another format is rebuilt, not read. */
  format: number;
  /** MiniSearch's own serialisation. */
  index: string;
  /** Per session: id, row revision seen, entry revision reached, title, last change, ids of its indexed entries. */
  sessions: [string, number, number, string, number, EntryId[]][];
}

/**
 * Bumped whenever what goes into the index changes (searchableText, the
 * tokenizer, the fields): a stored index of another format is dropped.
 */
export const INDEX_FORMAT = 1;

/** Entries (re)indexed since the last stored copy before it is worth storing again (storing costs seconds). */
export const STORE_AFTER_CHANGES = 2_000;
/** Quiet time after a sync before storing, so a burst of syncs stores once. */
const STORE_DELAY_MS = 2_000;

interface IndexedSession {
  /** The session row's revision when it was last read: a different one means the session changed. */
  rev: number;
  /**
   * The newest entry revision read. It can be ahead of the row's: token caches are
   * written to entries without touching the row (they change no text), so it is
   * only where the next read starts, never what tells a change.
   */
  entriesRev: number;
  title: string;
  updatedAt: number;
  /** Ids of the session's entries that are in the index. */
  entries: Set<EntryId>;
}

interface Doc {
  id: string;
  title?: string;
  text?: string;
}

// Session ids are storage's own (URL-safe letters); entry ids come from files and may hold anything.
const SEP = '\u0001';
const docId = (sessionId: string, entryId: EntryId | null) => `${sessionId}${SEP}${entryId ?? ''}`;
function parseDocId(id: string): { sessionId: string; entryId: EntryId | null } {
  const at = id.indexOf(SEP);
  const entryId = id.slice(at + 1);
  return { sessionId: id.slice(0, at), entryId: entryId === '' ? null : entryId };
}

export const DEFAULT_LIMIT = 30;

const WORD_SEPARATORS = /[^\p{L}\p{N}_]+/u;

const INDEX_OPTIONS: Options<Doc> = {
  fields: ['title', 'text'],
  // Words are runs of letters, digits and underscores: MiniSearch's own splitter keeps symbols such
  // as backticks and asterisks on words, so "`useState`" in markdown would not be found as useState.
  tokenize: (text: string) => text.split(WORD_SEPARATORS),
  searchOptions: {
    boost: { title: 2 },
    prefix: true,
    // Typos in longer words only: short words have too many neighbours.
    fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
    combineWith: 'AND',
  },
};

export interface SearchServiceOptions {
  now?: () => number;
  store?: IndexStore;
  /** Tests store sooner and after fewer changes. */
  storeAfterChanges?: number;
  storeDelayMs?: number;
}

export function createSearchService(source: SearchSource, opts: SearchServiceOptions = {}): SearchService {
  const now = opts.now ?? (() => Date.now());
  const { store, storeAfterChanges = STORE_AFTER_CHANGES, storeDelayMs = STORE_DELAY_MS } = opts;
  let index = new MiniSearch<Doc>(INDEX_OPTIONS);
  let sessions = new Map<string, IndexedSession>();
  let loadTried = false;
  let changedSinceStored = 0;
  let storeTimer: ReturnType<typeof setTimeout> | null = null;

  /** Reads the stored copy, once per page; anything wrong with it means a rebuild, nothing worse. */
  async function loadStored(): Promise<boolean> {
    if (loadTried || !store) return false;
    loadTried = true;
    try {
      const stored = await store.load();
      if (!stored || stored.format !== INDEX_FORMAT) return false;
      index = MiniSearch.loadJSON<Doc>(stored.index, INDEX_OPTIONS);
      sessions = new Map(stored.sessions.map(([id, rev, entriesRev, title, updatedAt, entries]) => [id, { rev, entriesRev, title, updatedAt, entries: new Set(entries) }]));
      return true;
    } catch {
      index = new MiniSearch<Doc>(INDEX_OPTIONS);
      sessions = new Map();
      return false;
    }
  }

  function storeSoon() {
    if (!store || changedSinceStored < storeAfterChanges) return;
    if (storeTimer !== null) clearTimeout(storeTimer);
    storeTimer = setTimeout(() => {
      storeTimer = null;
      // Taken between syncs, so the index and the revisions in the copy agree.
      if (running) return storeSoon();
      const copy: PersistedIndex = {
        format: INDEX_FORMAT,
        index: JSON.stringify(index),
        sessions: [...sessions].map(([id, s]) => [id, s.rev, s.entriesRev, s.title, s.updatedAt, [...s.entries]]),
      };
      changedSinceStored = 0;
      store.save(copy).catch(() => {
        // Storage full or refused: the index stays in memory and is rebuilt on the next load.
      });
    }, storeDelayMs);
  }

  function putDoc(doc: Doc) {
    if (index.has(doc.id)) index.discard(doc.id);
    index.add(doc);
  }

  function dropSession(id: string, s: IndexedSession) {
    for (const e of s.entries) index.discard(docId(id, e));
    index.discard(docId(id, null));
    sessions.delete(id);
  }

  async function syncOnce(): Promise<SyncReport> {
    const started = now();
    const loaded = await loadStored();
    const rows = await source.listSessions();
    const live = new Set(rows.map((r) => r.id));
    for (const [id, s] of sessions) if (!live.has(id)) dropSession(id, s);
    let sessionsRead = 0;
    let entriesChanged = 0;
    for (const row of rows) {
      let s = sessions.get(row.id);
      if (s && s.rev === row.rev) continue;
      // A revision that went back means the database was replaced: read the session whole.
      if (s && row.rev < s.rev) {
        dropSession(row.id, s);
        s = undefined;
      }
      if (!s) {
        s = { rev: 0, entriesRev: 0, title: '', updatedAt: row.updatedAt, entries: new Set() };
        sessions.set(row.id, s);
      }
      if (s.title !== row.title) {
        putDoc({ id: docId(row.id, null), title: row.title });
        s.title = row.title;
      }
      s.updatedAt = row.updatedAt;
      const changed = await source.entriesChangedSince(row.id, s.entriesRev);
      sessionsRead++;
      for (const entry of changed.entries) {
        const text = searchableText(entry);
        const id = docId(row.id, entry.id);
        if (text) {
          putDoc({ id, text });
          s.entries.add(entry.id);
          entriesChanged++;
        } else if (s.entries.delete(entry.id)) {
          index.discard(id);
          entriesChanged++;
        }
      }
      s.rev = row.rev;
      s.entriesRev = Math.max(s.entriesRev, changed.rev);
    }
    changedSinceStored += entriesChanged;
    storeSoon();
    return { loaded, sessions: sessions.size, sessionsRead, entriesChanged, documents: index.documentCount, ms: now() - started };
  }

  // One sync at a time. A call while one runs gets the next one (shared by every caller meanwhile),
  // since what the running sync read may already be stale.
  let running: Promise<SyncReport> | null = null;
  let queued: Promise<SyncReport> | null = null;
  function sync(): Promise<SyncReport> {
    if (!running) {
      running = syncOnce().finally(() => {
        running = null;
      });
      return running;
    }
    queued ??= running.then(
      () => {
        queued = null;
        return sync();
      },
      () => {
        queued = null;
        return sync();
      },
    );
    return queued;
  }

  async function search(query: string, { limit = DEFAULT_LIMIT }: { limit?: number } = {}): Promise<SearchResults> {
    const q = query.trim();
    if (!q) return { query, hits: [], total: 0 };
    await sync();
    const results = index.search(q);
    const top = results.slice(0, limit).map((r) => ({ ...parseDocId(String(r.id)), terms: r.terms }));
    // One read per session for the snippets' text: storage is the only copy, the index keeps none.
    const bySession = new Map<string, EntryId[]>();
    for (const t of top) if (t.entryId !== null) bySession.set(t.sessionId, [...(bySession.get(t.sessionId) ?? []), t.entryId]);
    const entries = new Map<string, SessionEntry>();
    for (const [sessionId, ids] of bySession) for (const e of await source.getEntries(sessionId, ids)) entries.set(docId(sessionId, e.id), e);
    const hits: SearchHit[] = [];
    for (const t of top) {
      const s = sessions.get(t.sessionId);
      if (!s) continue;
      if (t.entryId === null) {
        hits.push({ sessionId: t.sessionId, sessionTitle: s.title, entryId: null, kind: 'title', snippet: makeSnippet(s.title, t.terms), timestamp: s.updatedAt });
        continue;
      }
      // Deleted between the sync and this read: not a hit any more.
      const entry = entries.get(docId(t.sessionId, t.entryId));
      if (!entry) continue;
      hits.push({
        sessionId: t.sessionId,
        sessionTitle: s.title,
        entryId: t.entryId,
        kind: hitKind(entry),
        snippet: makeSnippet(searchableText(entry), t.terms),
        timestamp: entry.timestamp,
      });
    }
    // A session found by its messages is not listed again for its title: the messages say more.
    const byMessage = new Set(hits.flatMap((h) => (h.entryId !== null ? [h.sessionId] : [])));
    const shown = hits.filter((h) => h.entryId !== null || !byMessage.has(h.sessionId));
    return { query, hits: shown, total: results.length - (hits.length - shown.length) };
  }

  return { sync, search };
}
