import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readOpenWebUi } from './openWebUi';

/**
 * Properties of the Open WebUI reader that the mutation run found unstated (issue 18): the reply's
 * text, the leaf at an older currentId or one naming no message, history values that are not
 * objects, titles (the item's own, none at all, the first prompt past notes and replies, both
 * defaults), the model of the path over the chat's list, missing params and models, the item's
 * update time in seconds, undated chats, empty exports and chats, and the format of every refusal.
 * Each test edits a copy of the real chat (a bare chat object) or wraps it as an export item.
 */
type Chat = Raw & { title?: string; models?: string[]; params?: Raw; timestamp?: number; history: { currentId: string; messages: Record<string, Raw> } };
const text = readFixture('openWebUiChat');
const real = JSON.parse(text) as Chat;
const [userId, replyId] = Object.keys(real.history.messages) as [string, string];
const reply = real.history.messages[replyId]!;
const copy = () => structuredClone(real);
const read = (c: unknown, opts: Parameters<typeof readOpenWebUi>[1] = {}) => readOpenWebUi(JSON.stringify(c), opts);
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id);
const exportItem = (c: Chat, fields: Raw = {}) => ({ id: 'c1', user_id: 'u', title: c.title, chat: c, created_at: real.history.messages[userId]!.timestamp, updated_at: reply.timestamp, ...fields });

describe('Open WebUI reader: messages and the leaf', () => {
  it('the reply keeps its text; the real chat reads without warnings', () => {
    const r = readOpenWebUi(text);
    const e = entry(r.sessions[0]!.entries, replyId);
    expect(e?.type === 'message' && e.message.content).toEqual([{ type: 'text', text: reply.content }]);
    expect(r.warnings).toEqual([]);
  });

  it('opens at currentId when it names an older leaf, and at the newest leaf when it names no message', () => {
    const c = copy();
    c.history.messages.regen = { ...reply, id: 'regen', content: 'Shorter.', timestamp: (reply.timestamp as number) + 60 };
    (c.history.messages[userId]!.childrenIds as string[]).push('regen');
    expect(read(c).sessions[0]!.meta.leafId).toBe(replyId);
    c.history.currentId = 'deleted-message';
    expect(read(c).sessions[0]!.meta.leafId).toBe('regen');
  });

  it('skips history values that are not objects', () => {
    const c = copy();
    (c.history.messages as Record<string, unknown>).broken = null;
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.map((e) => e.id)).toEqual([userId, replyId]);
  });

  it('refuses parents that name each other, naming the format', () => {
    const c = copy();
    c.history.messages[userId]!.parentId = replyId;
    const err = thrown(() => read(c));
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).format).toBe('open-webui');
  });
});

describe('Open WebUI reader: titles', () => {
  it('an export item’s title comes before its chat’s', () => {
    const c = copy();
    expect(read([exportItem(c, { title: 'Renamed in the list' })]).sessions[0]!.meta.title).toBe('Renamed in the list');
  });

  it('a chat without any title is titled by its first prompt, past notes and replies', () => {
    const c = copy();
    delete c.title;
    const u = c.history.messages[userId]!;
    c.history.messages.note = { id: 'note', parentId: null, childrenIds: ['greet'], role: 'system', content: 'Be kind.', timestamp: (u.timestamp as number) - 2 };
    c.history.messages.greet = { id: 'greet', parentId: 'note', childrenIds: [userId], role: 'assistant', content: 'Hello!', timestamp: (u.timestamp as number) - 1 };
    u.parentId = 'greet';
    const s = read(c).sessions[0]!;
    expect(s.entries[0]!.id).toBe('note');
    expect(s.meta.title).toBe(titleOf(u.content as string));
  });

  it('without a prompt a "New Chat" keeps its name and an untitled chat is an Open WebUI chat', () => {
    const c = copy();
    delete c.history.messages[userId];
    c.history.messages[replyId]!.parentId = null;
    c.title = 'New Chat';
    expect(read(c).sessions[0]!.meta.title).toBe('New Chat');
    delete c.title;
    expect(read(c).sessions[0]!.meta.title).toBe('Open WebUI chat');
  });
});

/** The first line of a prompt as a title (one line, at most 80 characters), worked out apart from the reader. */
function titleOf(t: string): string {
  const flat = t.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

describe('Open WebUI reader: session fields', () => {
  it('the model is the reply’s on the path, before the chat’s model list; none when neither names one', () => {
    const c = copy();
    c.models = ['some/other-model'];
    expect(read(c).sessions[0]!.meta.model).toBe(reply.model);
    delete c.models;
    delete c.history.messages[replyId]!.model;
    expect('model' in read(c).sessions[0]!.meta).toBe(false);
  });

  it('a chat without params has no system prompt', () => {
    const c = copy();
    delete c.params;
    expect('systemPrompt' in read(c).sessions[0]!.meta).toBe(false);
  });

  it('an export item’s update time, in seconds, counts when it is later than the messages', () => {
    const later = (reply.timestamp as number) + 3600;
    expect(read([exportItem(copy(), { updated_at: later })]).sessions[0]!.meta.updatedAt).toBe(later * 1000);
  });

  it('a chat without any time is undated; one with timed messages but no chat time is not', () => {
    const bare = copy();
    delete bare.timestamp;
    for (const m of Object.values(bare.history.messages)) delete m.timestamp;
    expect(read(bare, { importedAt: 1_800_000_000_000 }).sessions[0]!.meta).toMatchObject({ undated: true, createdAt: 1_800_000_000_000 });
    const timed = copy();
    delete timed.timestamp;
    expect('undated' in read(timed).sessions[0]!.meta).toBe(false);
    expect('undated' in readOpenWebUi(text).sessions[0]!.meta).toBe(false);
  });

  it('an export without chats says so; empty chats are counted as skipped', () => {
    expect(readOpenWebUi('[]').warnings).toEqual(['The export holds no chats.']);
    const empty = { title: 'New Chat', history: { currentId: null, messages: {} } };
    expect(read([empty, empty]).skipped).toEqual([{ count: 2, one: 'empty chat', many: 'empty chats' }]);
  });
});

describe('Open WebUI reader: refusals', () => {
  it('names the format when the text is not JSON, not a chat, or a chat has no history', () => {
    for (const bad of ['[{"chat": ', '"a string"', JSON.stringify([real, 5]), JSON.stringify([{ title: 'Plans', chat: {} }])]) {
      const err = thrown(() => readOpenWebUi(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('open-webui');
    }
  });
});
