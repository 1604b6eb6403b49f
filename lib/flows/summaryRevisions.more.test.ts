import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts, until, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { moveLeaf } from './branch';

/**
 * What the summary revisions tell the user and show at once: undo, redo, edit
 * and regeneration of a compaction of the real claude-code-log transcript,
 * the count an edit records, the run a regeneration shows, and a regeneration
 * that cannot run or is cancelled (nothing changes, and the user is told).
 */

async function compacted(transport: ScriptedTransportOptions = {}) {
  let version = 0;
  const ports = testPorts({ transport: scriptedTransport({ summary: () => `## Goal\nSummary version ${++version}.`, ...transport }) });
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claude.jsonl' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000 } });
  const id = (await s.compact({ reason: 'manual' }))!;
  const target = s.live.getSnapshot().tree.get(id) as CompactionEntry;
  ports.notices.length = 0;
  const entries = async () => (await ports.store.loadSession(imported[0]!.id))!.entries;
  return { ports, s, sessionId: imported[0]!.id, target, entries };
}

describe('summary revisions: what the user is told and sees', () => {
  it('undo, redo, edit and regeneration each say what they did, and each shows in this tab at once', async () => {
    const { ports, s, target } = await compacted();
    const leafIs = (action: string) => expect(s.live.getSnapshot().tree.get(s.live.getSnapshot().leafId!)).toMatchObject({ type: 'summary_revision', targetId: target.id, action });
    await s.setSummaryUndone(target, true);
    leafIs('undo');
    await s.setSummaryUndone(target, false);
    leafIs('redo');
    await s.editSummary(target, '## Goal\nEdited by hand.');
    leafIs('edit');
    expect(await s.regenerateSummary(target)).toBe(true);
    leafIs('regenerate');
    expect(ports.notices).toEqual([
      { level: 'success', message: 'Compaction undone: the full history is back in context. Nothing was deleted.' },
      { level: 'success', message: 'Compaction restored.' },
      { level: 'success', message: 'Summary edited; the earlier version stays in its history.' },
      { level: 'success', message: 'Summary regenerated; the earlier version stays in its history.' },
    ]);
  });

  it('an edit records the token count of its own text, as the worker counts a summary', async () => {
    const { ports, s, target, sessionId } = await compacted();
    const text = `## Goal\n${'Keep the parser fast and the error messages clear. '.repeat(30)}`;
    await s.editSummary(target, text);
    const edit = s.live.getSnapshot().tree.get(s.live.getSnapshot().leafId!)!;
    const expected = await ports.tokens.summaryTokens(sessionId, text, 'compaction');
    expect(expected).toBeGreaterThan(100);
    expect(edit).toMatchObject({ action: 'edit', summary: text, details: { summaryTokens: expected } });
  });

  it('a regeneration shows as a compaction run with its own status, streams into it, and records the count of the new text', async () => {
    const text = `## Goal\n${'Keep the parser fast and its errors clear. '.repeat(4)}`;
    const { s, target, sessionId, ports } = await compacted({ summaryDelayMs: 60, summary: () => text });
    const shown: string[] = [];
    const stop = s.runs.subscribe(() => void shown.push(s.runs.get(sessionId)?.text ?? ''));
    const running = s.regenerateSummary(target);
    await until(() => s.runs.get(sessionId) !== undefined);
    expect(s.runs.get(sessionId)).toMatchObject({ kind: 'compaction', status: 'Regenerating the summary…' });
    expect(await running).toBe(true);
    stop();
    // The first words, shown while the rest was still on its way.
    expect(shown.some((t) => t.length > 0 && t.length < text.length && text.startsWith(t))).toBe(true);
    const rev = s.live.getSnapshot().tree.get(s.live.getSnapshot().leafId!)!;
    if (rev.type !== 'summary_revision') throw new Error('not a revision');
    expect(rev.details?.summaryTokens).toBe(await ports.tokens.summaryTokens(sessionId, rev.summary!, 'compaction'));
  });

  it('a compaction no longer on the path is not regenerated, and the user is told why', async () => {
    const { ports, s, target, entries } = await compacted();
    // At once: the late notice of the tab's own compaction must not carry it back there (liveSession.ownWrite.test).
    await moveLeaf(s, target.parentId);
    const n = (await entries()).length;
    expect(await s.regenerateSummary(target)).toBe(false);
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'Regeneration failed: This compaction is not on the current path any more. Nothing changed.' });
    expect(await entries()).toHaveLength(n);
  });

  it('a regeneration cancelled while the summary streams changes nothing and says so', async () => {
    const { ports, s, target, sessionId, entries } = await compacted({ summaryDelayMs: 20 });
    const n = (await entries()).length;
    const running = s.regenerateSummary(target);
    await until(() => ports.transport.summaryPrompts.length > 1);
    s.runs.get(sessionId)!.abort.abort();
    expect(await running).toBe(false);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Regeneration cancelled — nothing changed.' });
    expect(await entries()).toHaveLength(n);
    expect(s.runs.get(sessionId)).toBeUndefined();
  });
});
