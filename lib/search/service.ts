import MiniSearch from 'minisearch';
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

interface IndexedSession {
  rev: number;
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

export function createSearchService(source: SearchSource, opts: { now?: () => number } = {}): SearchService {
  const now = opts.now ?? (() => Date.now());
  const index = new MiniSearch<Doc>({
    fields: ['title', 'text'],
    // Words are runs of letters, digits and underscores: MiniSearch's own splitter keeps symbols such
    // as backticks and asterisks on words, so "`useState`" in markdown would not be found as useState.
    tokenize: (text) => text.split(WORD_SEPARATORS),
    searchOptions: {
      boost: { title: 2 },
      prefix: true,
      // Typos in longer words only: short words have too many neighbours.
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: 'AND',
    },
  });
  const sessions = new Map<string, IndexedSession>();

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
        s = { rev: 0, title: '', updatedAt: row.updatedAt, entries: new Set() };
        sessions.set(row.id, s);
      }
      if (s.title !== row.title) {
        putDoc({ id: docId(row.id, null), title: row.title });
        s.title = row.title;
      }
      s.updatedAt = row.updatedAt;
      const changed = await source.entriesChangedSince(row.id, s.rev);
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
      s.rev = Math.max(row.rev, changed.rev);
    }
    return { sessions: sessions.size, sessionsRead, entriesChanged, documents: index.documentCount, ms: now() - started };
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
