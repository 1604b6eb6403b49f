import { describe, expect, it } from 'vitest';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { AppFlows } from './app';
import { moveLeaf } from './branch';

const CHAT = testModel('compat:mock-large', 128_000);

/** The ChatGPT tree export (edited prompts, regenerated replies), shown on a branch that is not the newest. */
async function onOlderBranch() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const [snap] = importText(readFixture('chatgptTree')).sessions;
  const { imported } = await ports.store.importSnapshots([snap!]);
  const s = await openSession(flows, imported[0]!.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS });
  const { tree } = s.live.getSnapshot();
  // A leaf whose path holds an entry with a newer leaf below it: showing that entry must not move there.
  const leaves = tree.entries().filter((e) => tree.children(e.id).length === 0);
  const older = leaves.find((l) => tree.pathTo(l.id).some((e) => tree.newestLeafUnder(e.id) !== l.id));
  expect(older, 'the fixture has a branch that is not the newest').toBeDefined();
  await moveLeaf(s, older!.id);
  return { ports, s, id: imported[0]!.id, tree, leaf: older!.id };
}

describe('showEntry: what counts as on the branch shown', () => {
  it('an earlier entry of the branch shown, even one with newer branches below it, leaves the conversation where it is', async () => {
    const { s, tree, leaf } = await onOlderBranch();
    const shared = tree.pathTo(leaf).find((e) => tree.newestLeafUnder(e.id) !== leaf)!;
    expect(await s.showEntry(shared.id)).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(leaf);
    expect(await s.showEntry(leaf)).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(leaf);
  });

  it('with no position (before the first message), any entry is off the branch: the session moves to the newest leaf below it', async () => {
    const { s, tree, leaf, ports, id } = await onOlderBranch();
    await moveLeaf(s, null);
    const first = tree.pathTo(leaf)[0]!;
    expect(await s.showEntry(first.id)).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(tree.newestLeafUnder(first.id));
    expect((await ports.store.getSession(id))!.leafId).toBe(tree.newestLeafUnder(first.id));
  });
});
