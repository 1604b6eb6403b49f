import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type BranchSummaryEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { moveLeaf } from './branch';

/** The real ChatGPT export with edited prompts (two branch points), with a summarizer whose every answer is a new version. */
async function branchedSession(transport: Omit<ScriptedTransportOptions, 'summary'> = {}) {
  let version = 0;
  const ports = testPorts({ transport: scriptedTransport({ summary: () => `## Goal\nThe abandoned approach, version ${++version}.`, ...transport }) });
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
  const { imported } = await ports.store.importSnapshots(sessions);
  const model = testModel('openai:gpt-4o', 128_000, 16_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS });
  const snap = s.live.getSnapshot();
  const path = snap.tree.pathTo(snap.leafId);
  const onPath = new Set(path.map((e) => e.id));
  const point = snap.tree.branchPoints().find((p) => snap.tree.children(p.id).some((c) => !onPath.has(c.id)))!;
  const elsewhere = snap.tree.children(point.id).find((c) => !onPath.has(c.id))!;
  return { ports, s, id: imported[0]!.id, path, oldLeaf: snap.leafId!, target: snap.tree.newestLeafUnder(elsewhere.id) };
}

describe('which moves leave a branch', () => {
  it('staying, going further down the same path, or having no position leaves nothing; going to another branch or before the first message does', async () => {
    const { s, path, oldLeaf, target } = await branchedSession();
    expect(s.leavesBranch(oldLeaf, oldLeaf)).toBe(false);
    expect(s.leavesBranch(null, target)).toBe(false);
    expect(s.leavesBranch(path[1]!.id, oldLeaf)).toBe(false);
    expect(s.leavesBranch(oldLeaf, path[1]!.id)).toBe(true);
    expect(s.leavesBranch(oldLeaf, target)).toBe(true);
    expect(s.leavesBranch(oldLeaf, null)).toBe(true);
  });
});

describe('moving when storage fails', () => {
  it('the view moves, the user is told the position was not stored', async () => {
    const { ports, s, id, oldLeaf, target } = await branchedSession();
    ports.store.updateSession = async () => Promise.reject(new Error('The storage quota is exhausted.'));
    expect(await s.arriveAt(target, { kind: 'switch' })).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(target);
    expect((await ports.store.getSession(id))!.leafId).toBe(oldLeaf);
    expect(ports.notices).toEqual([{ level: 'error', message: 'The storage quota is exhausted.' }]);
  });
});

describe('a branch summary’s later versions', () => {
  it('undo and redo are worded for a branch summary; regenerating re-reads the branch it came from', async () => {
    const { ports, s, id, target } = await branchedSession();
    expect(await s.arriveAt(target, { kind: 'summarize' })).toBe(true);
    const summary = (await ports.store.loadSession(id))!.entries.find((e): e is BranchSummaryEntry => e.type === 'branch_summary')!;
    const promptsBefore = ports.transport.summaryPrompts.length;

    await s.setSummaryUndone(summary, true);
    await s.setSummaryUndone(summary, false);
    expect(await s.regenerateSummary(summary, 'only the decisions')).toBe(true);

    expect(ports.notices.slice(-3)).toEqual([
      { level: 'success', message: 'Branch summary undone: the full history is back in context. Nothing was deleted.' },
      { level: 'success', message: 'Branch summary restored.' },
      { level: 'success', message: 'Summary regenerated; the earlier version stays in its history.' },
    ]);
    const stored = (await ports.store.loadSession(id))!;
    const path = buildSessionContext(stored.entries, stored.row.leafId).path;
    const current = resolveSummaries(path).get(summary.id)!;
    expect(current.summary).toBe('## Goal\nThe abandoned approach, version 2.');
    expect(current.versions.map((v) => v.action)).toEqual(['original', 'regenerate']);
    expect(ports.transport.summaryPrompts.slice(promptsBefore).join('\n')).toContain('only the decisions');
    // The same branch was read again: its prompt carries what the first one did.
    expect(ports.transport.summaryPrompts.at(-1)).toContain(ports.transport.summaryPrompts[promptsBefore - 1]!.split('</conversation>')[0]!.slice(-200));
  });
});

describe('regenerating a branch summary', () => {
  it('runs as a branch summary, streams the new text into its run, and records what the branch held, as the first version did', async () => {
    const { ports, s, id, target } = await branchedSession({ summaryDelayMs: 60 });
    expect(await s.arriveAt(target, { kind: 'summarize' })).toBe(true);
    const summary = (await ports.store.loadSession(id))!.entries.find((e): e is BranchSummaryEntry => e.type === 'branch_summary')!;
    const seen: { kind: string; status?: string; text: string }[] = [];
    const stop = s.runs.subscribe(() => {
      const r = s.runs.get(id);
      if (r) seen.push({ kind: r.kind, status: r.status, text: r.text });
    });
    expect(await s.regenerateSummary(summary)).toBe(true);
    stop();
    expect(seen[0]).toMatchObject({ kind: 'branch-summary', status: 'Regenerating the summary…' });
    // The first words, shown while the rest is still on its way.
    expect(seen.some((r) => r.text.startsWith('## Goal\nThe abandoned approach') && !r.text.endsWith('version 2.'))).toBe(true);
    const rev = s.live.getSnapshot().tree.get(s.live.getSnapshot().leafId!)!;
    if (rev.type !== 'summary_revision') throw new Error('not a revision');
    expect(summary.details?.tokensSummarized).toBeGreaterThan(0);
    expect(rev.details).toMatchObject({ tokensSummarized: summary.details!.tokensSummarized, summaryTokens: expect.any(Number) });
  });

  it('one whose branch holds nothing beyond where it hangs (its leaf is on the current path) is not regenerated, and the user is told why', async () => {
    const { ports, s, id, path, oldLeaf } = await branchedSession();
    // As a pi session can carry it: the summary of a "branch" that ended at an ancestor of where it was placed.
    const [odd] = await ports.store.appendEntries(id, oldLeaf, [{ type: 'branch_summary', fromId: path[1]!.id, summary: '## Goal\nNothing left.', details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } }]);
    await moveLeaf(s, odd!.id);
    const n = (await ports.store.loadSession(id))!.entries.length;
    expect(await s.regenerateSummary(odd as BranchSummaryEntry)).toBe(false);
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'Regeneration failed: The branch this summary came from has nothing left to summarise. Nothing changed.' });
    expect((await ports.store.loadSession(id))!.entries).toHaveLength(n);
    expect(ports.transport.summaryPrompts).toHaveLength(0);
  });
});
