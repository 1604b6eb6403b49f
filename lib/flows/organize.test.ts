import { describe, expect, it } from 'vitest';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { importArchive } from '@/lib/formats/export/archive';
import { importText } from '@/lib/formats/import';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * Projects, tags, archive and pins over the real store: one or many sessions
 * at once, what the user is told, and that all of it survives an export and
 * an import into another browser.
 */

async function setup() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const claude = new File([readFixture('claudeLog')], FIXTURES.claudeLog);
  await flows.importFiles([claude], () => {});
  const a = await ports.store.createSession({ title: 'Chat A' });
  const b = await ports.store.createSession({ title: 'Chat B' });
  const [agent] = (await ports.store.listSessions()).filter((s) => s.cwd);
  return { ports, flows, a: a.id, b: b.id, agent: agent! };
}

describe('organising sessions', () => {
  it('tags, pins and archives many at once, in one sentence each; archiving can be undone', async () => {
    const { ports, flows, a, b } = await setup();
    expect(await flows.organize([a, b], { addTags: ['review', ' Review ', 'ui'] })).toBe(2);
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Tagged 2 sessions review, ui' });
    expect((await ports.store.getSession(a))!.tags).toEqual(['review', 'ui']);
    expect(await flows.organize([a], { pinned: true })).toBe(1);
    // Nothing to change is not a write.
    expect(await flows.organize([a], { pinned: true })).toBe(0);
    const before = (await ports.store.getSession(b))!;
    expect(await flows.organize([a, b], { archived: true })).toBe(2);
    const notice = ports.notices.at(-1)!;
    expect(notice).toMatchObject({ level: 'info', message: 'Archived 2 sessions', action: { label: 'Undo' } });
    const after = (await ports.store.getSession(b))!;
    // Organising is not use: the list's order and date groups stay; the change is clocked for sync.
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.archived).toBe(true);
    expect((after as { hlc?: string }).hlc! > (before as { hlc?: string }).hlc!).toBe(true);
    notice.action!.run();
    await expect.poll(async () => (await ports.store.getSession(b))!.archived).toBeUndefined();
  });

  it('an agent session is in its directory’s project; moved by the user it stays moved; back to automatic', async () => {
    const { ports, flows, agent, a } = await setup();
    expect(agent.project).toBeUndefined();
    await flows.organize([agent.id, a], { project: 'Refactors' });
    expect(ports.notices.at(-1)!.message).toBe('Moved 2 sessions to Refactors');
    expect((await ports.store.getSession(agent.id))!.project).toBe('Refactors');
    expect(await flows.renameProject('Refactors', 'Timeline work')).toBe(2);
    expect((await ports.store.getSession(a))!.project).toBe('Timeline work');
    await flows.organize([agent.id], { project: null });
    expect((await ports.store.getSession(agent.id))!.project).toBeUndefined();
  });

  it('exports the chosen sessions as one zip, and an import elsewhere brings their organisation back', async () => {
    const { ports, flows, a, agent } = await setup();
    await flows.organize([a, agent.id], { addTags: ['keep'], pinned: true });
    await flows.organize([agent.id], { project: 'Refactors', archived: true });
    expect(await flows.exportSessions([a, agent.id])).toBe(true);
    const saved = ports.saved.at(-1)!;
    expect(saved.name).toMatch(/^longctx-2-sessions-\d{4}-\d{2}-\d{2}\.zip$/);
    const back = importArchive(saved.data as Uint8Array).sessions;
    expect(back.map((s) => s.meta.title).sort()).toEqual([(await ports.store.getSession(agent.id))!.title, 'Chat A'].sort());

    const other = testPorts();
    await new AppFlows(other).importFiles([new File([saved.data as BlobPart], saved.name)], () => {});
    const rows = await other.store.listSessions();
    expect(rows).toHaveLength(2);
    const moved = rows.find((r) => r.cwd)!;
    expect(moved).toMatchObject({ tags: ['keep'], pinned: true, archived: true, project: 'Refactors' });
    expect(rows.find((r) => !r.cwd)).toMatchObject({ title: 'Chat A', tags: ['keep'], pinned: true });
    // The header of the app's own format carries it, so a single-session JSONL does too.
    const one = importText(exportJsonl((await ports.store.exportSnapshot(agent.id))!), { fileName: 'one.jsonl' }).sessions[0]!;
    expect(one.meta).toMatchObject({ project: 'Refactors', archived: true, pinned: true, tags: ['keep'] });
  });

  it('deletes many sessions in one go', async () => {
    const { ports, flows, a, b } = await setup();
    expect(await flows.deleteSessions([a, b, 'gone'])).toBe(2);
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Deleted 2 sessions' });
    expect(await ports.store.listSessions()).toHaveLength(1);
  });
});
