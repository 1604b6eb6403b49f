import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type FilePart } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts, until, type TestPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { APPLIED_ON_ITS_OWN } from './pendingSummary';

/**
 * Review before apply on the real claude-code-log transcript (its context
 * rests on Claude Code's reported usage, about 36k tokens). A 45k window with
 * a 4k reserve: automatic compaction is due above 41k, and a prepared summary
 * applies on its own above 43k (half the reserve left for the reply).
 */
const REVIEW: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000, reserveTokens: 4_000, reviewBeforeApply: true };
const WINDOW = 45_000;

async function claudeSession(ports: TestPorts = testPorts(), settings = REVIEW) {
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claudeLog' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const id = imported[0]!.id;
  const model = testModel('anthropic:claude-sonnet-4-5', WINDOW, 8_000);
  const s = await openSession(flows, id, { chatModel: model, summarizer: model, settings });
  const compactions = async () => (await ports.store.loadSession(id))!.entries.filter((e): e is CompactionEntry => e.type === 'compaction');
  return { ports, flows, s, id, compactions, before: (await compactions()).length, model };
}

/** A turn whose reply reports `input` prompt tokens: what moves the context figure past the limits. */
async function turn(c: Awaited<ReturnType<typeof claudeSession>>, text: string, input: number) {
  c.ports.transport.script({ text: `answer to ${text}`, usage: { input, output: 4 } });
  expect(await c.s.send(text)).toBe(true);
  await c.s.idle();
}

describe('review before apply', () => {
  it('a turn over the limit prepares a summary and appends nothing; the conversation goes on uncompacted', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    expect(await c.compactions()).toHaveLength(c.before);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    expect(draft).toBeDefined();
    expect(draft.preparedAt).toBe(c.s.live.getSnapshot().leafId);
    expect(c.ports.transport.summaryPrompts.length).toBeGreaterThan(0);
    expect(c.ports.notices.map((n) => n.message)).toContain('A summary is ready to apply: the conversation goes on uncompacted until you apply it.');

    // Still over the compaction limit but within the window: no second summary, nothing applied.
    const prompts = c.ports.transport.summaryPrompts.length;
    await turn(c, 'and one more thing', 42_500);
    expect(await c.compactions()).toHaveLength(c.before);
    expect(c.ports.transport.summaryPrompts).toHaveLength(prompts);
    expect((await c.ports.store.getPendingSummary(c.id))!.entry.id).toBe(draft.entry.id);
  });

  it('applied later, it keeps its own cut: what was said since joins the kept part, and the figures are counted now', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    await turn(c, 'what about the tests', 42_300);
    const id = await c.s.applyPendingSummary(draft.entry.id);
    expect(id).toBe(draft.entry.id);
    const added = (await c.compactions()).slice(c.before);
    expect(added).toHaveLength(1);
    const applied = added[0]!;
    expect(applied.firstKeptEntryId).toBe(draft.entry.firstKeptEntryId);
    expect(applied.summary).toBe(draft.entry.summary);
    const { tree, leafId } = c.s.live.getSnapshot();
    expect(leafId).toBe(applied.id);
    // Appended at the leaf the user is at, after the turn that came later.
    expect(tree.get(applied.parentId!)!.type).toBe('message');
    expect(applied.parentId).not.toBe(draft.preparedAt);
    const ctx = buildSessionContext(tree, leafId);
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', entryId: applied.id });
    const texts = JSON.stringify(ctx.items);
    expect(texts).toContain('what about the tests');
    expect(applied.tokensAfter!).toBeLessThan(applied.tokensBefore);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
    expect(c.ports.notices.at(-1)).toMatchObject({ level: 'success', message: expect.stringMatching(/^Compacted: /) });
  });

  it('Edit changes the draft, which then applies with the user’s text', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    expect(await c.s.editPendingSummary(draft.entry.id, '## Goal\nMy own words about the session.')).toBe(true);
    const edited = (await c.ports.store.getPendingSummary(c.id))!;
    expect(edited).toMatchObject({ edited: true, entry: { id: draft.entry.id, summary: '## Goal\nMy own words about the session.' } });
    expect(edited.entry.details.summaryTokens).toBeLessThan(draft.entry.details.summaryTokens!);
    await c.s.applyPendingSummary(draft.entry.id);
    expect((await c.compactions()).at(-1)!.summary).toBe('## Goal\nMy own words about the session.');
  });

  it('Discard throws it away, appends nothing; the next turn over the limit prepares a new one', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    expect(await c.s.discardPendingSummary(draft.entry.id)).toBe(true);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
    expect(await c.compactions()).toHaveLength(c.before);
    await turn(c, 'next', 42_100);
    const again = (await c.ports.store.getPendingSummary(c.id))!;
    expect(again.entry.id).not.toBe(draft.entry.id);
  });

  it('once the context no longer fits, the prepared summary is applied on its own, and the user is told', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    await turn(c, 'a long answer came back', 43_500);
    const added = (await c.compactions()).slice(c.before);
    expect(added.map((a) => a.id)).toEqual([draft.entry.id]);
    expect(c.ports.notices.filter((n) => n.message === APPLIED_ON_ITS_OWN)).toHaveLength(1);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
  });

  it('a message that would not fit is preceded by the prepared summary, and follows it', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    const big = Array.from({ length: 300 }, (_, i) => `line ${i}: the parser keeps a cursor into the buffer.`).join('\n');
    const file: FilePart = { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: big.length, text: big };
    c.ports.transport.script({ text: 'read it', usage: { input: 20_000, output: 3 } });
    expect(await c.s.send('see the file', [file])).toBe(true);
    await c.s.idle();
    const stored = (await c.ports.store.loadSession(c.id))!;
    const prompt = stored.entries.find((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === draft.entry.id);
    expect(prompt).toBeDefined();
    expect(c.ports.notices.map((n) => n.message)).toContain(APPLIED_ON_ITS_OWN);
  });

  it('it survives a reload, and of two tabs applying it at once exactly one appends it', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    // Two fresh tabs over the same storage: a reload, twice.
    const tab = async () => {
      const flows = new AppFlows(c.ports);
      return openSession(flows, c.id, { chatModel: c.model, summarizer: c.model, settings: REVIEW });
    };
    const [a, b] = [await tab(), await tab()];
    const seen: (string | undefined)[] = [];
    const stop = a.watchPendingSummary((p) => seen.push(p?.entry.id));
    await until(() => seen.includes(draft.entry.id));
    const results = await Promise.all([a.applyPendingSummary(draft.entry.id), b.applyPendingSummary(draft.entry.id)]);
    expect(results.filter((r) => r !== null)).toEqual([draft.entry.id]);
    expect((await c.compactions()).slice(c.before)).toHaveLength(1);
    await until(() => seen.at(-1) === undefined);
    stop();
  });

  it('a compaction by hand replaces the draft; a draft of another branch does not apply here', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    const draft = (await c.ports.store.getPendingSummary(c.id))!;
    // Another branch: back before the draft's path and answered differently.
    const path = c.s.live.getSnapshot().tree.pathTo(draft.preparedAt);
    const fork = path[path.length - 3]!;
    c.s.live.setLeaf(fork.id);
    expect(await c.s.applyPendingSummary(draft.entry.id)).toBeNull();
    expect(c.ports.notices.at(-1)!.message).toMatch(/prepared on another branch/);
    c.s.live.setLeaf(draft.preparedAt);
    expect(await c.s.compact({ reason: 'manual' })).not.toBeNull();
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
    expect(c.ports.notices.map((n) => n.message)).toContain('The summary that was waiting for review was dropped: this compaction replaces it.');
  });

  it('off by default: an automatic compaction applies at once, as before', async () => {
    expect(DEFAULT_COMPACTION_SETTINGS.reviewBeforeApply).toBe(false);
    const c = await claudeSession(testPorts(), { ...REVIEW, reviewBeforeApply: false });
    await turn(c, 'continue please', 42_000);
    expect(await c.compactions()).toHaveLength(c.before + 1);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
  });

  it('deleting the session deletes its draft', async () => {
    const c = await claudeSession();
    await turn(c, 'continue please', 42_000);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeDefined();
    await c.ports.store.deleteSession(c.id);
    expect(await c.ports.store.getPendingSummary(c.id)).toBeUndefined();
  });
});
