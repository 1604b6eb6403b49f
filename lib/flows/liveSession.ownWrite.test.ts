import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import type { StoredSession } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts, until } from '@/lib/testing/flowPorts';
import { LiveSession } from './liveSession';

/**
 * A tab shows its own writes at once (applyLocal), before the watch tells it of
 * them. When the user then moves away (back to the entry before a compaction the
 * tab just added), the late notice of that earlier write still names the entry
 * the tab left as the stored leaf, and that entry extends the new position: it
 * must not carry the tab back there, nor leave it there when the move's own
 * notice arrives.
 */
describe('LiveSession: the late notice of a write this tab made before it moved', () => {
  it('does not carry the tab back to the entry it left', async () => {
    const ports = testPorts();
    const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
    const { imported } = await ports.store.importSnapshots(sessions);
    const id = imported[0]!.id;
    const watch = ports.store.watchSession.bind(ports.store);
    const deliver: ((row: StoredSession | undefined) => void)[] = [];
    // The watch is opened, but its notices are handed over by the test, in the order the store produced them.
    ports.store.watchSession = (sid, onRow, onError) => {
      deliver.push(onRow);
      return watch(sid, () => {}, onError);
    };
    const live = new LiveSession(id, ports.store);
    const close = live.subscribe(() => {});
    await until(() => live.getSnapshot().status === 'ready' && deliver.length === 1);
    const before = live.getSnapshot().leafId!;

    // The tab appends a note at its leaf and shows it at once, as a compaction or a sent message does.
    const [added] = await ports.store.appendEntries(id, before, [{ type: 'label', targetId: before, label: 'checkpoint', timestamp: 1 }], { moveLeaf: true });
    live.applyLocal([added!], added!.id);
    const afterAppend = (await ports.store.getSession(id))!;
    expect(afterAppend.leafId).toBe(added!.id);

    // The user goes back to where the tab was; the move is stored.
    live.setLeaf(before);
    await ports.store.updateSession(id, { leafId: before });
    const afterMove = (await ports.store.getSession(id))!;

    deliver[0]!(afterAppend);
    await until(() => live.getSnapshot().row?.rev === afterAppend.rev);
    expect(live.getSnapshot().leafId).toBe(before);
    deliver[0]!(afterMove);
    await until(() => live.getSnapshot().row?.rev === afterMove.rev);
    expect(live.getSnapshot().leafId).toBe(before);
    close();
  });
});
