import { describe, expect, it } from 'vitest';
// First: it installs fake-indexeddb, which Dexie must find when it loads.
import { openSession, testModel, testPorts, until } from '@/lib/testing/flowPorts';
import { AppDB } from '@/lib/db/db';
import { createSessionStore } from '@/lib/db/store';
import { newId } from '@/lib/session/ids';
import { messageText } from '@/lib/session/messages';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { AppFlows } from './app';

const CHAT = testModel('compat:mock-large', 128_000);
const OTHER = testModel('compat:mock-small', 8_000);

async function openDraft() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const id = newId();
  flows.session(id, { draft: true });
  const s = await openSession(flows, id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: 'New session' });
  return { ports, flows, s, id };
}

describe('draft sessions', () => {
  it('a new session is shown, empty and untitled, with nothing stored', async () => {
    const { ports, s } = await openDraft();
    expect(s.live.getSnapshot()).toMatchObject({ status: 'ready', draft: true, row: { title: 'New session', entryCount: 0 }, leafId: null });
    expect(await ports.store.listSessions()).toEqual([]);
  });

  it('choosing a model in a draft stores nothing and is kept for the session it becomes', async () => {
    const { ports, s, id } = await openDraft();
    await s.changeModel(OTHER.id);
    expect(s.live.getSnapshot().row?.model).toBe(OTHER.id);
    expect(await ports.store.listSessions()).toEqual([]);
    s.setEnv({ chatModel: OTHER, summarizer: OTHER, settings: DEFAULT_COMPACTION_SETTINGS, title: 'New session' });
    await s.send('Which model am I talking to?');
    await s.idle();
    expect((await ports.store.getSession(id))?.model).toBe(OTHER.id);
  });

  it('the first message stores the session under its id, then the message, and the view switches to the stored row', async () => {
    const { ports, s, id } = await openDraft();
    ports.transport.script({ text: 'Stored, both of us.' });
    expect(await s.send('Is this stored now?')).toBe(true);
    await s.idle();
    const loaded = (await ports.store.loadSession(id))!;
    expect(loaded.row).toMatchObject({ id, title: 'Is this stored now?', entryCount: 2 });
    expect(loaded.entries.map((e) => (e.type === 'message' ? messageText(e.message) : e.type))).toEqual(['Is this stored now?', 'Stored, both of us.']);
    await until(() => !s.live.getSnapshot().draft);
    expect(s.live.getSnapshot()).toMatchObject({ status: 'ready', draft: false, row: { id, entryCount: 2 }, leafId: loaded.row.leafId });
    expect(await ports.store.listSessions()).toHaveLength(1);
  });

  it('a draft left without a message leaves nothing: no row, and another tab opening the same link still sees a draft', async () => {
    const { ports, flows, id } = await openDraft();
    const again = new AppFlows(ports).session(id, { draft: true });
    const unsubscribe = again.live.subscribe(() => {});
    await until(() => again.live.getSnapshot().status !== 'loading');
    expect(again.live.getSnapshot().draft).toBe(true);
    unsubscribe();
    expect(await ports.store.listSessions()).toEqual([]);
    // Without the draft flag the same id is a session that does not exist.
    const plain = new AppFlows(ports).session(id);
    plain.live.subscribe(() => {});
    await until(() => plain.live.getSnapshot().status !== 'loading');
    expect(plain.live.getSnapshot().status).toBe('missing');
    void flows;
  });

  it('the same draft open in two tabs: the first to send stores it, the other sends into the stored session', async () => {
    const { ports, s, id } = await openDraft();
    const tabB = new AppFlows({ ...ports, store: createSessionStore(new AppDB(ports.db.name)) });
    tabB.session(id, { draft: true });
    const b = await openSession(tabB, id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: 'New session' });
    expect(b.live.getSnapshot().draft).toBe(true);
    // Both send before either has seen the other's row: both try to store it.
    await Promise.all([s.send('from tab A'), b.send('from tab B')]);
    await Promise.all([s.idle(), b.idle()]);
    const loaded = (await ports.store.loadSession(id))!;
    const prompts = loaded.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? [messageText(e.message)] : []));
    expect(prompts.sort()).toEqual(['from tab A', 'from tab B']);
    expect(ports.notices.filter((n) => n.level === 'error')).toEqual([]);
  });
});
