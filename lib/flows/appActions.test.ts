import { describe, expect, it } from 'vitest';
import { DEFAULT_APP_SETTINGS, MAX_CONTEXT_WINDOW } from '@/lib/settings/appSettings';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * The app-wide actions (sessions list, settings, search) over the real store:
 * what they store, what they tell the user, and that a storage failure is
 * said in a sentence and resolves with a value the UI can act on (nothing
 * thrown into a click handler).
 */

const quotaFull = () => Object.assign(new Error('The storage quota is exhausted.'), { name: 'QuotaExceededError' });

function setup() {
  const ports = testPorts();
  return { ports, flows: new AppFlows(ports) };
}

describe('sessions list actions', () => {
  it('create, rename and delete store what they say, and deleting names the session', async () => {
    const { ports, flows } = setup();
    const row = (await flows.createSession())!;
    expect(await ports.store.getSession(row.id)).toMatchObject({ id: row.id });
    await flows.renameSession(row.id, 'Borrow checker notes');
    expect((await ports.store.getSession(row.id))!.title).toBe('Borrow checker notes');
    expect(await flows.deleteSession({ id: row.id, title: 'Borrow checker notes' })).toBe(true);
    expect(await ports.store.getSession(row.id)).toBeUndefined();
    expect(ports.notices).toEqual([{ level: 'success', message: 'Deleted “Borrow checker notes”' }]);
  });

  it('a storage failure is told as an error and leaves the session as it was', async () => {
    const { ports, flows } = setup();
    const row = (await flows.createSession())!;
    ports.store.createSession = async () => Promise.reject(quotaFull());
    ports.store.renameSession = async () => Promise.reject(quotaFull());
    ports.store.deleteSession = async () => Promise.reject(quotaFull());
    expect(await flows.createSession()).toBeNull();
    await flows.renameSession(row.id, 'Never stored');
    expect(await flows.deleteSession(row)).toBe(false);
    expect(ports.notices).toEqual(Array.from({ length: 3 }, () => ({ level: 'error', message: 'The storage quota is exhausted.' })));
    expect(await ports.store.getSession(row.id)).toMatchObject({ title: row.title });
    expect(await ports.store.listSessions()).toHaveLength(1);
  });
});

describe('settings', () => {
  it('saveAppSettings stores the patch and says nothing; a failure resolves false with the reason', async () => {
    const { ports, flows } = setup();
    expect(await flows.saveAppSettings({ summarizerModel: 'compat:mock-small' })).toBe(true);
    expect((await ports.store.loadAppSettings()).summarizerModel).toBe('compat:mock-small');
    expect(ports.notices).toEqual([]);
    ports.store.saveAppSettings = async () => Promise.reject(quotaFull());
    expect(await flows.saveAppSettings({ summarizerModel: 'compat:mock-large' })).toBe(false);
    expect(ports.notices).toEqual([{ level: 'error', message: 'The storage quota is exhausted.' }]);
  });

  it('the Settings dialog stores the app settings and the open session’s compaction overrides, then says so', async () => {
    const { ports, flows } = setup();
    const row = (await flows.createSession())!;
    const overrides = { keepRecentTokens: 4_000 };
    await flows.saveSettings({ app: { branchLeaveDefault: 'summarize' }, session: { id: row.id, compaction: overrides } });
    expect((await ports.store.loadAppSettings()).branchLeaveDefault).toBe('summarize');
    expect((await ports.store.getSession(row.id))!.compaction).toEqual(overrides);
    await flows.saveSettings({ app: { branchLeaveDefault: 'ask' }, session: { id: row.id, compaction: undefined } });
    expect((await ports.store.getSession(row.id))!.compaction).toBeUndefined();
    expect(ports.notices).toEqual([
      { level: 'success', message: 'Settings saved' },
      { level: 'success', message: 'Settings saved' },
    ]);
  });

  it('the Settings dialog without an open session touches no session', async () => {
    const { ports, flows } = setup();
    const row = (await flows.createSession())!;
    let sessionWrites = 0;
    const update = ports.store.updateSession.bind(ports.store);
    ports.store.updateSession = async (...args) => {
      sessionWrites++;
      return update(...args);
    };
    await flows.saveSettings({ app: { compaction: { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 2_048 } } });
    expect((await ports.store.loadAppSettings()).compaction.reserveTokens).toBe(2_048);
    expect(sessionWrites).toBe(0);
    expect((await ports.store.getSession(row.id))!.compaction).toBeUndefined();
  });

  it('the Settings dialog is told a storage failure by a rejection, and nothing claims it saved', async () => {
    const { ports, flows } = setup();
    ports.store.saveAppSettings = async () => Promise.reject(quotaFull());
    await expect(flows.saveSettings({ app: { summarizerModel: 'x' } })).rejects.toThrow('The storage quota is exhausted.');
    expect(ports.notices).toEqual([]);
  });

  it('a context window is a whole number from 256 to the largest window; anything else is refused and nothing stored', async () => {
    const { ports, flows } = setup();
    const model = 'ollama:llama3';
    for (const bad of [255, MAX_CONTEXT_WINDOW + 1, 4096.5, Number.NaN, -8192]) expect(await flows.setContextWindow(model, bad)).toBe(false);
    expect(ports.notices).toHaveLength(5);
    expect(new Set(ports.notices.map((n) => `${n.level}: ${n.message}`))).toEqual(new Set(['error: A context window is a whole number of tokens from 256 to 100,000,000.']));
    expect((await ports.store.loadAppSettings()).contextWindows).toEqual({});
    expect(await flows.setContextWindow(model, 256)).toBe(true);
    expect(await flows.setContextWindow('compat:mock-large', MAX_CONTEXT_WINDOW)).toBe(true);
    expect((await ports.store.loadAppSettings()).contextWindows).toEqual({ [model]: 256, 'compat:mock-large': MAX_CONTEXT_WINDOW });
    expect(await flows.setContextWindow(model, null)).toBe(true);
    expect((await ports.store.loadAppSettings()).contextWindows).toEqual({ 'compat:mock-large': MAX_CONTEXT_WINDOW });
  });

  it('a context window that cannot be stored resolves false with the reason', async () => {
    const { ports, flows } = setup();
    ports.store.saveAppSettings = async () => Promise.reject(quotaFull());
    expect(await flows.setContextWindow('ollama:llama3', 8_192)).toBe(false);
    expect(ports.notices).toEqual([{ level: 'error', message: 'The storage quota is exhausted.' }]);
    expect(await ports.store.loadAppSettings()).toEqual(DEFAULT_APP_SETTINGS);
  });
});

describe('search', () => {
  it('finds a stored message by its words', async () => {
    const { flows } = setup();
    const row = (await flows.createSession())!;
    await flows.ports.store.appendEntries(row.id, null, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Why does the borrow checker reject this closure?' }] } }]);
    expect(await flows.warmSearch()).toMatchObject({ sessions: 1 });
    const found = (await flows.search('closure'))!;
    expect(found.hits.map((h) => h.sessionId)).toEqual([row.id]);
  });

  it('a failed search is told with its reason and resolves null; a failed warm-up is quiet', async () => {
    const { ports, flows } = setup();
    ports.search.search = async () => Promise.reject(new Error('The search index is damaged.'));
    ports.search.sync = async () => Promise.reject(new Error('The search index is damaged.'));
    expect(await flows.search('closure')).toBeNull();
    expect(await flows.warmSearch()).toBeNull();
    expect(ports.notices).toEqual([{ level: 'error', message: 'Search failed: The search index is damaged.' }]);
  });
});
