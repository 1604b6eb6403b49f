import { describe, expect, it, vi } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { resolveLabels } from '@/lib/session/revisions';
import type { StoredSession } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts, until } from '@/lib/testing/flowPorts';
import { newId } from '@/lib/session/ids';
import { SessionTree } from '@/lib/session/tree';
import { draftRow } from './draft';
import { LiveSession } from './liveSession';
import type { SessionStore } from './ports';

/**
 * The live session against a store whose watch this test drives by hand
 * (the real store underneath, on the real ChatGPT export with branches):
 * a load or watch that fails, a stored leaf that is missing, a burst of
 * writes during a catch-up, and the derived context and labels, which must
 * always be what a fresh build of the snapshot gives.
 */

const user = (text: string) => ({ type: 'message' as const, message: { role: 'user' as const, content: [{ type: 'text' as const, text }] } });
const reply = (text: string) => ({ type: 'message' as const, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }] } });

async function storedTree() {
  const ports = testPorts();
  const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
  const { imported } = await ports.store.importSnapshots(sessions);
  return { store: ports.store, id: imported[0]!.id };
}

type LiveStore = Pick<SessionStore, 'loadSession' | 'entriesChangedSince' | 'watchSession' | 'getSession'>;

/** The real store, with the watch in the test's hands. */
function drivenStore(real: SessionStore, overrides: Partial<LiveStore> = {}) {
  const watch: { onRow?: (row: StoredSession | undefined) => void; onError?: (err: unknown) => void } = {};
  const store: LiveStore = {
    loadSession: (id) => real.loadSession(id),
    getSession: (id) => real.getSession(id),
    entriesChangedSince: (id, rev) => real.entriesChangedSince(id, rev),
    watchSession: (_id, onRow, onError) => {
      watch.onRow = onRow;
      watch.onError = onError;
      return () => {};
    },
    ...overrides,
  };
  return { store, watch };
}

function open(live: LiveSession) {
  const close = live.subscribe(() => {});
  return { close, ready: until(() => live.getSnapshot().status !== 'loading') };
}

/** The stored tree opened live over the real store, loaded. */
async function openStored() {
  const { store, id } = await storedTree();
  const live = new LiveSession(id, store);
  const { ready, close } = open(live);
  await ready;
  return { store, id, live, close };
}

/** What a fresh build of the snapshot gives. */
function fresh(live: LiveSession) {
  const s = live.getSnapshot();
  return { context: buildSessionContext(s.tree, s.leafId), labels: resolveLabels(s.tree.entries()) };
}

/** The stored tree opened live over the real store, with the watch in the test's hands and `overrides` in place of its methods. */
async function openDriven(overrides: (real: SessionStore) => Partial<LiveStore> = () => ({})) {
  const { store: real, id } = await storedTree();
  const { store, watch } = drivenStore(real, overrides(real));
  const live = new LiveSession(id, store);
  const { ready, close } = open(live);
  await ready;
  return { real, id, watch, live, close };
}

/** The same, with the catch-up fetches counted. */
async function openCountingFetches() {
  let fetches = 0;
  const opened = await openDriven((real) => ({
    entriesChangedSince: (sid, rev) => {
      fetches++;
      return real.entriesChangedSince(sid, rev);
    },
  }));
  return { ...opened, fetches: () => fetches };
}

describe('LiveSession with a store that fails', () => {
  it('a load that throws shows the error, with its message', async () => {
    const { live, close } = await openDriven(() => ({
      loadSession: async () => {
        throw new Error('The database is closed.');
      },
    }));
    expect(live.getSnapshot()).toMatchObject({ status: 'error', error: 'The database is closed.' });
    close();
  });

  it('a watch that fails later shows the error', async () => {
    const { watch, live, close } = await openDriven();
    expect(live.getSnapshot().status).toBe('ready');
    watch.onError!(new Error('The connection was lost.'));
    expect(live.getSnapshot()).toMatchObject({ status: 'error', error: 'Error: The connection was lost.' });
    close();
  });
});

describe('LiveSession: where it opens', () => {
  it.each([
    ['no stored leaf', null],
    ['a stored leaf that is not in the tree', 'no-such-entry'],
  ])('with %s, at the newest leaf of the tree', async (_what, leafId) => {
    const { live, close } = await openDriven((real) => ({
      loadSession: async (sid) => {
        const loaded = (await real.loadSession(sid))!;
        return { ...loaded, row: { ...loaded.row, leafId } };
      },
    }));
    const s = live.getSnapshot();
    expect(s.leafId).toBe(s.tree.newestLeaf());
    expect(s.leafId).not.toBeNull();
    close();
  });

  it('a stored session is no draft: changing the draft row does nothing', async () => {
    const { live, close } = await openStored();
    const before = live.getSnapshot();
    live.patchDraft({ model: 'compat:other' });
    expect(live.getSnapshot()).toBe(before);
    expect(live.getSnapshot().row?.model).not.toBe('compat:other');
    close();
  });
});

describe('LiveSession: where it opens', () => {
  it('a draft is ready at once on its stand-in row, and becomes the stored session when the watch brings the row', async () => {
    const { store: real } = await storedTree();
    const { store, watch } = drivenStore(real);
    const id = newId();
    const stand = draftRow(id, 1_000);
    const live = new LiveSession(id, store, stand);
    const { ready, close } = open(live);
    await ready;
    expect(live.getSnapshot()).toMatchObject({ status: 'ready', draft: true, row: stand, leafId: null });
    // The watch's first notice: nothing stored yet, which for a draft is no news.
    watch.onRow!(undefined);
    expect(live.getSnapshot()).toMatchObject({ status: 'ready', draft: true });
    live.patchDraft({ model: 'compat:other' });
    expect(live.getSnapshot().row).toMatchObject({ id, model: 'compat:other' });
    await real.createSession({ id, title: stand.title, createdAt: 2_000, updatedAt: 2_000, model: 'compat:other' });
    watch.onRow!(await real.getSession(id));
    await until(() => !live.getSnapshot().draft);
    expect(live.getSnapshot()).toMatchObject({ status: 'ready', draft: false, row: { id, createdAt: 2_000, model: 'compat:other' } });
    close();
  });

  it('a stored session opens at its stored position, not at its newest leaf', async () => {
    const { store, id } = await storedTree();
    const loaded = (await store.loadSession(id))!;
    const tree = new SessionTree(loaded.entries);
    const older = tree.leaves().find((e) => e.id !== tree.newestLeaf())!;
    expect(older).toBeDefined();
    await store.updateSession(id, { leafId: older.id });
    const live = new LiveSession(id, store);
    const { ready, close } = open(live);
    await ready;
    expect(live.getSnapshot().leafId).toBe(older.id);
    close();
  });
});

describe('LiveSession: a burst of writes while it catches up', () => {
  it('a row arriving during a catch-up is fetched after it: nothing written is missed', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const { real, id, watch, live, close } = await openDriven((real) => ({
      // The first catch-up reads the store, then is held until the test lets it go: what it returns is then stale.
      entriesChangedSince: async (sid, rev) => {
        const out = await real.entriesChangedSince(sid, rev);
        if (calls++ === 0) await gate;
        return out;
      },
    }));
    const leaf = live.getSnapshot().leafId!;
    const first = await real.appendEntries(id, leaf, [user('first of the burst')]);
    watch.onRow!(await real.getSession(id));
    await until(() => calls === 1);
    const second = await real.appendEntries(id, first[0]!.id, [reply('second of the burst')]);
    const third = await real.appendEntries(id, second[0]!.id, [user('third of the burst')]);
    watch.onRow!(await real.getSession(id));
    watch.onRow!(await real.getSession(id));
    release();
    await until(() => live.getSnapshot().tree.has(third[0]!.id));
    expect(live.getSnapshot().leafId).toBe(third[0]!.id);
    expect(live.getSnapshot().tree.has(second[0]!.id)).toBe(true);
    // One catch-up for the held one, one for everything written meanwhile.
    expect(calls).toBe(2);
    close();
  });

  it('after a burst, a single write is one catch-up again: the row is not read back a second time', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = true;
    let rowReads = 0;
    const { real, id, watch, live, close } = await openDriven((real) => ({
      entriesChangedSince: async (sid, rev) => {
        const out = await real.entriesChangedSince(sid, rev);
        if (held) await gate;
        return out;
      },
      getSession: (sid) => {
        rowReads++;
        return real.getSession(sid);
      },
    }));
    const [a] = await real.appendEntries(id, live.getSnapshot().leafId!, [user('held')]);
    watch.onRow!(await real.getSession(id));
    const [b] = await real.appendEntries(id, a!.id, [reply('during the catch-up')]);
    watch.onRow!(await real.getSession(id));
    held = false;
    release();
    await until(() => live.getSnapshot().leafId === b!.id);
    // The burst read the row back once, to see what was written during the catch-up.
    expect(rowReads).toBe(1);
    const [c] = await real.appendEntries(id, b!.id, [user('a single write later')]);
    watch.onRow!(await real.getSession(id));
    // A read back would have started by now: it follows the catch-up that moved the leaf, in the same task.
    await until(() => live.getSnapshot().leafId === c!.id);
    expect(rowReads).toBe(1);
    close();
  });

  it('a row no newer than what was fetched only moves the leaf, and only when it extends ours', async () => {
    const { real, id, watch, live, close, fetches } = await openCountingFetches();
    const start = live.getSnapshot();
    const [a] = await real.appendEntries(id, start.leafId, [user('a question')], { moveLeaf: false });
    const [b] = await real.appendEntries(id, a!.id, [reply('its answer')], { moveLeaf: false });
    // The first notice arrives: the catch-up takes both entries, the stored leaf has not moved.
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().tree.has(b!.id));
    expect(live.getSnapshot().leafId).toBe(start.leafId);
    expect(fetches()).toBe(1);
    // The same row again is old news: nothing is fetched for it. The next write is.
    watch.onRow!(await real.getSession(id));
    const [c] = await real.appendEntries(id, b!.id, [user('a follow-up')]);
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().leafId === c!.id);
    expect(fetches()).toBe(2);
    close();
  });
});

describe('LiveSession: the derived context and labels', () => {
  it('after each change (appends, a label with a message, a move back and forth) they are what a fresh build gives, and the same object while nothing changes', async () => {
    const { store, id, live, close } = await openStored();
    const check = () => {
      const snap = live.getSnapshot();
      const d = live.derive(snap);
      const f = fresh(live);
      expect(d.context).toEqual(f.context);
      expect(d.labels).toEqual(f.labels);
      expect(live.derive(snap)).toBe(d);
      return d;
    };
    check();
    const leaf = live.getSnapshot().leafId!;
    const written = await store.appendEntries(id, leaf, [user('one more'), reply('one more answer')]);
    live.applyLocal(written, written.at(-1)!.id);
    check();
    // A label written together with a message: the labels must be read again.
    const labelled = await store.appendEntries(id, written.at(-1)!.id, [user('and this'), { type: 'label', targetId: written[0]!.id, label: 'the extra question' }]);
    live.applyLocal(labelled, labelled.at(-1)!.id);
    expect(check().labels.get(written[0]!.id)).toBe('the extra question');
    const older = live.getSnapshot();
    // Back to an earlier point, and forward again.
    const path = live.getSnapshot().tree.pathTo(leaf);
    live.setLeaf(path[1]!.id);
    expect(check().context.items.length).toBeLessThan(live.derive(older).context.items.length);
    live.setLeaf(labelled.at(-1)!.id);
    check();
    const more = await store.appendEntries(id, labelled.at(-1)!.id, [reply('streamed')]);
    live.applyLocal(more, more[0]!.id);
    check();
    close();
  });

  it('an older snapshot derives its own context, and leaves the latest one’s intact', async () => {
    const { store, id, live, close } = await openStored();
    live.derive(live.getSnapshot());
    const path = live.getSnapshot().tree.pathTo(live.getSnapshot().leafId);
    live.setLeaf(path[2]!.id);
    const old = live.getSnapshot();
    live.derive(old);
    live.setLeaf(path.at(-1)!.id);
    const written = await store.appendEntries(id, path.at(-1)!.id, [user('later')]);
    live.applyLocal(written, written[0]!.id);
    // The old snapshot (same tree, earlier leaf) after newer writes.
    expect(live.derive(old).context).toEqual(buildSessionContext(old.tree, old.leafId));
    const latest = live.derive(live.getSnapshot());
    expect(latest.context).toEqual(fresh(live).context);
    close();
  });
});

describe('LiveSession: what deriving after a change costs', () => {
  /** Watches the tree's whole-session reads: a walk of the path (a context built afresh) and a read of every entry (labels). */
  function reads(live: LiveSession) {
    const tree = live.getSnapshot().tree;
    const pathTo = vi.spyOn(tree, 'pathTo');
    const entries = vi.spyOn(tree, 'entries');
    return {
      /** Derives the latest snapshot and says which whole-session reads that took. */
      derive() {
        pathTo.mockClear();
        entries.mockClear();
        const d = live.derive(live.getSnapshot());
        const took = { walked: pathTo.mock.calls.length > 0, readLabels: entries.mock.calls.length > 0 };
        expect(d.context).toEqual(fresh(live).context);
        return { ...d, ...took };
      },
    };
  }

  it('a turn appended or a streamed chunk saved is derived from the previous context and labels; a move or a label is read afresh', async () => {
    const { store, id, live, close } = await openStored();
    const r = reads(live);
    const before = r.derive();
    const leaf = live.getSnapshot().leafId!;
    const turn = await store.appendEntries(id, leaf, [user('one more'), reply('the start of')]);
    live.applyLocal(turn, turn.at(-1)!.id);
    const appended = r.derive();
    expect(appended).toMatchObject({ walked: false, readLabels: false });
    expect(appended.labels).toBe(before.labels);
    // The streaming reply saved again, longer: the same entry replaced.
    const chunk = { ...turn[1]!, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'the start of the answer' }] } } as typeof turn[1];
    live.applyLocal([chunk]);
    expect(r.derive()).toMatchObject({ walked: false, readLabels: false });
    // Back one step: the context is built afresh.
    live.setLeaf(turn[0]!.id);
    expect(r.derive()).toMatchObject({ walked: true, readLabels: true });
    live.setLeaf(turn[1]!.id);
    r.derive();
    // A label: the labels are read again, and the derived map is a new one.
    const labelled = await store.appendEntries(id, turn[1]!.id, [{ type: 'label', targetId: turn[0]!.id, label: 'asked again' }]);
    live.applyLocal(labelled, labelled[0]!.id);
    const withLabel = r.derive();
    expect(withLabel.readLabels).toBe(true);
    expect(withLabel.labels.get(turn[0]!.id)).toBe('asked again');
    close();
  });

  it('deriving an older snapshot leaves the latest one’s incremental state alone', async () => {
    const { store, id, live, close } = await openStored();
    const r = reads(live);
    r.derive();
    const first = await store.appendEntries(id, live.getSnapshot().leafId!, [user('first')]);
    live.applyLocal(first, first[0]!.id);
    const older = live.getSnapshot();
    const second = await store.appendEntries(id, first[0]!.id, [reply('second')]);
    live.applyLocal(second, second[0]!.id);
    expect(live.derive(older).context).toEqual(buildSessionContext(older.tree, older.leafId));
    expect(r.derive()).toMatchObject({ walked: false, readLabels: false });
    close();
  });

  it('another tab’s turn, caught up through the watch, is derived from the previous context too', async () => {
    const { real, id, watch, live, close } = await openDriven();
    const r = reads(live);
    r.derive();
    const written = await real.appendEntries(id, live.getSnapshot().leafId!, [user('from the other tab'), reply('answered there')]);
    const version = live.getSnapshot().version;
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().version > version);
    expect(live.getSnapshot().leafId).toBe(written.at(-1)!.id);
    expect(r.derive()).toMatchObject({ walked: false, readLabels: false });
    close();
  });
});

describe('LiveSession: its subscribers', () => {
  it('share one load and one watch, and every change reaches each of them once, one version later', async () => {
    const { store: real, id } = await storedTree();
    const calls = { load: 0, watch: 0, unwatch: 0 };
    const { store, watch } = drivenStore(real, {
      loadSession: (sid) => {
        calls.load++;
        return real.loadSession(sid);
      },
      watchSession: (_sid, onRow) => {
        calls.watch++;
        watch.onRow = onRow;
        return () => void calls.unwatch++;
      },
    });
    const live = new LiveSession(id, store);
    const heard = [0, 0];
    const closeFirst = live.subscribe(() => heard[0]!++);
    const closeSecond = live.subscribe(() => heard[1]!++);
    await until(() => calls.watch === 1);
    expect(calls).toEqual({ load: 1, watch: 1, unwatch: 0 });
    expect(heard).toEqual([1, 1]); // loaded

    const version = live.getSnapshot().version;
    const leaf = live.getSnapshot().leafId!;
    const [note] = await real.appendEntries(id, leaf, [user('shown at once')]);
    live.applyLocal([note!], note!.id);
    expect(live.getSnapshot().version).toBe(version + 1);
    expect(heard).toEqual([2, 2]);

    // The first to leave does not end the watch for the other: a write still arrives.
    closeFirst();
    expect(calls.unwatch).toBe(0);
    const [next] = await real.appendEntries(id, note!.id, [reply('from another tab')]);
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().leafId === next!.id);
    expect(heard).toEqual([2, 3]);
    closeSecond();
    expect(calls.unwatch).toBe(1);
  });
});

describe('LiveSession: what a catch-up has already fetched', () => {
  it('a notice older than the writes a catch-up took is not fetched for again, and the next notice only moves the leaf', async () => {
    const { real, id, watch, live, close, fetches } = await openCountingFetches();
    const [a] = await real.appendEntries(id, live.getSnapshot().leafId, [user('first')]);
    const rowAfterA = (await real.getSession(id))!;
    const [b] = await real.appendEntries(id, a!.id, [reply('second')]);
    const rowAfterB = (await real.getSession(id))!;
    expect(rowAfterB.rev).toBeGreaterThan(rowAfterA.rev);
    // The notice of the first write arrives late, after both: its catch-up takes both entries.
    watch.onRow!(rowAfterA);
    await until(() => live.getSnapshot().tree.has(b!.id));
    expect(live.getSnapshot().leafId).toBe(a!.id);
    // The second notice brings nothing new to fetch: only its leaf.
    watch.onRow!(rowAfterB);
    await until(() => live.getSnapshot().leafId === b!.id);
    expect(fetches()).toBe(1);
    close();
  });
});

describe('LiveSession: following the stored leaf', () => {
  it('a stored leaf that is not in the tree leaves the position where it is', async () => {
    const { real, id, watch, live, close } = await openDriven();
    const [a] = await real.appendEntries(id, live.getSnapshot().leafId, [user('a write')], { moveLeaf: false });
    const row = (await real.getSession(id))!;
    watch.onRow!({ ...row, leafId: 'no-such-entry' });
    await until(() => live.getSnapshot().tree.has(a!.id));
    const s = live.getSnapshot();
    expect(s.row?.rev).toBe(row.rev);
    expect(s.leafId).not.toBe('no-such-entry');
    expect(s.tree.has(s.leafId!)).toBe(true);
    close();
  });

  it('once storage confirms where this tab went, another tab going back down its path is followed', async () => {
    const { real, id, watch, live, close } = await openDriven();
    const deep = live.getSnapshot().leafId!;
    const parent = live.getSnapshot().tree.get(deep)!.parentId!;
    // This tab goes up one entry, and storage records it.
    live.setLeaf(parent);
    await real.updateSession(id, { leafId: parent });
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().row?.leafId === parent);
    expect(live.getSnapshot().leafId).toBe(parent);
    // Another tab then goes back down to the entry this tab once left: that extends our path, so we follow.
    await real.updateSession(id, { leafId: deep });
    watch.onRow!(await real.getSession(id));
    await until(() => live.getSnapshot().row?.leafId === deep);
    expect(live.getSnapshot().leafId).toBe(deep);
    close();
  });
});

describe('LiveSession: opening a stored session spreads its work over tasks', () => {
  /** A timer set when something happens runs in the next task: listeners told before it were told in the same task. */
  const marker = (order: string[], name: string) => () => setTimeout(() => order.push(name), 0);

  /** Every tree's path walks (a context built afresh), with `walking` called before each; restore the spy when done. */
  function spyOnPathWalks(walking: () => void) {
    const original = SessionTree.prototype.pathTo;
    return vi.spyOn(SessionTree.prototype, 'pathTo').mockImplementation(function (this: SessionTree, leaf) {
      walking();
      return original.call(this, leaf);
    });
  }

  /** Records 'derived' in `order` at the first path walk, then `then()`. */
  const firstWalk = (order: string[], then: () => void = () => {}) => () => {
    if (order.includes('derived')) return;
    order.push('derived');
    then();
  };

  it('the context is derived in a later task than the one that read the session, and listeners told later still', async () => {
    const order: string[] = [];
    const { store: real, id } = await storedTree();
    const pathTo = spyOnPathWalks(firstWalk(order));
    try {
      const { store } = drivenStore(real, {
        loadSession: async (sid) => {
          const loaded = await real.loadSession(sid);
          marker(order, 'the task after the read')();
          return loaded;
        },
      });
      const live = new LiveSession(id, store);
      const close = live.subscribe(() => order.push('told'));
      await until(() => order.includes('told'));
      expect(order).toEqual(['the task after the read', 'derived', 'told']);
      expect(live.getSnapshot().status).toBe('ready');
      close();
    } finally {
      pathTo.mockRestore();
    }
  });

  it('the context is derived before listeners are told, and in an earlier task: the render finds it ready', async () => {
    const order: string[] = [];
    const { store, id } = await storedTree();
    const pathTo = spyOnPathWalks(firstWalk(order, marker(order, 'the task after deriving')));
    try {
      const live = new LiveSession(id, store);
      let walkedInRender: boolean | null = null;
      const close = live.subscribe(() => {
        if (walkedInRender !== null) return;
        order.push('told');
        const before = pathTo.mock.calls.length;
        const d = live.derive(live.getSnapshot());
        walkedInRender = pathTo.mock.calls.length > before;
        expect(d.context).toEqual(fresh(live).context);
      });
      await until(() => walkedInRender !== null);
      expect(walkedInRender).toBe(false);
      expect(order.slice(0, 3)).toEqual(['derived', 'the task after deriving', 'told']);
      close();
    } finally {
      pathTo.mockRestore();
    }
  });
});
