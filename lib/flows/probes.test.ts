import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import type { SummaryEntry } from '@/lib/session/revisions';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { buildTimeline, type TimelineItem } from '@/lib/timeline/build';
import { focusInstructions } from '@/lib/timeline/notCarried';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { AppFlows } from './app';
import { summaryProbeKey } from './probes';

type SummaryItem = Extract<TimelineItem, { kind: 'summary' }>;

/** A model that writes a short summary, and keeps what focus instructions ask it to keep (the quoted item). */
function summaryKeepingFocus(prompt: string): string {
  const focus = /naming it exactly as written: “([^”]+)”/.exec(prompt)?.[1];
  return `## Goal\nCarry on with the session.\n\n## Progress\n- Scripted summary.${focus ? `\n- Kept as asked: ${focus}` : ''}`;
}

async function compactedClaudeSession() {
  const ports = testPorts({ transport: scriptedTransport({ summary: summaryKeepingFocus }) });
  let reports = 0;
  const report = ports.probes!.report;
  ports.probes = { report: (span, summary) => (reports++, report(span, summary)) };
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claudeLog' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 8_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 4_000 } });
  expect(await s.compact({ reason: 'manual' })).not.toBeNull();
  const card = (): SummaryItem => {
    const { tree, leafId } = s.live.getSnapshot();
    return buildTimeline(tree, buildSessionContext(tree, leafId)).filter((i): i is SummaryItem => i.kind === 'summary').at(-1)!;
  };
  const probe = (c: SummaryItem) => s.summaryProbes(summaryProbeKey(c.entry, c.effective), c.summarized.entries, c.effective.summary);
  return { ports, s, card, probe, reports: () => reports };
}

describe('what a compaction lost, and adding it back', () => {
  it('a compaction made here gets a report, computed once per version of its summary', async () => {
    const { card, probe, reports } = await compactedClaudeSession();
    const c = card();
    const first = await probe(c);
    expect(first).not.toBeNull();
    expect(first!.health).not.toBeNull();
    expect(first!.missed.length).toBeGreaterThan(0);
    expect(await probe(c)).toBe(first);
    expect(reports()).toBe(1);
  });

  it('re-summarise with a missed item as focus: the summarizer is asked for it, and the new version no longer misses it', async () => {
    const { ports, s, card, probe, reports } = await compactedClaudeSession();
    const before = (await probe(card()))!;
    const item = before.missed.find((m) => m.kind === 'fileModified' || m.kind === 'identifier') ?? before.missed[0]!;
    expect(await s.regenerateSummary(card().entry as SummaryEntry, focusInstructions(item))).toBe(true);
    expect(ports.transport.summaryPrompts.at(-1)).toContain(item.label);
    const after = (await probe(card()))!;
    expect(reports()).toBe(2);
    expect(after.missed.map((m) => m.label)).not.toContain(item.label);
    expect(after.health!).toBeGreaterThanOrEqual(before.health!);
  });

  it('pin the message a missed item came from: that message reaches the model verbatim after the summary', async () => {
    const { s, card, probe } = await compactedClaudeSession();
    const item = (await probe(card()))!.missed.find((m) => m.entryId !== undefined)!;
    expect(await s.setPinned(item.entryId!, true)).toBe(true);
    const { tree, leafId } = s.live.getSnapshot();
    const ctx = buildSessionContext(tree, leafId);
    expect(ctx.pinned.has(item.entryId!)).toBe(true);
    expect(ctx.items.some((i) => i.kind === 'message' && i.entryId === item.entryId && i.carried)).toBe(true);
  });

  it('without a worker to score summaries, there is no report and nothing fails', async () => {
    const { ports, card, probe } = await compactedClaudeSession();
    delete ports.probes;
    const c = card();
    // A fresh version key: the cached report of the original summary is not what is asked here.
    expect(await probe({ ...c, effective: { ...c.effective, versions: [...c.effective.versions, { ...c.effective.versions[0]!, entryId: 'x' }] } })).toBeNull();
  });
});
