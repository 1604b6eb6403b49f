import { describe, expect, it } from 'vitest';
import { EXTRACTIVE_LABEL } from '@/lib/compaction/extractive';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { messageText } from '@/lib/session/messages';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { openSession, scriptedTransport, testModel, testPorts, type TestPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

const model = testModel('anthropic:claude-sonnet-4-5', 200_000, 64_000);

async function realSession(fixture: FixtureName, opts: { model?: boolean; ports?: TestPorts } = {}) {
  const ports = opts.ports ?? testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture(fixture), { fileName: fixture });
  const { imported } = await ports.store.importSnapshots([sessions[0]!], { fileName: fixture });
  const env = { chatModel: opts.model ? model : undefined, summarizer: opts.model ? model : undefined, settings: DEFAULT_COMPACTION_SETTINGS };
  const s = await openSession(flows, imported[0]!.id, env);
  return { ports, flows, s, row: imported[0]!, env };
}

/** The n-th user prompt on the session's active path that has text. */
function prompt(entries: SessionEntry[], leafId: string | null, n: number): SessionEntry {
  return buildSessionContext(entries, leafId).path.filter((e) => e.type === 'message' && e.message.role === 'user' && messageText(e.message).trim() !== '')[n]!;
}

describe('continue in a new session', () => {
  it('without a model: an extractive summary of the path up to the message; after review, a new session starts from the edited summary, linked to the source', async () => {
    const { ports, flows, s, row, env } = await realSession('claudeLog');
    const loaded = (await ports.store.loadSession(row.id))!;
    const at = prompt(loaded.entries, row.leafId, 2);
    const first = prompt(loaded.entries, row.leafId, 0);
    const draft = (await s.draftContinuation(at.id))!;
    expect(draft.summary.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    expect(draft.summary).toContain(messageText((first as { message: Parameters<typeof messageText>[0] }).message).slice(0, 60));
    expect(draft.details.summarizer).toEqual({ kind: 'extractive' });
    expect(draft.link).toEqual({ sessionId: row.id, entryId: at.id, title: row.title, origin: { hash: row.source!.hash, originalId: row.source!.originalId } });
    // Nothing is written until the user confirms.
    expect(await ports.store.listSessions()).toHaveLength(1);

    const edited = `${draft.summary}\n\nAlso: keep the vis.js groups.`;
    const id = (await flows.startContinuation(draft, { summary: edited, title: 'Timeline filters, part 2' }))!;
    const created = (await ports.store.loadSession(id))!;
    expect(created.row).toMatchObject({ title: 'Timeline filters, part 2', continuedFrom: draft.link, model: row.model, cwd: row.cwd });
    expect(created.entries.map((e) => e.type)).toEqual(['compaction', 'summary_revision']);
    expect(created.entries[0]).toMatchObject({ parentId: null, summary: draft.summary, firstKeptEntryId: created.entries[0]!.id });
    expect(created.entries[1]).toMatchObject({ targetId: created.entries[0]!.id, action: 'edit', summary: edited });
    expect(created.row.leafId).toBe(created.entries[1]!.id);

    // The first message of the new session reaches the model after the edited summary, and nothing of the source.
    const next = await openSession(flows, id, env);
    ports.transport.script({ text: 'Sure.' });
    const chatModel = testModel('openai:gpt-4o', 128_000);
    next.setEnv({ ...env, chatModel });
    await next.send('Where were we?');
    await next.idle();
    const sent = ports.transport.chatRequests.at(-1)!;
    expect(sent.context).toMatchObject([
      { kind: 'compactionSummary', summary: edited },
      { kind: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Where were we?' }] } },
    ]);
    expect(sent.context).toHaveLength(2);
  });

  it('with a model: the summarizer is asked to write for a new session, not about an abandoned branch; an unchanged draft is stored without a revision', async () => {
    const transport = scriptedTransport({ summary: () => '## Goal\nFinish the timeline filters.' });
    const { ports, flows, s, row } = await realSession('claudeLog', { model: true, ports: testPorts({ transport }) });
    const draft = (await s.draftContinuation(row.leafId!))!;
    expect(draft.summary).toContain('## Goal\nFinish the timeline filters.');
    expect(transport.summaryPrompts[0]).toContain('starting a new session');
    expect(transport.summaryPrompts[0]).not.toContain('has just left to go back');
    expect(draft.details.summarizer).toEqual({ kind: 'model', model: model.id });
    const id = (await flows.startContinuation(draft, { summary: draft.summary, title: '' }))!;
    const created = (await ports.store.loadSession(id))!;
    expect(created.row.title).toBe(`${row.title} (continued)`);
    expect(created.entries.map((e) => e.type)).toEqual(['compaction']);
  });

  it('command notes of the source are never in the summary; an empty summary or a cancelled draft writes nothing', async () => {
    const slow = scriptedTransport({ summaryDelayMs: 20, summary: () => 'x'.repeat(2000) });
    const { ports, flows, s, row } = await realSession('claudeLog', { model: true, ports: testPorts({ transport: slow }) });
    const running = s.draftContinuation(row.leafId!);
    await new Promise((r) => setTimeout(r, 60));
    s.runs.get(row.id)!.abort.abort();
    expect(await running).toBeNull();
    expect(ports.notices.at(-1)).toMatchObject({ level: 'info', message: 'Summary for the new session cancelled — nothing changed.' });
    const extractive = await realSession('claudeLog');
    const draft = (await extractive.s.draftContinuation(extractive.row.leafId!))!;
    expect(draft.summary).not.toContain('/doctor');
    expect(draft.summary).not.toContain('Caveat:');
    expect(await flows.startContinuation(draft, { summary: '   ', title: 'x' })).toBeNull();
    expect(ports.notices.at(-1)!.message).toMatch(/^The summary is empty/);
    expect(await ports.store.listSessions()).toHaveLength(1);
  });

  it('the link survives a backup and restore: the source is found again, for an imported source and for one made here', async () => {
    const { ports, flows, s, row } = await realSession('chatgptTree');
    const made = (await flows.createSession())!;
    const mine = await openSession(flows, made.id, { settings: DEFAULT_COMPACTION_SETTINGS });
    await mine.send('A plan for the garden');
    await mine.idle();
    const fromImported = (await s.draftContinuation(row.leafId!))!;
    const mineLeaf = (await ports.store.getSession(made.id))!.leafId!;
    const fromMine = (await mine.draftContinuation(mineLeaf))!;
    const a = (await flows.startContinuation(fromImported, { summary: fromImported.summary, title: 'A' }))!;
    const b = (await flows.startContinuation(fromMine, { summary: fromMine.summary, title: 'B' }))!;
    expect((await flows.findContinuationSource((await ports.store.getSession(a))!.continuedFrom!))!.id).toBe(row.id);

    const zip = await ports.formats.exportAll(await ports.store.exportAllSnapshots());
    const restored = testPorts();
    const again = new AppFlows(restored);
    await again.importFiles([new File([zip as BlobPart], 'backup.zip')], () => {});
    const rows = await restored.store.listSessions();
    expect(rows).toHaveLength(4);
    for (const [title, sourceTitle] of [['A', row.title], ['B', made.title]] as const) {
      const continued = rows.find((r) => r.title === title)!;
      const link = continued.continuedFrom!;
      const source = (await again.findContinuationSource(link))!;
      expect(source.title).toBe(sourceTitle);
      expect(source.id).not.toBe(link.sessionId);
      const entries = (await restored.store.loadSession(source.id))!.entries;
      expect(entries.some((e) => e.id === link.entryId)).toBe(true);
    }
    expect(b).not.toBe(a);
  });
});
