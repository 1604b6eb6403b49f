import { describe, expect, it, vi } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, MessageEntry, SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts, until } from '@/lib/testing/flowPorts';
import { LiveSession } from './liveSession';

/** A real ChatGPT export with edited prompts (two branch points), stored in a fresh IndexedDB; `other` is a second tab's view. */
async function storedTree() {
  const ports = testPorts();
  const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
  const { imported } = await ports.store.importSnapshots(sessions);
  const id = imported[0]!.id;
  const stored = (await ports.store.loadSession(id))!;
  return { ports, store: ports.store, id, stored, tree: new SessionTree(stored.entries) };
}

function open(live: LiveSession) {
  const close = live.subscribe(() => {});
  return { close, ready: until(() => live.getSnapshot().status !== 'loading') };
}

const user = (text: string) => ({ type: 'message' as const, message: { role: 'user' as const, content: [{ type: 'text' as const, text }] } });
const reply = (text: string) => ({ type: 'message' as const, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }] } });

describe('LiveSession: one session in memory, in step with IndexedDB across tabs', () => {
  it('loads the stored tree at the stored leaf', async () => {
    const { store, id, stored } = await storedTree();
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    const s = live.getSnapshot();
    expect(s.status).toBe('ready');
    expect(s.leafId).toBe(stored.row.leafId);
    expect(s.tree.entries().map((e) => e.id).sort()).toEqual(stored.entries.map((e) => e.id).sort());
    close();
  });

  it('another tab continuing our path: we fetch only what it wrote and follow its leaf', async () => {
    const { store, id, stored } = await storedTree();
    const spy = vi.spyOn(store, 'entriesChangedSince');
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    const written = await store.appendEntries(id, stored.row.leafId!, [user('one more question'), reply('one more answer')]);
    await until(() => live.getSnapshot().leafId === written.at(-1)!.id);
    const s = live.getSnapshot();
    expect(s.tree.has(written[0]!.id)).toBe(true);
    // The catch-up asked only for what changed since the revision it had.
    const fetched = await Promise.all(spy.mock.results.map((r) => r.value as Promise<{ entries: SessionEntry[] }>));
    expect(fetched.flatMap((f) => f.entries.map((e) => e.id)).sort()).toEqual(written.map((e) => e.id).sort());
    // The context is the one a fresh build gives.
    expect(live.derive(s).context.items).toEqual(buildSessionContext(s.tree, s.leafId).items);
    close();
  });

  it('another tab writing on another branch: the entries arrive, our position stays', async () => {
    const { store, id, stored, tree } = await storedTree();
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    const onPath = new Set(tree.pathTo(stored.row.leafId).map((e) => e.id));
    const elsewhere = tree.entries().find((e) => !onPath.has(e.id) && e.type === 'message' && e.message.role === 'assistant')!;
    const written = await store.appendEntries(id, elsewhere.id, [user('a question on the other branch')]);
    await until(() => live.getSnapshot().tree.has(written[0]!.id));
    expect(live.getSnapshot().leafId).toBe(stored.row.leafId);
    close();
  });

  it('a burst of writes from another tab: every entry arrives and the position follows the newest', async () => {
    const { store, id, stored } = await storedTree();
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    let parent = stored.row.leafId!;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const [e] = await store.appendEntries(id, parent, [i % 2 ? reply(`answer ${i}`) : user(`question ${i}`)]);
      parent = e!.id;
      ids.push(parent);
    }
    // The catch-up for an early write fetches later ones too; the rows of those later writes must still move the leaf.
    await until(() => live.getSnapshot().leafId === parent);
    expect(ids.every((x) => live.getSnapshot().tree.has(x))).toBe(true);
    close();
  });

  it('a streamed reply saved chunk by chunk: the derived context follows each chunk and equals a fresh build', async () => {
    const { store, id, stored } = await storedTree();
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    const [q, r] = await store.appendEntries(id, stored.row.leafId!, [user('stream please'), reply('')]);
    await until(() => live.getSnapshot().leafId === r!.id);
    live.derive(live.getSnapshot());
    let text = '';
    for (const chunk of ['The ', 'answer ', 'arrives ', 'in parts.']) {
      text += chunk;
      const next = { ...(r as MessageEntry), message: { ...(r as MessageEntry).message, content: [{ type: 'text', text }] } as AssistantMessage };
      live.applyLocal([next]);
      const s = live.getSnapshot();
      expect(live.derive(s).context.items).toEqual(buildSessionContext(s.tree, s.leafId).items);
    }
    expect(live.getSnapshot().tree.get(q!.id)).toBeDefined();
    close();
  });

  it('a session that is not stored is missing; a deleted one becomes missing', async () => {
    const { store, id } = await storedTree();
    const nowhere = new LiveSession('no-such-session', store);
    const a = open(nowhere);
    await a.ready;
    expect(nowhere.getSnapshot().status).toBe('missing');
    a.close();

    const live = new LiveSession(id, store);
    const b = open(live);
    await b.ready;
    await store.deleteSession(id);
    await until(() => live.getSnapshot().status === 'missing');
    expect(live.getSnapshot().row).toBeNull();
    b.close();
  });

  it('a draft stands in until its first write, then it is the stored session', async () => {
    const { store } = await storedTree();
    const row = await store.createSession({ title: 'Draft' });
    await store.deleteSession(row.id);
    const live = new LiveSession(row.id, store, row);
    const { ready, close } = open(live);
    await ready;
    expect(live.getSnapshot()).toMatchObject({ status: 'ready', draft: true, row });
    live.patchDraft({ model: 'openai:gpt-4o' });
    expect(live.getSnapshot().row?.model).toBe('openai:gpt-4o');
    close();
  });

  it('stops watching when the last subscriber leaves', async () => {
    const { store, id, stored } = await storedTree();
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    close();
    // Let anything already under way settle first (a busy machine delays it): only the append below must not count.
    await new Promise((r) => setTimeout(r, 200));
    const version = live.getSnapshot().version;
    await store.appendEntries(id, stored.row.leafId!, [user('written while nobody watches')]);
    await new Promise((r) => setTimeout(r, 200));
    expect(live.getSnapshot().version).toBe(version);
  });
});
