import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings } from '@/lib/session/types';
import type { FixtureName } from '@/lib/testing/fixtures';
import { asyncTokens, openRawAgentSession, openSession, scriptedTransport, testModel, testPorts, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { autoCompactIfNeeded } from './compaction';
import type { RunKind } from './runs';

/**
 * What a compaction shows while it runs and when it starts on its own, in the
 * details the other compaction tests leave open: the run's status line for
 * each trigger (and the reply's own run during an overflow recovery), the
 * summary streamed into the run, an automatic compaction that is due but has
 * nothing new to summarise, an empty session, a token worker that fails.
 * Conversations are written through the app with scripted replies.
 */

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 300, reserveTokens: 1_000 };
const para = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `${topic}: point ${i + 1} about lifetimes, borrows and moves in Rust.`).join(' ');

const LABEL = {
  auto: 'Context is nearly full — compacting…',
  beforeSend: 'The new message would not fit — compacting first…',
  overflow: 'The provider said the context is too long — compacting, then retrying…',
  truncated: 'The last prompt filled the whole window — compacting…',
};

async function conversation(opts: { window?: number; settings?: CompactionSettings; transport?: ScriptedTransportOptions; turns?: number } = {}) {
  const ports = testPorts(opts.transport ? { transport: scriptedTransport(opts.transport) } : {});
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const model = testModel('compat:mock-large', opts.window ?? 128_000, 4_000);
  const s = await openSession(flows, row.id, { chatModel: model, summarizer: model, settings: opts.settings ?? SETTINGS, title: row.title });
  for (let i = 0; i < (opts.turns ?? 3); i++) {
    ports.transport.script({ text: para(`Answer ${i + 1}`, 12) });
    await s.send(`Question ${i + 1}: ${para('Ask', 3)}`);
    await s.idle();
  }
  ports.notices.length = 0;
  const entries = async () => (await ports.store.loadSession(row.id))!.entries;
  const compactions = async () => (await entries()).filter((e): e is CompactionEntry => e.type === 'compaction');
  /** Every (kind, status, text) the session's run showed, in order. */
  const runs: { kind: RunKind; status?: string; text: string }[] = [];
  flows.runs.subscribe(() => {
    const r = flows.runs.get(row.id);
    if (r) runs.push({ kind: r.kind, ...(r.status !== undefined ? { status: r.status } : {}), text: r.text });
  });
  const useWindow = (window: number, settings: CompactionSettings = s.env().settings) => {
    const m = testModel('compat:mock-large', window, 4_000);
    s.setEnv({ ...s.env(), chatModel: m, summarizer: m, settings });
  };
  return { ports, flows, s, id: row.id, entries, compactions, runs, useWindow };
}

describe('the run a compaction shows, by what started it', () => {
  it('after a turn over the limit: "Context is nearly full"', async () => {
    const c = await conversation();
    c.useWindow(8_000);
    // Over window − reserve, under the window: due, not a truncated prompt.
    c.ports.transport.script({ text: 'ok', usage: { input: 7_500, output: 2 } });
    await c.s.send('Go on.');
    await c.s.idle();
    expect(c.runs.filter((r) => r.kind === 'compaction').map((r) => r.status)).toContain(LABEL.auto);
    expect(c.runs.map((r) => r.status)).not.toContain(LABEL.truncated);
  });

  it('after a reply whose prompt filled the window: "The last prompt filled the whole window"', async () => {
    const c = await conversation();
    c.useWindow(8_000);
    const before = (await c.compactions()).length;
    c.ports.transport.script({ text: 'ok', usage: { input: 8_000, output: 2 } });
    await c.s.send('Go on.');
    await c.s.idle();
    expect(c.runs.filter((r) => r.kind === 'compaction').map((r) => r.status)).toContain(LABEL.truncated);
    expect(await c.compactions()).toHaveLength(before + 1);
  });

  it('before a message that would not fit: "The new message would not fit"', async () => {
    const c = await conversation();
    c.useWindow(4_000);
    await c.s.send(para('A long new question', 250));
    await c.s.idle();
    expect(c.runs.filter((r) => r.kind === 'compaction').map((r) => r.status)).toContain(LABEL.beforeSend);
  });

  it('on an overflow error: the reply’s own run says it compacts, no separate compaction run appears', async () => {
    const c = await conversation();
    c.ports.transport.script({ error: { kind: 'context_overflow', message: 'prompt is too long: 230000 tokens > 128000 maximum' } }, { text: 'Now it fits.' });
    await c.s.send('One more thing.');
    await c.s.idle();
    expect(c.runs.some((r) => r.kind === 'reply' && r.status === LABEL.overflow)).toBe(true);
    expect(c.runs.some((r) => r.kind !== 'reply')).toBe(false);
  });

  it('the summary streams into the run while it is written', async () => {
    const said = '## Goal\nKeep the conversation going.\n\n## Progress\n- Scripted summary of the earlier messages.\n\n## Next Steps\n1. Continue.';
    const c = await conversation({ transport: { summaryDelayMs: 30, summary: () => said } });
    expect(await c.s.compact({ reason: 'manual' })).not.toBeNull();
    const texts = c.runs.filter((r) => r.kind === 'compaction').map((r) => r.text);
    // What the model said so far, as it arrives (a split turn's prefix is a second request, streamed after the first).
    const all = said.repeat(c.ports.transport.summaryPrompts.length);
    expect(texts.some((t) => t.length > 0)).toBe(true);
    for (const t of texts) expect(all.startsWith(t), JSON.stringify(t)).toBe(true);
  });
});

describe('an automatic compaction that is due but has nothing new to summarise', () => {
  it('right after a compaction, over the limit, it warns that the latest entry is already a compaction', async () => {
    const c = await conversation();
    expect(await c.s.compact({ reason: 'manual' })).not.toBeNull();
    const pv = await c.s.previewCompaction();
    if (pv.ok) throw new Error('expected nothing to compact');
    expect(pv.reason).toBe('already-compacted');
    c.ports.notices.length = 0;
    // A limit just below the context now.
    const window = 10_000;
    c.useWindow(window, { ...SETTINGS, reserveTokens: window - (pv.tokensBefore - 1) });
    expect(await c.s.compact({ reason: 'auto' })).toBeNull();
    expect(c.ports.notices).toHaveLength(1);
    expect(c.ports.notices[0]!.level).toBe('warning');
    expect(c.ports.notices[0]!.message).toMatch(/^Nothing new to compact: the latest entry is already a compaction\./);
  });
});

describe('after a turn, in sessions with no figures', () => {
  it('an empty session with a model: nothing to do, nothing fails', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const model = testModel('compat:mock-large', 8_000);
    const s = await openSession(flows, row.id, { chatModel: model, summarizer: model, settings: SETTINGS });
    await expect(autoCompactIfNeeded(s)).resolves.toBeUndefined();
    expect(ports.notices).toEqual([]);
  });

  it('a token worker that cannot load the session leaves the turn alone: no figure, no compaction, no error', async () => {
    // The meter logs the failed count; the test only wants the turn's outcome.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const ports = testPorts();
    const tokens = asyncTokens();
    ports.tokens = new Proxy(tokens, {
      get: (t, k: string) => (k === 'loadPath' ? async () => Promise.reject(new Error('the token worker is gone')) : t[k as keyof typeof t]),
    });
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const model = testModel('compat:mock-large', 8_000);
    const s = await openSession(flows, row.id, { chatModel: model, summarizer: model, settings: SETTINGS });
    await expect(autoCompactIfNeeded(s)).resolves.toBeUndefined();
    expect(s.sync.figure).toBeNull();
    expect(ports.notices).toEqual([]);
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});

describe('a compaction refused before any summary is written', () => {
  /** A conversation whose last reply reported far fewer input tokens than its messages hold: the figure is small, the kept tail is not. */
  async function underReported(window?: number) {
    const c = await conversation();
    c.ports.transport.script({ text: para('A long last answer', 80), usage: { input: 20, output: 10 } });
    await c.s.send('And the last part?');
    await c.s.idle();
    await c.s.syncTokens();
    const figure = c.s.sync.figure!.tokens;
    if (window) c.useWindow(window, { ...SETTINGS, reserveTokens: 100 });
    c.ports.notices.length = 0;
    return { ...c, figure };
  }

  it('when the kept tail alone is no smaller than the context, no summarizer is asked and the figures say "at least"', async () => {
    const c = await underReported();
    const pv = await c.s.previewCompaction();
    if (!pv.ok) throw new Error('expected a compaction to be possible');
    const kept = Math.round(pv.keep.tokens + pv.pinned.tokens);
    expect(kept).toBeGreaterThanOrEqual(c.figure);
    expect(await c.s.compact({ reason: 'manual' })).toBeNull();
    expect(c.ports.transport.summaryPrompts).toEqual([]);
    expect(c.ports.notices).toHaveLength(1);
    expect(c.ports.notices[0]!.level).toBe('warning');
    const m = /^Not compacted: it would not have made the context smaller \(([\d,]+) → at least ([\d,]+) tokens\)\. The summary would be longer than the history it replaces\./.exec(c.ports.notices[0]!.message);
    expect(m).not.toBeNull();
    expect(Number(m![1]!.replace(/,/g, ''))).toBe(c.figure);
    expect(Number(m![2]!.replace(/,/g, ''))).toBe(kept);
  });

  it('a pinned message counts with the kept tail', async () => {
    const c = await underReported();
    const { tree, leafId } = c.s.live.getSnapshot();
    const firstPrompt = tree.pathTo(leafId).find((e) => e.type === 'message' && e.message.role === 'user')!;
    await c.s.setPinned(firstPrompt.id, true);
    c.ports.notices.length = 0;
    const pv = await c.s.previewCompaction();
    if (!pv.ok) throw new Error('expected a compaction to be possible');
    expect(pv.pinned.count).toBe(1);
    const kept = Math.round(pv.keep.tokens + pv.pinned.tokens);
    expect(await c.s.compact({ reason: 'manual' })).toBeNull();
    const m = /→ at least ([\d,]+) tokens\)/.exec(c.ports.notices.at(-1)!.message);
    expect(Number(m![1]!.replace(/,/g, ''))).toBe(kept);
  });

  it('when the kept tail is larger than the chat model’s whole window, it says so and names both sizes', async () => {
    const c = await underReported();
    const pv = await c.s.previewCompaction();
    if (!pv.ok) throw new Error('expected a compaction to be possible');
    const kept = Math.round(pv.keep.tokens + pv.pinned.tokens);
    // A chat model whose window the kept tail exceeds; the summarizer keeps its large window.
    const window = Math.floor(kept / 2);
    const chat = testModel('compat:mock-large', window, 100);
    c.s.setEnv({ ...c.s.env(), chatModel: chat, settings: { ...SETTINGS, reserveTokens: 100 } });
    expect(await c.s.compact({ reason: 'manual', force: true })).toBeNull();
    expect(c.ports.transport.summaryPrompts).toEqual([]);
    const message = c.ports.notices.at(-1)!.message;
    const m = /^Not compacted: it would not have made the context smaller \([\d,]+ → at least ([\d,]+) tokens\)\. The recent part kept word for word \(([\d,]+) tokens, usually one very long message\) is larger than the model's whole window \(([\d,]+)\)\./.exec(message);
    expect(m, message).not.toBeNull();
    const [atLeast, recent, shown] = m!.slice(1).map((x) => Number(x.replace(/,/g, ''))) as [number, number, number];
    expect(shown).toBe(window);
    expect(recent).toBe(atLeast);
    expect(recent).toBeGreaterThanOrEqual(window);
  });
});

describe('before a send, with masking of old tool output as the first stage', () => {
  const MASKING: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens: 4_000, maskToolOutput: true, maskProtectTokens: 8_000 };

  /** A real agent transcript, opened at its raw history (before its own first compaction, if any), with what masking would do there. */
  async function agentSession(fixture: FixtureName) {
    const { ports, flows, s, id } = await openRawAgentSession(fixture, MASKING);
    const plan = (await s.previewMasking())!;
    /** A chat model whose limit (window − reserve) is `limit`, its window above the context now. */
    const atLimit = async (limit: number, settings: CompactionSettings = MASKING) => {
      const window = plan.tokensBefore + 1_000;
      const m = testModel('anthropic:claude-sonnet-4-5', window, 64_000);
      s.setEnv({ ...s.env(), chatModel: m, summarizer: m, settings: { ...settings, reserveTokens: window - limit } });
      return s.previewMasking();
    };
    const stored = async () => (await ports.store.loadSession(id))!;
    const statuses: (string | undefined)[] = [];
    flows.runs.subscribe(() => {
      const r = flows.runs.get(id);
      if (r?.kind === 'compaction') statuses.push(r.status);
    });
    return { ports, s, plan, atLimit, stored, statuses };
  }

  it('masking that makes room: the message follows the mask; the mask is announced, and no compaction is tried', async () => {
    const { ports, s, plan, atLimit, stored } = await agentSession('codexRollout');
    await atLimit(Math.floor((plan.tokensBefore + plan.tokensAfter) / 2));
    ports.transport.script({ text: 'Carrying on.' });
    await s.send('Please carry on with the task.');
    await s.idle();
    const { entries } = await stored();
    const mask = entries.find((e) => e.type === 'tool_mask')!;
    expect(entries.some((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === mask.id)).toBe(true);
    expect(entries.some((e) => e.type === 'compaction' && e.parentId === mask.id)).toBe(false);
    expect(ports.notices.map((n) => n.level)).toEqual(['success']);
    expect(ports.notices[0]!.message).toMatch(/^Masked \d+ old tool outputs: /);
  });

  it('masking that is not enough: the compaction follows the mask, and the message the compaction', async () => {
    const { ports, s, plan, atLimit, stored, statuses } = await agentSession('claudeLog');
    // Below what masking reaches, not so low that no kept tail fits (as in masking.test.ts).
    const reach = (await atLimit(Math.floor(plan.tokensAfter * 0.5)))!;
    const planned = (await atLimit(Math.floor(reach.tokensAfter * 0.9)))!;
    expect(planned.tokensAfter).toBeGreaterThan(Math.floor(reach.tokensAfter * 0.9));
    ports.transport.script({ text: 'Carrying on.' });
    await s.send('Please carry on with the task.');
    await s.idle();
    const { entries } = await stored();
    const mask = entries.find((e) => e.type === 'tool_mask')!;
    const compaction = entries.find((e) => e.type === 'compaction' && e.parentId === mask.id);
    expect(compaction).toBeDefined();
    expect(entries.some((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === compaction!.id)).toBe(true);
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((st) => st === LABEL.beforeSend)).toBe(true);
  });

  it('with masking off, a send over the limit is compacted without any mask', async () => {
    const { ports, s, plan, atLimit, stored } = await agentSession('codexRollout');
    await atLimit(Math.floor((plan.tokensBefore + plan.tokensAfter) / 2), { ...MASKING, maskToolOutput: false });
    ports.transport.script({ text: 'Carrying on.' });
    await s.send('Please carry on with the task.');
    await s.idle();
    const { entries } = await stored();
    expect(entries.some((e) => e.type === 'tool_mask')).toBe(false);
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
  });

  it('with masking on and no tool output to mask, the path is compacted before the message, and the empty masking is not announced', async () => {
    const c = await conversation({ settings: { ...SETTINGS, maskToolOutput: true } });
    const before = (await c.compactions()).length;
    const oldLeaf = c.s.live.getSnapshot().leafId;
    c.useWindow(4_000);
    await c.s.send(para('A long new question', 250));
    await c.s.idle();
    const added = (await c.compactions()).slice(before);
    expect(added[0]?.parentId).toBe(oldLeaf);
    expect((await c.entries()).some((e) => e.type === 'tool_mask')).toBe(false);
    expect(c.ports.notices.map((n) => n.message).filter((m) => m.startsWith('No old tool output'))).toEqual([]);
  });

  it('after a turn over the limit, with masking on and nothing to mask, the summary runs and the empty masking is not announced', async () => {
    const c = await conversation({ settings: { ...SETTINGS, maskToolOutput: true } });
    c.useWindow(8_000);
    c.ports.transport.script({ text: 'ok', usage: { input: 7_500, output: 2 } });
    await c.s.send('Go on.');
    await c.s.idle();
    expect(c.runs.filter((r) => r.kind === 'compaction').map((r) => r.status)).toContain(LABEL.auto);
    expect(c.ports.notices.map((n) => n.message).filter((m) => m.startsWith('No old tool output'))).toEqual([]);
  });
});
