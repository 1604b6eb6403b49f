import { describe, expect, it } from 'vitest';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { AppFlows } from './app';

const CHAT = testModel('compat:mock-large', 128_000);

/** The ChatGPT tree export: edited prompts and regenerated replies, so entries off the shown branch. */
async function openBranchy() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const [snap] = importText(readFixture('chatgptTree')).sessions;
  const { imported } = await ports.store.importSnapshots([snap!]);
  const s = await openSession(flows, imported[0]!.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS });
  return { ports, s, id: imported[0]!.id };
}

const pathIds = (s: Awaited<ReturnType<typeof openBranchy>>['s']) => {
  const { tree, leafId } = s.live.getSnapshot();
  return buildSessionContext(tree, leafId).path.map((e) => e.id);
};

describe('showEntry (a search result opened)', () => {
  it('leaves the conversation where it is when the entry is on the branch shown', async () => {
    const { s } = await openBranchy();
    const before = s.live.getSnapshot().leafId;
    const onPath = pathIds(s)[1]!;
    expect(await s.showEntry(onPath)).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(before);
  });

  it('moves to the newest leaf below an entry on another branch, and stores that position', async () => {
    const { ports, s, id } = await openBranchy();
    const { tree } = s.live.getSnapshot();
    const shown = new Set(pathIds(s));
    const elsewhere = tree.entries().find((e) => e.type === 'message' && !shown.has(e.id));
    expect(elsewhere, 'the fixture has entries off the shown branch').toBeDefined();
    expect(await s.showEntry(elsewhere!.id)).toBe(true);
    expect(pathIds(s)).toContain(elsewhere!.id);
    expect(s.live.getSnapshot().leafId).toBe(tree.newestLeafUnder(elsewhere!.id));
    expect((await ports.store.getSession(id))!.leafId).toBe(tree.newestLeafUnder(elsewhere!.id));
  });

  it('answers false for an entry that is not there', async () => {
    const { s } = await openBranchy();
    expect(await s.showEntry('no-such-entry')).toBe(false);
  });
});
