import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '@/lib/session/types';
import { openSession, scriptedTransport, testModel, testPorts, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * What a compaction that appends nothing tells the user, by why it was asked
 * for: a compaction the user asked for, or one that was due (before a send,
 * after an overflow, over the limit), explains itself; an automatic one that
 * was not due stays quiet. And a compaction that would not shrink the context
 * is not appended.
 */

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2_000 };
const CHAT = testModel('compat:mock-large', 128_000);

async function conversation(turns: [string, string][], transport?: ScriptedTransportOptions) {
  const ports = testPorts(transport ? { transport: scriptedTransport(transport) } : {});
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: SETTINGS, title: row.title });
  for (const [q, a] of turns) {
    ports.transport.script({ text: a });
    await s.send(q);
    await s.idle();
  }
  ports.notices.length = 0;
  const stored = async () => (await ports.store.loadSession(row.id))!.entries;
  return { ports, s, id: row.id, stored, entries: (await stored()).length };
}

const para = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `${topic}: point ${i + 1} about lifetimes, borrows and moves in Rust.`).join(' ');

describe('a compaction with nothing to do', () => {
  it('asked for by hand it informs; due before a send or after an overflow it warns; automatic and not due it is silent', async () => {
    const { ports, s, stored, entries } = await conversation([['How do lifetimes work?', 'They name how long a borrow is valid.']]);
    const nothingYet = /^Nothing to compact yet: everything since the last compaction fits in the 2,000 tokens kept word for word\./;
    expect(await s.compact({ reason: 'manual' })).toBeNull();
    expect(await s.compact({ reason: 'auto' })).toBeNull();
    expect(await s.compact({ reason: 'before-send' })).toBeNull();
    expect(await s.compact({ reason: 'overflow' })).toBeNull();
    expect(ports.notices.map((n) => n.level)).toEqual(['info', 'warning', 'warning']);
    for (const n of ports.notices) expect(n.message).toMatch(nothingYet);
    expect(await stored()).toHaveLength(entries);
  });

  it('automatic, it warns exactly when the context is over the limit', async () => {
    const { ports, s } = await conversation([['How do lifetimes work?', 'They name how long a borrow is valid.']]);
    const pv = await s.previewCompaction();
    if (pv.ok) throw new Error('expected nothing to compact');
    const before = pv.tokensBefore;
    const window = 10_000;
    const atLimit = (limit: number) => s.setEnv({ ...s.env(), chatModel: testModel('compat:mock-small', window), settings: { ...SETTINGS, reserveTokens: window - limit } });

    atLimit(before);
    expect(await s.compact({ reason: 'auto' })).toBeNull();
    expect(ports.notices).toEqual([]);

    atLimit(before - 1);
    expect(await s.compact({ reason: 'auto' })).toBeNull();
    expect(ports.notices).toHaveLength(1);
    expect(ports.notices[0]!.level).toBe('warning');
    expect(ports.notices[0]!.message).toContain(`is over the compaction limit (${before - 1})`);
  });
});

describe('a compaction that would not make the context smaller', () => {
  it('a summary longer than the short history it replaces is not appended, and the figures say so', async () => {
    const long = `## Goal\n${para('Goal', 40)}\n\n## Progress\n- ${para('Progress', 40)}\n\n## Next Steps\n1. Continue.`;
    const { ports, s, stored } = await conversation(
      [
        ['Hi.', 'Hello.'],
        ['Short question?', para('A long answer', 60)],
      ],
      { summary: () => long },
    );
    const entries = (await stored()).length;
    const created = await s.compact({ reason: 'manual', keepRecentTokens: 50 });
    expect(created).toBeNull();
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
    expect(await stored()).toHaveLength(entries);
    const m = ports.notices.at(-1)!;
    expect(m.level).toBe('warning');
    expect(m.message).toMatch(/^Not compacted: it would not have made the context smaller \(([\d,]+) → ([\d,]+) tokens\)\. The summary would be longer than the history it replaces\./);
    const [, before, after] = /\(([\d,]+) → ([\d,]+) tokens\)/.exec(m.message)!.map((x) => Number(x.replace(/,/g, ''))) as [number, number, number];
    expect(after).toBeGreaterThanOrEqual(before);
  });
});
