import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type EntryId } from '@/lib/session/types';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { continuationSnapshot, findContinuationSource, type ContinuationDraft } from './continueSession';
import type { RunKind } from './runs';

/**
 * "Continue in new session" in the details its other tests leave open: the
 * run it shows, the summarizer's budget, what the extractive draft is written
 * as, the model in effect at the entry, the link of a source without an
 * original id, how the reviewed title and summary are read, a source deleted
 * before the new session starts, and finding the source again among sessions
 * of the same file. Real fixtures, and sessions written through the app.
 */

async function imported(fixture: FixtureName, env: { window?: number; reserve?: number } = {}) {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture(fixture), { fileName: FIXTURES[fixture] });
  const { imported: rows } = await ports.store.importSnapshots(sessions, { fileName: FIXTURES[fixture] });
  const model = env.window ? testModel('anthropic:claude-sonnet-4-5', env.window, 8_000) : undefined;
  const settings = { ...DEFAULT_COMPACTION_SETTINGS, ...(env.reserve !== undefined ? { reserveTokens: env.reserve } : {}) };
  const s = await openSession(flows, rows[0]!.id, { chatModel: model, summarizer: model, settings });
  return { ports, flows, s, rows };
}

describe('the draft', () => {
  it('runs as a "continuation" run with its own status line', async () => {
    const { flows, s, rows } = await imported('claudeLog');
    const seen: { kind: RunKind; status?: string }[] = [];
    const stop = flows.runs.subscribe(() => {
      const r = flows.runs.get(rows[0]!.id);
      if (r) seen.push({ kind: r.kind, ...(r.status ? { status: r.status } : {}) });
    });
    expect(await s.draftContinuation(rows[0]!.leafId!)).not.toBeNull();
    stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.kind === 'continuation' && r.status === 'Summarising the conversation up to here for a new session…')).toBe(true);
  });

  it('fits what it summarises into the summarizer’s window minus the reserve', async () => {
    // A reserve larger than the summary's own output budget: the window minus the reserve is the tighter bound.
    const window = 20_000;
    const reserve = 12_000;
    const { s, rows } = await imported('claudeLog', { window, reserve });
    await s.syncTokens();
    // The whole conversation would not fit.
    expect(s.sync.figure!.tokens).toBeGreaterThan(window + reserve);
    const draft = (await s.draftContinuation(rows[0]!.leafId!))!;
    expect(draft.tokensBefore).toBeGreaterThan(0);
    expect(draft.tokensBefore).toBeLessThanOrEqual(window - reserve);
  });

  it('without a model, the extractive draft is written as the summarised start of a conversation, not as an abandoned branch', async () => {
    const { s, rows } = await imported('claudeLog');
    const draft = (await s.draftContinuation(rows[0]!.leafId!))!;
    expect(draft.summary).toContain('## Current work (where the summarised part ends)');
    expect(draft.summary).not.toContain('## Where this branch stood');
    expect(draft.summary).not.toContain('abandoned branch');
    expect(draft.summary).not.toContain('on this branch');
  });

  it('at an entry with no message up to it, there is nothing to summarise: the user is told, no run is left', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const s = await openSession(flows, row.id, { settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    await s.changeModel('openai:gpt-4o');
    const change = s.live.getSnapshot().leafId!;
    expect(await s.draftContinuation(change)).toBeNull();
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'There is nothing to summarise up to that point.' });
    expect(flows.runs.get(row.id)).toBeUndefined();
  });

  it('links a source that has no original id by its file alone', async () => {
    const { s, rows } = await imported('openWebUiChat');
    expect(rows[0]!.source?.originalId).toBeUndefined();
    const draft = (await s.draftContinuation(rows[0]!.leafId!))!;
    expect(draft.link.origin).toStrictEqual({ hash: rows[0]!.source!.hash });
  });

  it('takes the model in effect at the entry, not the session’s latest; the new session keeps it', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const s = await openSession(flows, row.id, { settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    await s.changeModel('openai:gpt-4o');
    await s.send('What is a borrow?');
    await s.idle();
    const at = s.live.getSnapshot().leafId!;
    await s.changeModel('anthropic:claude-sonnet-4-5');
    expect((await ports.store.getSession(row.id))!.model).toBe('anthropic:claude-sonnet-4-5');
    const expected = buildSessionContext(s.live.getSnapshot().tree, at).model;
    expect(expected).toBe('openai:gpt-4o');
    const draft = (await s.draftContinuation(at))!;
    expect(draft.model).toBe(expected);
    const id = (await flows.startContinuation(draft, { summary: draft.summary, title: 'Borrows' }))!;
    expect((await ports.store.getSession(id))!.model).toBe(expected);
  });
});

describe('starting the new session', () => {
  async function drafted() {
    const { ports, flows, s, rows } = await imported('claudeLog');
    const draft = (await s.draftContinuation(rows[0]!.leafId!))!;
    return { ports, flows, row: rows[0]!, draft };
  }

  it('an edit that only adds surrounding whitespace is no edit; the title is read without it, and a blank one falls back to the proposed title', async () => {
    const { ports, flows, draft } = await drafted();
    const a = (await flows.startContinuation(draft, { summary: `\n  ${draft.summary}\n\n`, title: '  Timeline filters, part 2  ' }))!;
    const first = (await ports.store.loadSession(a))!;
    expect(first.row.title).toBe('Timeline filters, part 2');
    expect(first.entries.map((e) => e.type)).toEqual(['compaction']);
    const b = (await flows.startContinuation(draft, { summary: draft.summary, title: '   ' }))!;
    expect((await ports.store.getSession(b))!.title).toBe(draft.title);
  });

  it('a draft whose summary ends in a line break, reviewed unchanged, is stored without a revision', () => {
    const draft: ContinuationDraft = {
      sourceSessionId: 'source',
      sourceTitle: 'Source',
      entryId: 'entry',
      title: 'Source (continued)',
      summary: '## Goal\nFinish the filters.\n',
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } },
      tokensBefore: 1_000,
      link: { sessionId: 'source', entryId: 'entry', title: 'Source' },
    };
    const snap = continuationSnapshot(draft, { summary: '## Goal\nFinish the filters.', title: '' }, undefined, 1_700_000_000_000);
    expect(snap.entries.map((e) => e.type)).toEqual(['compaction']);
    expect(snap.meta.title).toBe('Source (continued)');
  });

  it('a source deleted while the draft was reviewed: the new session still starts, with the draft’s model and nothing of the source', async () => {
    const { ports, flows, row, draft } = await drafted();
    expect(draft.model).toBeDefined();
    expect(await flows.deleteSession(row)).toBe(true);
    const id = await flows.startContinuation(draft, { summary: draft.summary, title: 'Carried on' });
    expect(id).not.toBeNull();
    const created = (await ports.store.getSession(id!))!;
    expect(created.model).toBe(draft.model);
    expect(created.cwd).toBeUndefined();
    expect(created.systemPrompt).toBeUndefined();
    expect(created.compaction).toBeUndefined();
    expect(created.continuedFrom).toEqual(draft.link);
  });
});

describe('finding the source again', () => {
  it('a session made here is found by its id', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    expect(row.source).toBeUndefined();
    const found = await findContinuationSource(ports.store, { sessionId: row.id, entryId: 'x' as EntryId, title: row.title });
    expect(found?.id).toBe(row.id);
  });

  it('among the conversations of one export, by the original id next to the file, with sessions made here around', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const { sessions } = importText(readFixture('chatgptExport'), { fileName: FIXTURES.chatgptExport });
    const { imported: rows } = await ports.store.importSnapshots(sessions, { fileName: FIXTURES.chatgptExport });
    await flows.createSession();
    expect(rows.length).toBeGreaterThan(1);
    expect(new Set(rows.map((r) => r.source!.hash)).size).toBe(1);
    for (const r of rows) {
      // The id the link names is gone (the source came back from a backup under a new id), and no session remembers it.
      const link = { sessionId: 'gone', entryId: r.leafId!, title: r.title, origin: { hash: r.source!.hash!, originalId: r.source!.originalId! } };
      expect((await findContinuationSource(ports.store, link))?.id).toBe(r.id);
    }
    const stranger = { sessionId: 'gone', entryId: 'x' as EntryId, title: 'x', origin: { hash: rows[0]!.source!.hash!, originalId: 'not-in-this-file' } };
    expect(await findContinuationSource(ports.store, stranger)).toBeUndefined();
  });

  it('a source without an original id is found by its file alone', async () => {
    const { ports, rows } = await imported('openWebUiChat');
    const link = { sessionId: 'gone', entryId: rows[0]!.leafId!, title: rows[0]!.title, origin: { hash: rows[0]!.source!.hash! } };
    expect((await findContinuationSource(ports.store, link))?.id).toBe(rows[0]!.id);
  });
});
