import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type SessionEntry, type SessionSnapshot } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/** The first conversation of the real ChatGPT export: three user turns, ~10k tokens, well under the default keep-recent of 20,000. */
async function ordinaryChat(edit: (snapshot: SessionSnapshot) => SessionSnapshot = (x) => x) {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('chatgptExport'), { fileName: 'chatgpt-export.json' });
  const { imported } = await ports.store.importSnapshots([edit(sessions[0]!)]);
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

describe('Keep recent 0 in the Compact dialog: nothing is kept unless something is waiting for an answer', () => {
  it('a conversation at rest: the summary replaces all of it, the compaction names itself as its first kept entry, and the model sees the summary alone', async () => {
    const { ports, s, id } = await ordinaryChat();
    const preview = await s.previewCompaction({ unit: 'tokens', value: 0 });
    if (!preview.ok) throw new Error(`expected a compaction, got ${preview.reason}`);
    expect(preview.keep).toMatchObject({ messageCount: 0, tokens: 0, entryCount: 0 });
    expect(preview.keptBecause).toBeNull();
    const messages = s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId).filter((e) => e.type === 'message');
    expect(preview.summarize.messageCount).toBe(messages.length);

    const created = await s.compact({ reason: 'manual', keepRecentTokens: 0 });
    expect(created).not.toBeNull();
    const stored = (await ports.store.loadSession(id))!;
    const c = stored.entries.find((e): e is CompactionEntry => e.id === created)!;
    expect(c.firstKeptEntryId).toBe(c.id);
    expect(c.details.summarizedEntryCount).toBe(messages.length);
    expect(c.tokensAfter!).toBeLessThan(c.tokensBefore);
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items.map((i) => i.kind)).toEqual(['compactionSummary']);
    // What the card records as "after" is the context the meter then shows: the summary alone (plus the request's own text).
    expect(c.tokensAfter).toBe(await ports.tokens.contextAfterCompaction(id, c.summary, null));
    // And it can be regenerated like any other.
    expect(await s.regenerateSummary(c)).toBe(true);
  });

  it('a prompt not answered yet stays, and the preview says why', async () => {
    const pending = 'pending-prompt';
    const { ports, s, id } = await ordinaryChat((snap) => {
      const entry: SessionEntry = { id: pending, parentId: snap.meta.leafId, timestamp: snap.meta.updatedAt + 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'And what about the weekend?' }] } };
      return { meta: { ...snap.meta, leafId: pending }, entries: [...snap.entries, entry] };
    });
    const preview = await s.previewCompaction({ unit: 'tokens', value: 0 });
    if (!preview.ok) throw new Error(`expected a compaction, got ${preview.reason}`);
    expect(preview.keep).toMatchObject({ firstEntryId: pending, messageCount: 1 });
    expect(preview.keptBecause).toBe('unanswered-prompt');
    const created = await s.compact({ reason: 'manual', keepRecentTokens: 0 });
    const c = (await ports.store.loadSession(id))!.entries.find((e): e is CompactionEntry => e.id === created)!;
    expect(c.firstKeptEntryId).toBe(pending);
  });

  it('a turn in the middle of its tool calls keeps the calls with their results, and the preview says why', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const [snap] = importText(readFixture('claudeLog'), { fileName: 'claude.jsonl' }).sessions;
    const path = new SessionTree(snap!.entries).pathTo(snap!.meta.leafId);
    // The transcript as it stood right after a tool result came back, before the model went on.
    const result = path.findLast((e) => e.type === 'message' && e.message.role === 'toolResult')!;
    const call = path.findLast((e, i) => i < path.indexOf(result) && e.type === 'message' && e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'toolCall'))!;
    const { imported } = await ports.store.importSnapshots([{ meta: { ...snap!.meta, leafId: result.id }, entries: snap!.entries }]);
    const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
    const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS });
    const preview = await s.previewCompaction({ unit: 'tokens', value: 0 });
    if (!preview.ok) throw new Error(`expected a compaction, got ${preview.reason}`);
    expect(preview.keptBecause).toBe('tool-turn');
    expect(preview.keep.firstEntryId).toBe(call.id);
    expect(preview.keep.entryCount).toBe(path.indexOf(result) - path.indexOf(call) + 1);
  });
});
