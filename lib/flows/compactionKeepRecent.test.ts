import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/** The first conversation of the real ChatGPT export: three user turns, ~10k tokens, well under the default keep-recent of 20,000. */
async function ordinaryChat() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('chatgptExport'), { fileName: 'chatgpt-export.json' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('openai:gpt-4o', 128_000, 16_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS });
  return { ports, s, id: imported[0]!.id };
}

describe('Keep recent in the Compact dialog (issue 17, item 5)', () => {
  it('10k chat with default settings: manual compact with keep recent turns=1 works', async () => {
    const { ports, s, id } = await ordinaryChat();
    const path = () => {
      const snap = s.live.getSnapshot();
      return snap.tree.pathTo(snap.leafId);
    };
    const lastUser = path().findLast((e) => e.type === 'message' && e.message.role === 'user')!;

    // With the settings' 20,000 tokens everything is kept: nothing to summarise.
    const byDefault = await s.previewCompaction();
    expect(byDefault).toMatchObject({ ok: false, reason: 'below-keep-recent', keepRecentTokens: DEFAULT_COMPACTION_SETTINGS.keepRecentTokens });
    expect(byDefault.tokensBefore).toBeGreaterThan(8_000);
    expect(byDefault.tokensBefore).toBeLessThan(DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);

    // One turn: the preview keeps exactly the last user message and what follows it.
    const oneTurn = await s.previewCompaction({ unit: 'turns', value: 1 });
    if (!oneTurn.ok) throw new Error(`expected a cut, got ${oneTurn.reason}`);
    expect(oneTurn.keep.firstEntryId).toBe(lastUser.id);
    expect(oneTurn.summarize.messageCount).toBeGreaterThan(0);
    expect(oneTurn.keep.tokens + oneTurn.summarize.tokens).toBeLessThanOrEqual(oneTurn.tokensBefore);

    // The same figure in tokens gives the same cut: the two units are one rule.
    const inTokens = await s.previewCompaction({ unit: 'tokens', value: oneTurn.keepRecentTokens });
    expect(inTokens.ok && inTokens.keep.firstEntryId).toBe(lastUser.id);

    const created = await s.compact({ reason: 'manual', keepRecentTurns: 1 });
    expect(created).not.toBeNull();
    const stored = (await ports.store.loadSession(id))!;
    const c = stored.entries.find((e): e is CompactionEntry => e.id === created);
    expect(c?.firstKeptEntryId).toBe(lastUser.id);
    expect(c!.tokensAfter!).toBeLessThan(c!.tokensBefore);
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', entryId: created });
    expect(ctx.items[1]).toMatchObject({ kind: 'message', entryId: lastUser.id });
  });

  it('more turns than the chat has keeps everything, and says so instead of compacting', async () => {
    const { ports, s } = await ordinaryChat();
    expect(await s.previewCompaction({ unit: 'turns', value: 50 })).toMatchObject({ ok: false });
    expect(await s.compact({ reason: 'manual', keepRecentTurns: 50 })).toBeNull();
    expect(ports.notices.at(-1)?.message).toMatch(/Lower “Keep recent”/);
  });
});
