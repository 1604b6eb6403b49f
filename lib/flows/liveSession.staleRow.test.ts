import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import type { StoredSession } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts, until } from '@/lib/testing/flowPorts';
import { LiveSession } from './liveSession';

/**
 * The watch on a session row delivers the row "now" asynchronously, after the
 * load: on a busy machine that first notice can arrive after the user (or a
 * test) already moved the leaf and stored the move. It carries the row as it
 * was loaded, nothing newer; it must not drag this tab back to the old leaf.
 */
describe('LiveSession: a late notice of the row as loaded', () => {
  it('does not undo a move made since, and the move’s own notice keeps the tab there', async () => {
    const ports = testPorts();
    const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
    const { imported } = await ports.store.importSnapshots(sessions);
    const id = imported[0]!.id;
    const watch = ports.store.watchSession.bind(ports.store);
    const delivered: ((row: StoredSession | undefined) => void)[] = [];
    // The watch is opened, but its notices are handed over by the test, in the order the store produced them.
    ports.store.watchSession = (sid, onRow, onError) => {
      delivered.push(onRow);
      return watch(sid, () => {}, onError);
    };
    const live = new LiveSession(id, ports.store);
    const close = live.subscribe(() => {});
    await until(() => live.getSnapshot().status === 'ready' && delivered.length === 1);
    const asLoaded = (await ports.store.getSession(id))!;
    const path = live.getSnapshot().tree.pathTo(asLoaded.leafId);
    const earlier = path[1]!.id;

    // The user moves back to an earlier message; the move is stored (as moveLeaf does).
    live.setLeaf(earlier);
    await ports.store.updateSession(id, { leafId: earlier });
    const afterMove = (await ports.store.getSession(id))!;
    expect(afterMove.rev).toBeGreaterThan(asLoaded.rev);

    delivered[0]!(asLoaded);
    expect(live.getSnapshot().leafId).toBe(earlier);
    delivered[0]!(afterMove);
    await until(() => live.getSnapshot().row?.rev === afterMove.rev);
    expect(live.getSnapshot().leafId).toBe(earlier);
    close();
  });
});
