import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

async function compacted() {
  let version = 0;
  const ports = testPorts({ transport: scriptedTransport({ summary: () => `## Goal\nSummary version ${++version}.` }) });
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claude.jsonl' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000 } });
  const id = (await s.compact({ reason: 'manual' }))!;
  const target = s.live.getSnapshot().tree.get(id) as CompactionEntry;
  return { ports, s, sessionId: imported[0]!.id, target };
}

async function effective(ports: Awaited<ReturnType<typeof compacted>>['ports'], sessionId: string, targetId: string) {
  const stored = (await ports.store.loadSession(sessionId))!;
  const path = buildSessionContext(stored.entries, stored.row.leafId).path;
  return { summary: resolveSummaries(path).get(targetId)!, ctx: buildSessionContext(stored.entries, stored.row.leafId), stored };
}

describe('summary revisions', () => {
  it('undo brings the full history back into context and redo restores the summary; the original entry is never touched', async () => {
    const { ports, s, sessionId, target } = await compacted();
    await s.setSummaryUndone(target, true);
    let e = await effective(ports, sessionId, target.id);
    expect(e.summary.undone).toBe(true);
    expect(e.ctx.items.some((i) => i.kind === 'compactionSummary')).toBe(false);
    await s.setSummaryUndone(target, false);
    e = await effective(ports, sessionId, target.id);
    expect(e.summary.undone).toBe(false);
    expect(e.ctx.items[0]).toMatchObject({ kind: 'compactionSummary', entryId: target.id });
    expect(e.stored.entries.find((x) => x.id === target.id)).toEqual(target);
  });

  it('an edit and a regeneration each become the current version; earlier versions stay in the history', async () => {
    const { ports, s, sessionId, target } = await compacted();
    await s.editSummary(target, '## Goal\nEdited by hand.');
    let e = await effective(ports, sessionId, target.id);
    expect(e.summary.summary).toBe('## Goal\nEdited by hand.');
    expect(await s.regenerateSummary(target, 'mention the screenshot')).toBe(true);
    e = await effective(ports, sessionId, target.id);
    expect(e.summary.summary).toContain('Summary version 2.');
    expect(e.summary.versions.map((v) => v.action)).toEqual(['original', 'edit', 'regenerate']);
    expect(e.ctx.items[0]).toMatchObject({ kind: 'compactionSummary', summary: e.summary.summary });
    expect(ports.transport.summaryPrompts.at(-1)).toContain('mention the screenshot');
  });
});
