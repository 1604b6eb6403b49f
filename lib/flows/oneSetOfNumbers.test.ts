import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { summaryCardTokens } from '@/lib/timeline/cardFigures';
import { AppFlows } from './app';

/**
 * Issue 17, item 6: the Compact preview, the compaction's card and the meter
 * agree on the same state. "Context now" is the meter; "After, at most" is a
 * true bound of what the card then records as "after"; the card's "after" is
 * the meter right after the compaction, and follows a regenerated or edited
 * summary.
 */

const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000 };

/** What the scripted summarizer answers (every request of a chunked summary gets it). */
const next = { summary: '' };

async function open(fixture: FixtureName) {
  const ports = testPorts({ transport: scriptedTransport({ summary: () => next.summary }) });
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture(fixture), { fileName: `${fixture}.jsonl` });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings, systemPrompt: 'You are a careful engineer.' });
  return { ports, s, id: imported[0]!.id };
}

/** What the meter shows now (the worker brought up to date with the tab's path first). */
async function meter(s: Awaited<ReturnType<typeof open>>['s']): Promise<number> {
  await s.syncTokens();
  return s.sync.figure!.tokens;
}

async function card(ports: Awaited<ReturnType<typeof open>>['ports'], sessionId: string, targetId: string) {
  const stored = (await ports.store.loadSession(sessionId))!;
  const path = buildSessionContext(stored.entries, stored.row.leafId).path;
  const entry = path.find((e) => e.id === targetId) as CompactionEntry;
  return summaryCardTokens(entry, resolveSummaries(path).get(targetId)!, 0);
}

describe('one set of numbers: preview, card and meter', () => {
  it.each(['claudeLog', 'codexRollout', 'sweTraj'] as FixtureName[])('%s: "Context now" is the meter, "After, at most" bounds the card’s "after", which is the meter after', async (fixture) => {
    const { ports, s, id } = await open(fixture);
    next.summary = '## Goal\nA short summary.';
    const before = await meter(s);
    const preview = await s.previewCompaction();
    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.tokensBefore).toBe(before);

    const cid = (await s.compact({ reason: 'manual' }))!;
    expect(cid).not.toBeNull();
    const first = await card(ports, id, cid);
    expect(first.before).toBe(before);
    expect(first.after).toBe(await meter(s));
    expect(first.after!).toBeLessThanOrEqual(preview.estimatedTokensAfter);

    // Regenerate: the card's "after" moves with the new summary, to the meter's figure.
    const target = s.live.getSnapshot().tree.get(cid) as CompactionEntry;
    next.summary = `## Goal\n${'The regenerated summary, a good deal longer than the first one. '.repeat(30)}`;
    expect(await s.regenerateSummary(target)).toBe(true);
    const regenerated = await card(ports, id, cid);
    expect(regenerated.after).toBe(await meter(s));
    expect(regenerated.after!).toBeGreaterThan(first.after!);
    expect(regenerated.text).toContain(regenerated.after!.toLocaleString('en-US'));

    // An edit too.
    await s.editSummary(target, '## Goal\nEdited by hand.');
    const edited = await card(ports, id, cid);
    expect(edited.after).toBe(await meter(s));
    expect(edited.after!).toBeLessThan(regenerated.after!);
  });
});
