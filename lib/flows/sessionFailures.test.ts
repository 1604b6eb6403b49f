import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts, until } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * The session actions when storage refuses the write (quota full, the
 * database closed by an upgrade in another tab): each one tells the user why
 * in a sentence, resolves with a failure the UI can act on, and leaves the
 * stored session and this tab's live tree exactly as they were.
 */

const CHAT = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);
const quotaFull = () => Object.assign(new Error('The storage quota is exhausted.'), { name: 'QuotaExceededError' });

/** The real Claude Code session, imported and compacted once, open in one tab. */
async function compactedClaudeSession() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claude.jsonl' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const id = imported[0]!.id;
  const s = await openSession(flows, id, { chatModel: CHAT, summarizer: CHAT, settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000 } });
  const compactionId = (await s.compact({ reason: 'manual' }))!;
  const target = s.live.getSnapshot().tree.get(compactionId) as CompactionEntry;
  const before = (await ports.store.loadSession(id))!;
  const liveBefore = s.live.getSnapshot();
  /** Nothing stored, nothing moved. */
  const unchanged = async () => {
    const now = (await ports.store.loadSession(id))!;
    expect(now.entries).toHaveLength(before.entries.length);
    expect(now.row.leafId).toBe(before.row.leafId);
    expect(s.live.getSnapshot().tree.size).toBe(liveBefore.tree.size);
    expect(s.live.getSnapshot().leafId).toBe(liveBefore.leafId);
  };
  ports.notices.length = 0;
  return { ports, flows, s, id, target, unchanged };
}

describe('session actions when storage refuses the write', () => {
  it('labels, pins, masks, summary undo and edit, and a model change each say why and store nothing', async () => {
    const { ports, s, target, unchanged } = await compactedClaudeSession();
    const leaf = s.live.getSnapshot().tree.get(s.live.getSnapshot().leafId!)!;
    const prompt = s.live.getSnapshot().tree.pathTo(leaf.id).find((e) => e.type === 'message' && e.message.role === 'user')!;
    ports.store.appendEntries = async () => Promise.reject(quotaFull());

    await s.setLabel(prompt.id, 'the first question');
    expect(await s.setPinned(prompt.id, true)).toBe(false);
    await s.setMaskUndone({ id: target.id }, true);
    await s.setSummaryUndone(target, true);
    await s.editSummary(target, '## Goal\nEdited by hand.');
    await s.changeModel('openai:gpt-5');

    expect(ports.notices).toEqual(Array.from({ length: 6 }, () => ({ level: 'error', message: 'The storage quota is exhausted.' })));
    await unchanged();
  });

  it('a regeneration that cannot be stored says so and resolves false', async () => {
    const { ports, s, target, unchanged } = await compactedClaudeSession();
    ports.store.appendEntries = async () => Promise.reject(quotaFull());
    expect(await s.regenerateSummary(target)).toBe(false);
    expect(ports.notices.filter((n) => n.level === 'success')).toEqual([]);
    expect(ports.notices.filter((n) => n.level === 'error').map((n) => n.message).join(' ')).toContain('The storage quota is exhausted.');
    await unchanged();
  });

  it('a fork that cannot be stored, or of a session deleted meanwhile, resolves null with the reason', async () => {
    const { ports, s, unchanged } = await compactedClaudeSession();
    const sessionsBefore = (await ports.store.listSessions()).length;
    const exportSnapshot = ports.store.exportSnapshot.bind(ports.store);
    ports.store.exportSnapshot = async () => null;
    expect(await s.forkHere()).toBeNull();
    ports.store.exportSnapshot = exportSnapshot;
    ports.store.importSnapshots = async () => Promise.reject(quotaFull());
    expect(await s.forkHere()).toBeNull();
    expect(ports.notices).toEqual([
      { level: 'error', message: 'Fork failed: The session no longer exists.' },
      { level: 'error', message: 'Fork failed: The storage quota is exhausted.' },
    ]);
    expect(await ports.store.listSessions()).toHaveLength(sessionsBefore);
    await unchanged();
  });

  it('masking that cannot be stored says “Nothing changed”', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const { sessions } = importText(readFixture('codexRollout'), { fileName: 'rollout.jsonl' });
    const { imported } = await ports.store.importSnapshots([sessions[0]!]);
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, maskToolOutput: true, maskProtectTokens: 8_000 };
    const s = await openSession(flows, imported[0]!.id, { chatModel: CHAT, summarizer: CHAT, settings });
    const plan = await s.previewMasking();
    expect(plan?.maskedIds.length).toBeGreaterThan(0);
    const entries = (await ports.store.loadSession(imported[0]!.id))!.entries.length;
    ports.store.appendEntries = async () => Promise.reject(quotaFull());
    expect(await s.maskToolOutput()).toBeNull();
    expect(ports.notices).toEqual([{ level: 'error', message: 'Masking failed: The storage quota is exhausted. Nothing changed.' }]);
    expect((await ports.store.loadSession(imported[0]!.id))!.entries).toHaveLength(entries);
  });
});

describe('pinning while a reply streams', () => {
  it('is refused with the reason, and nothing is stored under the moving leaf', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    ports.transport.script({ text: 'first answer' }, { text: 'A slow answer, streamed in small pieces.', chunk: 4, delayMs: 15 });
    await s.send('first question');
    await s.idle();
    const [prompt] = s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId);
    await s.send('second question');
    await until(() => s.runs.get(row.id) !== undefined);
    expect(await s.setPinned(prompt!.id, true)).toBe(false);
    await s.idle();
    expect(ports.notices).toEqual([{ level: 'info', message: 'Wait until the reply or summary in progress has finished, then pin the message.' }]);
    const stored = (await ports.store.loadSession(row.id))!.entries;
    expect(stored.filter((e) => e.type === 'pin')).toEqual([]);
    expect(await s.setPinned(prompt!.id, true)).toBe(true);
  });
});
