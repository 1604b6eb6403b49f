import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type FilePart } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { autoCompactIfNeeded } from './compaction';

/**
 * When a compaction starts on its own and where it hangs: the reported usage
 * of a reply counted with its cache reads and writes (a prompt as large as the
 * window was truncated by the server), auto-compaction switched off, no chat
 * model, an attachment's text counted before a send, and a compaction of a
 * path the tab is not showing. On the real claude-code-log transcript
 * (about 36k tokens in context).
 */

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000, reserveTokens: 4_000 };
const TRUNCATED = 'The provider reported a prompt as large as the whole window: part of the conversation was probably cut. Compacting.';

async function claudeSession(opts: { window?: number; settings?: CompactionSettings; summarizer?: boolean } = {}) {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claudeLog' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const id = imported[0]!.id;
  const model = testModel('anthropic:claude-sonnet-4-5', opts.window ?? 200_000, 8_000);
  const s = await openSession(flows, id, { chatModel: model, summarizer: opts.summarizer === false ? undefined : model, settings: opts.settings ?? SETTINGS });
  const compactions = async () => (await ports.store.loadSession(id))!.entries.filter((e): e is CompactionEntry => e.type === 'compaction');
  return { ports, s, id, compactions, before: (await compactions()).length };
}

describe('compaction after a turn', () => {
  it('a reply whose input, cache reads and cache writes together fill the window is taken as a truncated prompt: warned about and compacted', async () => {
    const { ports, s, compactions, before } = await claudeSession({ window: 45_000 });
    // Each part alone, or input with only one of the caches, is below the 45k window.
    ports.transport.script({ text: 'ok', usage: { input: 5_000, cacheRead: 25_000, cacheWrite: 15_000, output: 2 } });
    await s.send('continue please');
    await s.idle();
    expect(ports.notices.filter((n) => n.level === 'warning').map((n) => n.message)).toEqual([TRUNCATED]);
    expect(await compactions()).toHaveLength(before + 1);
  });

  it('a reply below the window by one token is no truncation', async () => {
    const { ports, s } = await claudeSession({ window: 200_000 });
    ports.transport.script({ text: 'ok', usage: { input: 100_000, cacheRead: 50_000, cacheWrite: 49_999, output: 2 } });
    await s.send('continue please');
    await s.idle();
    expect(ports.notices.map((n) => n.message)).not.toContain(TRUNCATED);
  });

  it('with auto-compaction off, a turn over the limit is left alone', async () => {
    const { ports, s, compactions, before } = await claudeSession({ window: 45_000, settings: { ...SETTINGS, enabled: false } });
    ports.transport.script({ text: 'ok', usage: { input: 42_000, output: 2 } });
    await s.send('continue please');
    await s.idle();
    expect(await compactions()).toHaveLength(before);
    expect(ports.transport.summaryPrompts).toEqual([]);
  });

  it('an automatic compaction by the extractive summarizer does not announce the missing model; one asked for by hand with a model does not either', async () => {
    const { ports, s, compactions, before } = await claudeSession({ window: 45_000, summarizer: false });
    ports.transport.script({ text: 'ok', usage: { input: 42_000, output: 2 } });
    await s.send('continue please');
    await s.idle();
    expect(await compactions()).toHaveLength(before + 1);
    expect((await compactions()).at(-1)!.details.summarizer).toEqual({ kind: 'extractive' });
    expect(ports.notices.map((n) => n.message).filter((m) => m.startsWith('No model is connected'))).toEqual([]);

    const withModel = await claudeSession();
    expect(await withModel.s.compact({ reason: 'manual' })).not.toBeNull();
    expect(withModel.ports.notices.map((n) => n.level)).toEqual(['success']);
  });

  it('without a chat model, or at a leaf that is no reply, it does nothing and does not fail', async () => {
    const { ports, s, compactions, before } = await claudeSession({ window: 30_000 });
    s.setEnv({ ...s.env(), chatModel: undefined });
    await expect(autoCompactIfNeeded(s)).resolves.toBeUndefined();
    expect(await compactions()).toHaveLength(before);

    const other = await claudeSession();
    expect(await other.s.compact({ reason: 'manual' })).not.toBeNull();
    other.ports.notices.length = 0;
    // The leaf is the compaction now: no reported usage to read, and the context is far below the limit.
    await expect(autoCompactIfNeeded(other.s)).resolves.toBeUndefined();
    expect(await other.compactions()).toHaveLength(other.before + 1);
    expect(other.ports.notices).toEqual([]);
    void ports;
  });
});

describe('compaction before a send', () => {
  it('counts an attached file’s text: a short prompt with a large text file that would not fit compacts first', async () => {
    const { ports, s, compactions, before } = await claudeSession({ window: 60_000 });
    const big = Array.from({ length: 2_000 }, (_, i) => `line ${i}: the parser keeps a cursor into the buffer and advances it.`).join('\n');
    const file: FilePart = { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: big.length, text: big };
    expect(await s.send('see the file', [file])).toBe(true);
    await s.idle();
    const added = (await compactions()).slice(before);
    expect(added).toHaveLength(1);
    const prompt = (await ports.store.loadSession(s.sessionId))!.entries.find((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === added[0]!.id);
    expect(prompt).toBeDefined();
  });

  it('the same short prompt without the file is sent as it is', async () => {
    const { s, compactions, before } = await claudeSession({ window: 60_000 });
    expect(await s.send('see the file')).toBe(true);
    await s.idle();
    expect(await compactions()).toHaveLength(before);
  });
});

describe('compacting a path the tab is not showing', () => {
  it('summarises the path up to the given entry and hangs the compaction there, while the run shows at the tab’s leaf', async () => {
    const { ports, s, id, compactions, before } = await claudeSession();
    const { tree, leafId } = s.live.getSnapshot();
    const path = tree.pathTo(leafId);
    const at = path[path.length - 6]!.id;
    const running = s.compact({ reason: 'manual', leafId: at });
    expect(s.runs.get(id)).toMatchObject({ kind: 'compaction', parentId: at });
    const created = await running;
    expect(created).not.toBeNull();
    const added = (await compactions()).slice(before);
    expect(added.map((c) => c.parentId)).toEqual([at]);

    const here = s.compact({ reason: 'manual' });
    expect(s.runs.get(id)).toMatchObject({ kind: 'compaction', parentId: s.live.getSnapshot().leafId });
    await here;
    void ports;
  });
});
