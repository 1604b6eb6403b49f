import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { importText } from '../import';
import { skippedText } from '../types';
import { readOpenWebUi } from './openWebUi';

const text = readFixture('openWebUiChat');
const chat = JSON.parse(text) as Raw & { history: { currentId: string; messages: Record<string, Raw> } };
const msgs = Object.values(chat.history.messages);

describe('Open WebUI chat fixture (a bare chat object)', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => readOpenWebUi(text).sessions[0]!;

  it('keeps the history tree with its ids, opened at currentId', () => {
    const s = read();
    expectWellFormed(s);
    expect(s.entries.map((e) => e.id)).toEqual(msgs.map((m) => m.id));
    expect(s.entries.map((e) => e.parentId)).toEqual(msgs.map((m) => m.parentId));
    expect(s.meta.leafId).toBe(chat.history.currentId);
    expect(buildSessionContext(s.entries, s.meta.leafId).items.map((i) => i.kind === 'message' && i.message.role)).toEqual(['user', 'assistant']);
  });

  it('takes text as written (SQL-doubled apostrophes included), model, usage, times in seconds, title', () => {
    const s = read();
    const [user, reply] = msgs as [Raw, Raw];
    expect(s.entries[0]).toMatchObject({ message: { content: [{ type: 'text', text: user.content }] }, timestamp: (user.timestamp as number) * 1000 });
    const usage = reply.usage as Record<string, number>;
    expect(s.entries[1]).toMatchObject({ message: { role: 'assistant', model: reply.model, usage: { input: usage.prompt_tokens, output: usage.completion_tokens }, stopReason: 'stop' } });
    expect((user.content as string).includes("can''t")).toBe(true);
    expect(s.meta).toMatchObject({ title: chat.title, model: reply.model, createdAt: chat.timestamp });
  });
});

describe('Open WebUI export (an array of chats)', () => {
  const item = (id: string, c: Raw) => ({ id, user_id: 'u', title: c.title, chat: c, created_at: 1744577557, updated_at: 1744577600 });

  it('reads every chat of the export with its branches, skips and counts empty chats', () => {
    const branched = structuredClone(chat);
    const [user, reply] = msgs as [Raw, Raw];
    // A regenerated reply: a second child of the prompt, and the one the user was looking at.
    branched.history.messages.regen = { ...reply, id: 'regen', content: 'A shorter answer.', timestamp: 1744577600 };
    (branched.history.messages[user.id as string]!.childrenIds as string[]).push('regen');
    branched.history.currentId = 'regen';
    const empty = { title: 'New Chat', history: { currentId: null, messages: {} }, messages: [] };
    const exported = JSON.stringify([item('c1', branched), item('c2', empty), item('c3', chat)]);
    const r = importText(exported, { fileName: 'chat-export-1744577.json' });
    expect(r.format).toBe('open-webui');
    expect(r.sessions).toHaveLength(2);
    expect(skippedText(r.skipped)).toBe('1 empty chat skipped');
    const [a, b] = r.sessions as [(typeof r.sessions)[0], (typeof r.sessions)[0]];
    expect(a.meta).toMatchObject({ leafId: 'regen', createdAt: 1744577557000, updatedAt: 1744577600000, source: { originalId: 'c1' } });
    expect(new SessionTree(a.entries).children(user.id as string).map((e) => e.id)).toEqual([reply.id, 'regen']);
    expect(b.meta.source!.originalId).toBe('c3');
  });

  it('marks a failed reply and one that never finished', () => {
    const c = structuredClone(chat);
    const reply = c.history.messages[msgs[1]!.id as string]!;
    reply.error = { content: 'Model not found' };
    const s1 = readOpenWebUi(JSON.stringify(c)).sessions[0]!;
    expect(s1.entries[1]).toMatchObject({ message: { stopReason: 'error', errorMessage: 'Model not found' } });
    delete reply.error;
    reply.done = false;
    expect(readOpenWebUi(JSON.stringify(c)).sessions[0]!.entries[1]).toMatchObject({ message: { stopReason: 'interrupted' } });
  });
});
