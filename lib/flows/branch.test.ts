import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type BranchSummaryEntry, type EntryId } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/** The real ChatGPT export with edited prompts: a tree with two branch points. */
async function branchedSession(opts: { model?: boolean; summaryDelayMs?: number } = {}) {
  const ports = testPorts({ transport: scriptedTransport({ summaryDelayMs: opts.summaryDelayMs ?? 0, summary: () => '## Goal\nThe abandoned approach, summarised.' }) });
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('chatgptTree'), { fileName: 'chatgpt-tree.json' });
  const { imported } = await ports.store.importSnapshots(sessions);
  const model = opts.model === false ? undefined : testModel('openai:gpt-4o', 128_000, 16_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS });
  const snap = s.live.getSnapshot();
  const onPath = new Set(snap.tree.pathTo(snap.leafId).map((e) => e.id));
  // Another branch's newest leaf: where a user would click in the tree.
  const point = snap.tree.branchPoints().find((p) => snap.tree.children(p.id).some((c) => !onPath.has(c.id)))!;
  const elsewhere = snap.tree.children(point.id).find((c) => !onPath.has(c.id))!;
  const target = snap.tree.newestLeafUnder(elsewhere.id);
  return { ports, s, id: imported[0]!.id, oldLeaf: snap.leafId!, target };
}

const branchSummaries = (entries: { type: string }[]) => entries.filter((e): e is BranchSummaryEntry => e.type === 'branch_summary');

describe('leaving a branch', () => {
  it('switching without a summary moves the position and writes no entry', async () => {
    const { ports, s, id, oldLeaf, target } = await branchedSession();
    expect(s.leavesBranch(oldLeaf, target)).toBe(true);
    const n = (await ports.store.loadSession(id))!.entries.length;
    expect(await s.arriveAt(target, { kind: 'switch' })).toBe(true);
    const stored = (await ports.store.loadSession(id))!;
    expect(stored.entries.length).toBe(n);
    expect(stored.row.leafId).toBe(target);
  });

  it('summarising appends a branch summary of the abandoned branch at the new position, and the model sees it', async () => {
    const { ports, s, id, oldLeaf, target } = await branchedSession();
    expect(await s.arriveAt(target, { kind: 'summarize', instructions: 'Only the decisions' })).toBe(true);
    const stored = (await ports.store.loadSession(id))!;
    const [summary] = branchSummaries(stored.entries);
    expect(summary).toMatchObject({ parentId: target, fromId: oldLeaf, summary: '## Goal\nThe abandoned approach, summarised.' });
    expect(summary!.details).toMatchObject({ summarizer: { kind: 'model', model: 'openai:gpt-4o' }, customInstructions: 'Only the decisions' });
    expect(summary!.details.tokensSummarized!).toBeGreaterThan(0);
    expect(stored.row.leafId).toBe(summary!.id);
    expect(buildSessionContext(stored.entries, stored.row.leafId).items.at(-1)).toMatchObject({ kind: 'branchSummary', fromId: oldLeaf });
    // The abandoned branch's own words went to the summarizer.
    const abandoned = s.live.getSnapshot().tree.get(oldLeaf as EntryId)!;
    expect(abandoned.type).toBe('message');
    expect(ports.transport.summaryPrompts.join('\n')).toContain('Only the decisions');
  });

  it('cancelling the summary leaves the position and the session as they were', async () => {
    const { ports, s, id, oldLeaf, target } = await branchedSession({ summaryDelayMs: 30 });
    const n = (await ports.store.loadSession(id))!.entries.length;
    const going = s.arriveAt(target, { kind: 'summarize' });
    await new Promise((r) => setTimeout(r, 20));
    s.runs.get(id)!.abort.abort();
    expect(await going).toBe(false);
    const stored = (await ports.store.loadSession(id))!;
    expect(stored.entries.length).toBe(n);
    expect(s.live.getSnapshot().leafId).toBe(oldLeaf);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Branch summary cancelled — nothing changed.' });
  });

  it('without a model, the extractive summarizer writes the branch summary', async () => {
    const { ports, s, id, target } = await branchedSession({ model: false });
    expect(await s.arriveAt(target, { kind: 'summarize' })).toBe(true);
    expect(branchSummaries((await ports.store.loadSession(id))!.entries)[0]!.details.summarizer).toEqual({ kind: 'extractive' });
  });
});
