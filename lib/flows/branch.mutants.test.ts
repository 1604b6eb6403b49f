import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS, type BranchSummaryEntry } from '@/lib/session/types';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { RunKind } from './runs';

/**
 * Leaving a branch with a summary, in the details the branch tests leave
 * open: which entries are summarised (the branch only, or the whole path when
 * going before the first message), the summarizer's budget, the run and its
 * streamed text, the stored count of the summary, where the view is when the
 * move resolves, what the user is told, and a branch with nothing to summarise.
 */

const MODEL = testModel('compat:mock-large', 128_000, 4_000);
const SAID = '## Goal\nKeep the conversation going.\n\n## Progress\n- Scripted summary of the earlier messages.\n\n## Next Steps\n1. Continue.';

/** U1 → A1 → U2 → A2, then a second branch from A1: U3 → A3 (the leaf). */
async function twoBranches(opts: { summaryDelayMs?: number } = {}) {
  const ports = testPorts({ transport: scriptedTransport({ summary: () => SAID, ...(opts.summaryDelayMs ? { summaryDelayMs: opts.summaryDelayMs } : {}) }) });
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: MODEL, summarizer: MODEL, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  const turn = async (q: string, a: string) => {
    ports.transport.script({ text: a });
    await s.send(q);
    await s.idle();
    return s.live.getSnapshot().leafId!;
  };
  const a1 = await turn('First question: how do lifetimes relate to scopes?', 'Lifetimes are named regions of code.');
  const a2 = await turn('Second question on the old branch: what about the borrow checker?', 'It checks every borrow against its lifetime.');
  await s.arriveAt(a1, { kind: 'switch' });
  const a3 = await turn('Third question on the new branch: how do traits work?', 'Traits describe shared behaviour.');
  ports.notices.length = 0;
  const runs: { kind: RunKind; status?: string; text: string }[] = [];
  flows.runs.subscribe(() => {
    const r = flows.runs.get(row.id);
    if (r) runs.push({ kind: r.kind, ...(r.status ? { status: r.status } : {}), text: r.text });
  });
  return { ports, flows, s, id: row.id, a1, a2, a3, runs };
}

describe('what is summarised', () => {
  it('going to the other branch: the branch left behind, not what both share', async () => {
    const { ports, s, a2 } = await twoBranches();
    expect(await s.arriveAt(a2, { kind: 'summarize' })).toBe(true);
    const prompt = ports.transport.summaryPrompts.join('\n');
    expect(prompt).toContain('Third question on the new branch');
    expect(prompt).not.toContain('First question');
    expect(prompt).not.toContain('Second question on the old branch');
  });

  it('going before the first message: the whole path', async () => {
    const { ports, s } = await twoBranches();
    expect(await s.arriveAt(null, { kind: 'summarize' })).toBe(true);
    const prompt = ports.transport.summaryPrompts.join('\n');
    expect(prompt).toContain('First question');
    expect(prompt).toContain('Third question on the new branch');
  });

  it('fits into the summarizer’s window minus the reserve', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const { sessions } = importText(readFixture('claudeLog'), { fileName: FIXTURES.claudeLog });
    const { imported } = await ports.store.importSnapshots([sessions[0]!]);
    // A reserve larger than the summary's own output budget: the window minus the reserve is the tighter bound.
    const window = 20_000;
    const reserve = 12_000;
    const model = testModel('anthropic:claude-sonnet-4-5', window, 8_000);
    const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: reserve } });
    await s.syncTokens();
    expect(s.sync.figure!.tokens).toBeGreaterThan(window + reserve);
    expect(await s.arriveAt(null, { kind: 'summarize' })).toBe(true);
    const summary = (await ports.store.loadSession(imported[0]!.id))!.entries.find((e): e is BranchSummaryEntry => e.type === 'branch_summary')!;
    expect(summary.details.tokensSummarized).toBeGreaterThan(0);
    expect(summary.details.tokensSummarized).toBeLessThanOrEqual(window - reserve);
  });

  it('a branch with no message in it: moved without a summary, and told so', async () => {
    const { ports, s, a1, a3 } = await twoBranches();
    // Only a model change hangs below the reply on this branch.
    await s.arriveAt(a1, { kind: 'switch' });
    await s.changeModel('openai:gpt-4o');
    ports.notices.length = 0;
    expect(await s.arriveAt(a3, { kind: 'summarize' })).toBe(true);
    expect(s.live.getSnapshot().leafId).toBe(a3);
    expect(ports.transport.summaryPrompts).toEqual([]);
    expect(ports.notices).toEqual([{ level: 'info', message: 'The branch you left has nothing to summarise; moved without a summary.' }]);
  });
});

describe('the run, the entry and the notice', () => {
  it('a "branch-summary" run streams the summary; when the move resolves the view is on the stored summary; the user is told', async () => {
    const { ports, s, id, a2, runs } = await twoBranches({ summaryDelayMs: 30 });
    expect(await s.arriveAt(a2, { kind: 'summarize' })).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.kind === 'branch-summary' && r.status === 'Summarising the branch you are leaving…')).toBe(true);
    const all = SAID.repeat(ports.transport.summaryPrompts.length);
    expect(runs.some((r) => r.text.length > 0)).toBe(true);
    for (const r of runs) expect(all.startsWith(r.text)).toBe(true);

    const leaf = s.live.getSnapshot().leafId!;
    const entry = s.live.getSnapshot().tree.get(leaf);
    expect(entry).toMatchObject({ type: 'branch_summary', parentId: a2 });
    const stored = (await ports.store.loadSession(id))!.entries.find((e): e is BranchSummaryEntry => e.id === leaf)!;
    // Counted as a branch summary is counted in context.
    expect(stored.details.summaryTokens).toBe(await ports.tokens.summaryTokens(id, stored.summary, 'branch_summary'));
    expect(ports.notices).toEqual([{ level: 'success', message: 'Branch summarised into the new position.' }]);
  });
});

describe('a Stop while the summary is written', () => {
  it('keeps nothing and leaves the view where it was', async () => {
    const { ports, s, id, a2, a3 } = await twoBranches({ summaryDelayMs: 20 });
    const entries = (await ports.store.loadSession(id))!.entries.length;
    const moving = s.arriveAt(a2, { kind: 'summarize' });
    await new Promise((r) => setTimeout(r, 60));
    s.runs.get(id)!.abort.abort();
    expect(await moving).toBe(false);
    expect((await ports.store.loadSession(id))!.entries).toHaveLength(entries);
    expect(s.live.getSnapshot().leafId).toBe(a3);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Branch summary cancelled — nothing changed.' });
  });
});
