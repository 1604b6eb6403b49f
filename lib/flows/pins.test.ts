import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000, reserveTokens: 4_000 };

/** The real claude-code-log transcript (~36k tokens, tool calls and results), opened as after an import. */
async function claudeSession() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claude-code-log.jsonl' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: model, summarizer: model, settings: SETTINGS });
  const snap = s.live.getSnapshot();
  const path = snap.tree.pathTo(snap.leafId);
  return { ports, s, id: imported[0]!.id, path };
}

const isMessage = (e: SessionEntry): e is Extract<SessionEntry, { type: 'message' }> => e.type === 'message';

describe('pins (issue 17, item 9)', () => {
  it('a pinned prompt and a pinned tool call survive a compaction verbatim, after the summary and in path order, with the call’s results', async () => {
    const { ports, s, id, path } = await claudeSession();
    const firstUser = path.find((e) => isMessage(e) && e.message.role === 'user')!;
    const call = path.find((e) => isMessage(e) && e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'toolCall'))!;
    const callIds = isMessage(call) && call.message.role === 'assistant' ? call.message.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : [])) : [];
    const results = path.filter((e) => isMessage(e) && e.message.role === 'toolResult' && callIds.includes(e.message.toolCallId));
    expect(results.length).toBeGreaterThan(0);

    expect(await s.setPinned(firstUser.id, true)).toBe(true);
    expect(await s.setPinned(call.id, true)).toBe(true);
    expect(s.live.derive(s.live.getSnapshot()).context.pinned).toEqual(new Set([firstUser.id, call.id]));

    expect(await s.compact({ reason: 'manual' })).not.toBeNull();
    const stored = (await ports.store.loadSession(id))!;
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items[0]!.kind).toBe('compactionSummary');
    // Both were before the cut: summarised, yet carried word for word right after the summary.
    const keptFrom = ctx.path.findIndex((e) => e.id === ctx.compaction!.firstKeptEntryId);
    expect(ctx.path.findIndex((e) => e.id === call.id)).toBeLessThan(keptFrom);
    const expected = [firstUser, call, ...results].sort((a, b) => path.indexOf(a) - path.indexOf(b));
    expect(ctx.items.slice(1, 1 + expected.length)).toEqual(expected.map((e) => ({ kind: 'message', entryId: e.id, message: (e as { message: unknown }).message, carried: true })));
    // Nothing else from before the cut reaches the model.
    const carriedIds = new Set(expected.map((e) => e.id));
    for (const item of ctx.items.slice(1 + expected.length)) expect(ctx.path.findIndex((e) => e.id === item.entryId)).toBeGreaterThanOrEqual(keptFrom);
    expect(ctx.items.filter((it) => carriedIds.has(it.entryId))).toHaveLength(expected.length);
  });

  it('the plan and the meter count pinned tokens: the preview’s "after" grows by exactly them, and unpinning after the compaction lowers the meter by them', async () => {
    const { ports, s, id, path } = await claudeSession();
    const firstUser = path.find((e) => isMessage(e) && e.message.role === 'user')!;
    const before = await s.previewCompaction();
    if (!before.ok) throw new Error(before.reason);
    expect(before.pinned).toEqual({ count: 0, tokens: 0 });

    await s.setPinned(firstUser.id, true);
    const pinned = await s.previewCompaction();
    if (!pinned.ok) throw new Error(pinned.reason);
    const counts = await ports.tokens.pathTokens(id);
    const userTokens = counts.counts[counts.ids.indexOf(firstUser.id)]!;
    expect(pinned.keep.firstEntryId).toBe(before.keep.firstEntryId);
    expect(pinned.pinned).toEqual({ count: 1, tokens: userTokens });
    expect(pinned.estimatedTokensAfter).toBeCloseTo(before.estimatedTokensAfter + userTokens, 6);

    const created = await s.compact({ reason: 'manual' });
    const c = (await ports.store.loadSession(id))!.entries.find((e): e is CompactionEntry => e.id === created)!;
    await s.syncTokens();
    const withPin = s.sync.figure!.tokens;
    // The stored "after" holds the pinned message too.
    expect(c.tokensAfter!).toBeGreaterThan(userTokens);
    await s.setPinned(firstUser.id, false);
    await s.syncTokens();
    expect(Math.abs(withPin - s.sync.figure!.tokens - userTokens)).toBeLessThanOrEqual(1);
  });

  it('a tool result cannot be pinned on its own (it travels with its call): refused with a reason, nothing appended', async () => {
    const { ports, s, path } = await claudeSession();
    const result = path.find((e) => isMessage(e) && e.message.role === 'toolResult')!;
    expect(await s.setPinned(result.id, true)).toBe(false);
    expect(ports.notices.at(-1)).toMatchObject({ level: 'error' });
    expect(s.live.derive(s.live.getSnapshot()).context.pinned.size).toBe(0);
  });

  it('pins and masks survive export → import in the native format, through storage: same entries, same context', async () => {
    const { ports, s, id, path } = await claudeSession();
    const firstUser = path.find((e) => isMessage(e) && e.message.role === 'user')!;
    await s.setPinned(firstUser.id, true);
    s.setEnv({ ...s.env(), settings: { ...SETTINGS, maskToolOutput: true, maskProtectTokens: 4_000 } });
    const maskId = await s.maskToolOutput();
    expect(maskId).not.toBeNull();
    expect(await s.compact({ reason: 'manual', keepRecentTurns: 1 })).not.toBeNull();

    const original = (await ports.store.exportSnapshot(id))!;
    const types = new Set(original.entries.map((e) => e.type));
    expect(types.has('pin') && types.has('tool_mask')).toBe(true);
    const { sessions } = importText(exportJsonl(original), { fileName: 'session.jsonl' });
    const { imported } = await ports.store.importSnapshots(sessions, { allowDuplicates: true });
    const back = (await ports.store.exportSnapshot(imported[0]!.id))!;

    const strip = (entries: readonly SessionEntry[]) => entries.filter((e) => e.type === 'pin' || e.type === 'tool_mask');
    expect(strip(back.entries)).toEqual(strip(original.entries));
    const a = buildSessionContext(original.entries, original.meta.leafId);
    const b = buildSessionContext(back.entries, back.meta.leafId);
    expect(b.items).toEqual(a.items);
    expect(b.pinned).toEqual(new Set([firstUser.id]));
    expect(b.masked.size).toBeGreaterThan(0);
    expect(b.items.some((it) => it.kind === 'message' && it.carried && it.entryId === firstUser.id)).toBe(true);
  });
});
