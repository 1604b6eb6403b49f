import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings } from '@/lib/session/types';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000, reserveTokens: 4_000 };

/** A real transcript imported into the store and opened, as a user would after importing it. */
async function realSession(fixture: FixtureName, opts: { model?: boolean; transport?: ReturnType<typeof scriptedTransport> } = {}) {
  const ports = testPorts(opts.transport ? { transport: opts.transport } : {});
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture(fixture), { fileName: fixture });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
  const s = await openSession(flows, imported[0]!.id, { chatModel: opts.model === false ? undefined : model, summarizer: opts.model === false ? undefined : model, settings: SETTINGS });
  return { ports, flows, s, id: imported[0]!.id };
}

const compactions = (entries: { type: string }[]) => entries.filter((e): e is CompactionEntry => e.type === 'compaction');

describe('compaction flow', () => {
  it('compacts a real Claude Code session (the claude-code-log transcript) with the model: the summary is appended at the leaf, smaller than before, and the context starts with it', async () => {
    const { ports, s, id } = await realSession('claudeLog');
    const before = compactions((await ports.store.loadSession(id))!.entries).length;
    const created = await s.compact({ reason: 'manual', instructions: 'Keep the file names' });
    expect(created).not.toBeNull();
    const stored = (await ports.store.loadSession(id))!;
    const added = compactions(stored.entries).slice(before);
    expect(added).toHaveLength(1);
    const c = added[0]!;
    expect(stored.row.leafId).toBe(c.id);
    expect(c.tokensAfter!).toBeLessThan(c.tokensBefore);
    expect(c.details.summarizer).toEqual({ kind: 'model', model: 'anthropic:claude-sonnet-4-5' });
    expect(c.details.customInstructions).toBe('Keep the file names');
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
    expect(ports.transport.summaryPrompts[0]).toContain('Keep the file names');
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', entryId: c.id });
    expect(ports.notices.at(-1)).toMatchObject({ level: 'success', message: expect.stringMatching(/^Compacted: [\d,]+ → [\d,]+ tokens$/) });
  });

  it('with no model, the extractive summarizer writes it and the user is told so', async () => {
    const { ports, s, id } = await realSession('sweTraj', { model: false });
    expect(await s.compact({ reason: 'manual' })).not.toBeNull();
    const c = compactions((await ports.store.loadSession(id))!.entries).at(-1)!;
    expect(c.details.summarizer).toEqual({ kind: 'extractive' });
    expect(ports.notices.map((n) => n.message)).toContain('No model is connected: the summary was written by the built-in extractive summarizer.');
  });

  it('a cancelled summary appends nothing and says so; a failing summarizer appends nothing and says why', async () => {
    const slow = scriptedTransport({ summaryDelayMs: 20 });
    const { ports, s, id } = await realSession('claudeLog', { transport: slow });
    const count = async () => (await ports.store.loadSession(id))!.entries.length;
    const n = await count();
    const running = s.compact({ reason: 'manual' });
    await new Promise((r) => setTimeout(r, 80));
    s.runs.get(id)!.abort.abort();
    expect(await running).toBeNull();
    expect(await count()).toBe(n);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Compaction cancelled — nothing changed.' });
    expect(s.runs.get(id)).toBeUndefined();

    const failing = scriptedTransport({
      summary: () => {
        throw new Error('provider unreachable');
      },
    });
    const f = await realSession('claudeLog', { transport: failing });
    const m = (await f.ports.store.loadSession(f.id))!.entries.length;
    expect(await f.s.compact({ reason: 'manual' })).toBeNull();
    expect((await f.ports.store.loadSession(f.id))!.entries.length).toBe(m);
    expect(f.ports.notices.at(-1)).toMatchObject({ level: 'error', message: expect.stringMatching(/^Compaction failed: .*provider unreachable.* Nothing changed\.$/) });
  });

  it('a model that answers with nothing twice: the labelled extractive fallback is appended instead, and the user is told why', async () => {
    const empty = scriptedTransport({ summary: () => '   ' });
    const f = await realSession('claudeLog', { transport: empty });
    const id = (await f.s.compact({ reason: 'manual' }))!;
    expect(empty.summaryPrompts.length).toBe(2);
    const stored = (await f.ports.store.loadSession(f.id))!.entries.find((e) => e.id === id)!;
    if (stored.type !== 'compaction') throw new Error('not a compaction');
    expect(stored.details.fallback).toMatchObject({ reason: 'empty', attempts: 2 });
    expect(stored.summary).toMatch(/^\*\*Extractive summary — fallback\.\*\* The summary of \S+ was not used: it came back empty/);
    expect(f.ports.notices.some((n) => n.level === 'warning' && /was not used \(it came back empty, 2 attempts\)/.test(n.message))).toBe(true);
  });

  it('before sending a message that would not fit, compacts first and hangs the message under the compaction', async () => {
    const { ports, s, id } = await realSession('claudeLog');
    // ~36k tokens in context; the limit is 30k − 4k reserve.
    const small = testModel('anthropic:claude-sonnet-4-5', 30_000, 8_000);
    s.setEnv({ ...s.env(), chatModel: small, summarizer: small });
    const oldLeaf = s.live.getSnapshot().leafId;
    await s.send('continue please');
    await s.idle();
    const stored = (await ports.store.loadSession(id))!;
    const c = compactions(stored.entries).at(-1)!;
    expect(c.parentId).toBe(oldLeaf);
    const prompt = stored.entries.find((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === c.id);
    expect(prompt).toBeDefined();
    expect(ports.transport.chatRequests.at(-1)!.context[0]).toMatchObject({ kind: 'compactionSummary', entryId: c.id });
  });

  it('after a turn whose reported usage passes window − reserve, compacts on its own; a turn that fits leaves the session alone', async () => {
    const { ports, s, id } = await realSession('claudeLog');
    // ~36k in context fits under 45k − 4k, so the message is sent as it is; the reply reports 42k of input.
    const model = testModel('anthropic:claude-sonnet-4-5', 45_000, 8_000);
    s.setEnv({ ...s.env(), chatModel: model, summarizer: model });
    ports.transport.script({ text: 'ok', usage: { input: 42_000, output: 2 } });
    const before = compactions((await ports.store.loadSession(id))!.entries).length;
    await s.send('continue please');
    await s.idle();
    const stored = (await ports.store.loadSession(id))!;
    expect(compactions(stored.entries).length).toBe(before + 1);
    const reply = stored.entries.find((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'text' && p.text === 'ok'))!;
    expect(compactions(stored.entries).at(-1)!.parentId).toBe(reply.id);
    expect(stored.row.leafId).toBe(compactions(stored.entries).at(-1)!.id);

    ports.transport.script({ text: 'fine', usage: { input: 9_000, output: 2 } });
    await s.send('and now?');
    await s.idle();
    expect(compactions((await ports.store.loadSession(id))!.entries).length).toBe(before + 1);
  });

  it('an overflow error compacts once with a smaller keep-recent and retries; a second overflow is reported, not looped on', async () => {
    const { ports, s, id } = await realSession('claudeLog');
    const overflow = { error: { kind: 'context_overflow', message: 'prompt is too long: 230000 tokens > 200000 maximum' } };
    ports.transport.script(overflow, { text: 'Now it fits.' });
    await s.send('one more thing');
    await s.idle();
    let stored = (await ports.store.loadSession(id))!;
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items[0]!.kind).toBe('compactionSummary');
    expect(ctx.items.at(-1)).toMatchObject({ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Now it fits.' }] } });
    expect(ports.transport.chatRequests.at(-1)!.context[0]!.kind).toBe('compactionSummary');

    ports.transport.script(overflow, overflow);
    const requests = ports.transport.chatRequests.length;
    await s.send('and again');
    await s.idle();
    expect(ports.transport.chatRequests.length).toBe(requests + 2);
    expect(ports.notices.at(-1)!.message).toMatch(/Compacting did not make it fit/);
    stored = (await ports.store.loadSession(id))!;
    expect(stored.entries.filter((e) => e.type === 'message' && e.message.role === 'user' && e.message.content.some((p) => p.type === 'text' && p.text === 'and again'))).toHaveLength(1);
  });
});
