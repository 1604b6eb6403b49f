import type { SessionStore } from '@/lib/flows/ports';
import type { Calibration } from '@/lib/tokens/calibration';
import { getLastBackupAt, loadAppSettings, saveAppSettings, setLastBackupAt } from './appSettings';
import { getDB, type AppDB } from './db';
import { loadBrowserProviders, removeBrowserProvider, saveBrowserProvider } from './providers';
import { toStorageError } from './errors';
import { deleteSessions, exportSnapshots, organizeSessions, renameProject } from './organize';
import {
  appendEntries,
  createSession,
  deleteSession,
  entriesChangedSince,
  exportAllSnapshots,
  exportSnapshot,
  getSession,
  importSnapshots,
  listSessions,
  loadSession,
  renameSession,
  retitleSession,
  setEntryTokens,
  updateEntry,
  updateSession,
} from './sessions';
import { getCalibration, setCalibration } from './settings';
import { getPendingSummary, offerPendingSummary, takePendingSummary, updatePendingSummary, watchPendingSummary } from './pendingSummaries';
import { observeSessionList } from './sessionList';
import { observeRows, type Unsubscribe } from './watch';

/**
 * The flows' storage port over IndexedDB: this browser's database, or the
 * one given (tests open their own on fake-indexeddb).
 */
export function createSessionStore(db?: AppDB): SessionStore {
  const the = () => db ?? getDB();
  return {
    createSession: (init) => createSession(init, the()),
    getSession: (id) => getSession(id, the()),
    loadSession: (id) => loadSession(id, the()),
    entriesChangedSince: (id, rev) => entriesChangedSince(id, rev, the()),
    watchSession: (id, onRow, onError) => observeRows(the(), [{ table: the().sessions, keys: [id] }], () => the().sessions.get(id), onRow, onError),
    appendEntries: (sessionId, parentId, entries, opts) => appendEntries(sessionId, parentId, entries, opts, the()),
    updateEntry: (sessionId, entryId, update) => updateEntry(sessionId, entryId, update, the()),
    updateSession: (id, patch) => updateSession(id, patch, the()),
    renameSession: (id, title) => renameSession(id, title, the()),
    retitleSession: (id, expected, title) => retitleSession(id, expected, title, the()),
    deleteSession: (id) => deleteSession(id, the()),
    deleteSessions: (ids) => deleteSessions(ids, the()),
    organizeSessions: (ids, change) => organizeSessions(ids, change, the()),
    renameProject: (from, to) => renameProject(from, to, the()),
    exportSnapshots: (ids) => exportSnapshots(ids, the()),
    listSessions: (search) => listSessions(search, the()),
    importSnapshots: (snapshots, opts) => importSnapshots(snapshots, opts, the()),
    exportSnapshot: (id) => exportSnapshot(id, the()),
    exportAllSnapshots: () => exportAllSnapshots(the()),
    setEntryTokens: (sessionId, tokens) => setEntryTokens(sessionId, tokens, the()),
    getCalibration: (model) => getCalibration<Calibration>(model, the()),
    setCalibration: (model, value) => setCalibration(model, value, the()),
    loadAppSettings: () => loadAppSettings(the()),
    saveAppSettings: (patch) => saveAppSettings(patch, the()),
    loadBrowserProviders: () => loadBrowserProviders(the()),
    saveBrowserProvider: (p) => saveBrowserProvider(p, the()),
    removeBrowserProvider: (id) => removeBrowserProvider(id, the()),
    getPendingSummary: (sessionId) => getPendingSummary(sessionId, the()),
    offerPendingSummary: (p) => offerPendingSummary(p, the()),
    updatePendingSummary: (sessionId, id, patch) => updatePendingSummary(sessionId, id, patch, the()),
    takePendingSummary: (sessionId, id) => takePendingSummary(sessionId, id, the()),
    watchPendingSummary: (sessionId, onValue, onError) => watchPendingSummary(sessionId, onValue, onError, the()),
    getLastBackupAt: () => getLastBackupAt(the()),
    setLastBackupAt: (at) => setLastBackupAt(at, the()),
  };
}

export const browserSessionStore: SessionStore = createSessionStore();

/** The session list, newest first, filtered by title; again after every change to a session, reading only the rows that changed. */
export function watchSessionList(search: string, onRows: (rows: Awaited<ReturnType<typeof listSessions>>) => void): Unsubscribe {
  return observeSessionList(getDB(), search, onRows);
}

/** One session row, again after every change to it; undefined when it does not exist. */
export function watchSessionRow(id: string, onRow: (row: Awaited<ReturnType<typeof getSession>>) => void): Unsubscribe {
  const db = getDB();
  return observeRows(db, [{ table: db.sessions, keys: [id] }], () => getSession(id, db), onRow);
}

/**
 * Opens the database once at start-up, so a browser that refuses IndexedDB
 * (private windows, disabled site data) is found before anything else runs.
 * Rejects with a StorageError that says what to do.
 */
export async function openDatabase(): Promise<void> {
  try {
    if (typeof indexedDB === 'undefined') throw Object.assign(new Error('indexedDB missing'), { name: 'MissingAPIError' });
    await getDB().open();
  } catch (err) {
    throw toStorageError(err);
  }
}
