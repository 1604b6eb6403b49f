import { describe, expect, it } from 'vitest';
import { buildSessionContext, type ContextItem } from '@/lib/session/context';
import { maskStubText } from '@/lib/session/masks';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionEntry, type ToolMaskEntry } from '@/lib/session/types';
import type { FixtureName } from '@/lib/testing/fixtures';
import { openRawAgentSession, testModel } from '@/lib/testing/flowPorts';
import { autoCompactIfNeeded } from './compaction';

const RESERVE = 4_000;
const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: RESERVE, maskToolOutput: true, maskProtectTokens: 8_000 };

/**
 * A real agent transcript with tool results, imported and opened. The pi
 * fixture already holds compactions of its own: its leaf is moved to just
 * before the first one, where the whole raw history is in context.
 */
async function agentSession(fixture: FixtureName) {
  const { ports, s, id, snapshot } = await openRawAgentSession(fixture, SETTINGS);
  const plan = await s.previewMasking();
  if (!plan) throw new Error(`${fixture}: nothing to mask`);
  return { ports, s, id, plan, originals: new Map(snapshot.entries.map((e) => [e.id, e])) };
}

/**
 * Gives the session a chat model whose auto-compaction limit (window − reserve)
 * is `limit`. The window stays above the context now (and so above the last
 * reported prompt, which would otherwise read as a silently truncated request):
 * the reserve makes up the difference.
 */
async function withLimit(s: Awaited<ReturnType<typeof agentSession>>['s'], before: number, limit: number, settings: CompactionSettings = SETTINGS) {
  const window = before + 1_000;
  const model = testModel('anthropic:claude-sonnet-4-5', window, 64_000);
  s.setEnv({ ...s.env(), chatModel: model, summarizer: model, settings: { ...settings, reserveTokens: window - limit } });
  // The protected window is clamped to what this window leaves for a kept tail: ask again.
  return s.previewMasking();
}

const toolCallIds = (items: readonly ContextItem[]) =>
  items.flatMap((it) => (it.kind === 'message' && it.message.role === 'assistant' ? it.message.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : [])) : []));
const resultIds = (items: readonly ContextItem[]) => items.flatMap((it) => (it.kind === 'message' && it.message.role === 'toolResult' ? [it.message.toolCallId] : []));
const stripCache = (e: SessionEntry | undefined) => e && { ...e, tokens: undefined };

describe('tool-output masking before summarising (issue 17, item 10)', () => {
  it.each(['piV1', 'claudeLog', 'codexRollout'] as const)(
    '%s: masking alone brings the context under the limit, so no summary runs; the originals are intact and every call keeps its result',
    async (fixture) => {
      const { ports, s, id, plan, originals } = await agentSession(fixture);
      expect(plan.tokensAfter).toBeLessThan(plan.tokensBefore);
      // A limit between the figure after masking and the figure now.
      const limit = Math.floor((plan.tokensBefore + plan.tokensAfter) / 2);
      const planned = (await withLimit(s, plan.tokensBefore, limit))!;
      expect(planned.tokensAfter).toBeLessThanOrEqual(limit);
      const leafBefore = s.live.getSnapshot().leafId;
      const before = buildSessionContext(s.live.getSnapshot().tree, leafBefore);

      await autoCompactIfNeeded(s);

      const stored = (await ports.store.loadSession(id))!;
      const mask = stored.entries.find((e): e is ToolMaskEntry => e.type === 'tool_mask')!;
      expect(mask.parentId).toBe(leafBefore);
      expect(mask.maskedIds).toEqual(planned.maskedIds);
      expect(stored.entries.filter((e) => e.type === 'compaction').length).toBe([...originals.values()].filter((e) => e.type === 'compaction').length);
      expect(ports.transport.summaryPrompts).toHaveLength(0);
      // The meter after masking shows what the plan promised, and it is under the limit.
      expect(Math.abs(s.sync.figure!.tokens - planned.tokensAfter)).toBeLessThanOrEqual(1);
      expect(s.sync.figure!.tokens).toBeLessThanOrEqual(limit);

      // The protected recent window is untouched: at least protectTokens of context follow the newest masked result.
      const { ids, counts } = await ports.tokens.pathTokens(id);
      const newest = Math.max(...mask.maskedIds.map((m) => ids.indexOf(m)));
      let recent = 0;
      for (let i = newest + 1; i < ids.length; i++) recent += counts[i]!;
      expect(recent).toBeGreaterThanOrEqual(planned.protectTokens);
      // Originals intact: the masked entries are stored exactly as imported.
      for (const mid of mask.maskedIds) expect(stripCache(stored.entries.find((e) => e.id === mid))).toEqual(stripCache(originals.get(mid)));
      // The model sees stubs, each still answering its call.
      const after = buildSessionContext(stored.entries, mask.id);
      const masked = after.items.filter((it) => it.kind === 'message' && it.masked);
      expect(masked.map((it) => it.entryId)).toEqual(mask.maskedIds);
      for (const it of masked) {
        const original = originals.get(it.entryId) as Extract<SessionEntry, { type: 'message' }>;
        expect(it.kind === 'message' && it.message).toEqual({ ...original.message, content: [{ type: 'text', text: maskStubText(original.message as never) }] });
      }
      expect(resultIds(after.items)).toEqual(resultIds(before.items));
      expect(toolCallIds(after.items)).toEqual(toolCallIds(before.items));
      const calls = new Set(toolCallIds(after.items));
      for (const it of masked) expect(it.kind === 'message' && it.message.role === 'toolResult' && calls.has(it.message.toolCallId)).toBe(true);
    },
  );

  // Not codexRollout: its newest turn holds a 10k+ tool result in the protected window, so under a limit masking cannot
  // reach, no cut leaves room for a summary and compaction says so instead (lib/compaction/overLimit.test.ts replays it).
  it.each(['piV1', 'claudeLog'] as const)('%s: when masking is not enough, the summary runs after it, on the masked path', async (fixture) => {
    const { ports, s, id, plan } = await agentSession(fixture);
    // Below what masking reaches, so a summary is still needed, but not so low that the kept tail and a summary
    // cannot fit under it (then compaction refuses and says why: lib/compaction/overLimit.test.ts).
    const reach = (await withLimit(s, plan.tokensBefore, Math.floor(plan.tokensAfter * 0.5)))!;
    const limit = Math.floor(reach.tokensAfter * 0.9);
    const planned = (await withLimit(s, plan.tokensBefore, limit))!;
    expect(planned.tokensAfter).toBeGreaterThan(limit);

    await autoCompactIfNeeded(s);

    const stored = (await ports.store.loadSession(id))!;
    const mask = stored.entries.find((e) => e.type === 'tool_mask')!;
    const compaction = stored.entries.find((e) => e.type === 'compaction' && e.parentId === mask.id);
    expect(compaction).toBeDefined();
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
    expect(stored.row.leafId).toBe(compaction!.id);
  });

  it('before sending: when masking makes the new message fit, it hangs under the mask and the model gets the stubs, with no summary', async () => {
    const { ports, s, id, plan } = await agentSession('codexRollout');
    const planned = (await withLimit(s, plan.tokensBefore, Math.floor((plan.tokensBefore + plan.tokensAfter) / 2)))!;
    ports.transport.script({ text: 'Carrying on.', usage: { input: Math.round(planned.tokensAfter), output: 3 } });
    await s.send('Please carry on with the task.');
    await s.idle();
    const stored = (await ports.store.loadSession(id))!;
    const mask = stored.entries.find((e) => e.type === 'tool_mask')!;
    const prompt = stored.entries.find((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === mask.id);
    expect(prompt).toBeDefined();
    expect(ports.transport.summaryPrompts).toHaveLength(0);
    const sent = ports.transport.chatRequests.at(-1)!.context;
    expect(sent.filter((it) => it.kind === 'message' && it.masked).map((it) => it.entryId)).toEqual(planned.maskedIds);
    expect(sent.some((it) => it.kind === 'compactionSummary')).toBe(false);
  });

  it('masking can be undone and redone: the full outputs come back into the context and the meter, and go again', async () => {
    const { s, plan } = await agentSession('claudeLog');
    const figure = async () => {
      await s.syncTokens();
      return s.sync.figure!.tokens;
    };
    const unmasked = await figure();
    const counted = buildSessionContext(s.live.getSnapshot().tree, s.live.getSnapshot().leafId);
    const maskId = (await s.maskToolOutput())!;
    const masked = await figure();
    expect(Math.abs(masked - plan.tokensAfter)).toBeLessThanOrEqual(1);
    await s.setMaskUndone({ id: maskId }, true);
    // Back to the figure before the mask (the reply's reported usage describes that context again).
    expect(await figure()).toBe(unmasked);
    const ctx = s.live.derive(s.live.getSnapshot()).context;
    expect(ctx.masked.size).toBe(0);
    expect(ctx.items.filter((it) => it.kind === 'message').map((it) => it.kind === 'message' && it.message)).toEqual(
      counted.items.filter((it) => it.kind === 'message').map((it) => it.kind === 'message' && it.message),
    );
    await s.setMaskUndone({ id: maskId }, false);
    expect(Math.abs((await figure()) - masked)).toBeLessThanOrEqual(1);
  });

  it('off by default: the same over-the-limit session is summarised without a mask', async () => {
    const { ports, s, id, plan } = await agentSession('codexRollout');
    await withLimit(s, plan.tokensBefore, Math.floor((plan.tokensBefore + plan.tokensAfter) / 2), { ...SETTINGS, maskToolOutput: DEFAULT_COMPACTION_SETTINGS.maskToolOutput });
    await autoCompactIfNeeded(s);
    const stored = (await ports.store.loadSession(id))!;
    expect(stored.entries.some((e) => e.type === 'tool_mask')).toBe(false);
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
  });
});
