import type { SessionStore } from '@/lib/flows/ports';
import type { Calibration } from '@/lib/tokens/calibration';
import { getLastBackupAt, loadAppSettings, saveAppSettings, setLastBackupAt } from './appSettings';
import { loadClientCredentials, saveClientCredentials } from './credentials';
import { getDB } from './db';
import { toStorageError } from './errors';
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
  setEntryTokens,
  updateEntry,
  updateSession,
} from './sessions';
import { getCalibration, setCalibration } from './settings';
import { observe, type Unsubscribe } from './watch';

/** The flows' storage port over this browser's IndexedDB. */
export const browserSessionStore: SessionStore = {
  createSession: (init) => createSession(init),
  getSession: (id) => getSession(id),
  loadSession: (id) => loadSession(id),
  entriesChangedSince: (id, rev) => entriesChangedSince(id, rev),
  watchSession: (id, onRow, onError) => observe(() => getDB().sessions.get(id), onRow, onError),
  appendEntries: (sessionId, parentId, entries, opts) => appendEntries(sessionId, parentId, entries, opts),
  updateEntry: (sessionId, entryId, update) => updateEntry(sessionId, entryId, update),
  updateSession: (id, patch) => updateSession(id, patch),
  renameSession: (id, title) => renameSession(id, title),
  deleteSession: (id) => deleteSession(id),
  listSessions: (search) => listSessions(search),
  importSnapshots: (snapshots, opts) => importSnapshots(snapshots, opts),
  exportSnapshot: (id) => exportSnapshot(id),
  exportAllSnapshots: () => exportAllSnapshots(),
  setEntryTokens: (sessionId, tokens) => setEntryTokens(sessionId, tokens),
  getCalibration: (model) => getCalibration<Calibration>(model),
  setCalibration: (model, value) => setCalibration(model, value),
  loadAppSettings: () => loadAppSettings(),
  saveAppSettings: (patch) => saveAppSettings(patch),
  loadClientCredentials: () => loadClientCredentials(),
  saveClientCredentials: (c) => saveClientCredentials(c),
  getLastBackupAt: () => getLastBackupAt(),
  setLastBackupAt: (at) => setLastBackupAt(at),
};

/** The session list, newest first, filtered by title; again after every change to any session. */
export function watchSessionList(search: string, onRows: (rows: Awaited<ReturnType<typeof listSessions>>) => void): Unsubscribe {
  return observe(() => listSessions(search), onRows);
}

/** One session row, again after every change to it; undefined when it does not exist. */
export function watchSessionRow(id: string, onRow: (row: Awaited<ReturnType<typeof getSession>>) => void): Unsubscribe {
  return observe(() => getSession(id), onRow);
}

/** The global settings, validated, again after every change. */
export function watchAppSettings(onSettings: (s: Awaited<ReturnType<typeof loadAppSettings>>) => void): Unsubscribe {
  return observe(() => loadAppSettings(), onSettings);
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
