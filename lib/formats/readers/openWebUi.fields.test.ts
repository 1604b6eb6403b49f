import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readOpenWebUi } from './openWebUi';

/**
 * Fields of Open WebUI chats that the real fixture (one prompt, one reply) does not have: attached
 * files, Ollama usage, flat message lists, system prompts, roles besides user and assistant. Each
 * test edits a copy of the real chat.
 */
type Chat = Raw & { title: string; models: string[]; params: Raw; history: { currentId: string; messages: Record<string, Raw> } };
const real = JSON.parse(readFixture('openWebUiChat')) as Chat;
const [userId, replyId] = Object.keys(real.history.messages) as [string, string];
const copy = () => structuredClone(real);
const read = (c: unknown) => readOpenWebUi(JSON.stringify(c));
const byId = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;

describe('Open WebUI chat fields', () => {
  it('turns attached files into image and file parts after the prompt text', () => {
    const c = copy();
    c.history.messages[userId]!.files = [
      { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ' },
      { type: 'image', url: 'https://cdn.example/cat.png' },
      { type: 'image' },
      { url: 'data:image/gif;base64,R0lGOD' },
      { type: 'file', name: 'notes.pdf', size: 2048, file: { meta: { content_type: 'application/pdf' } } },
      { type: 'file', file: { filename: 'data.csv' } },
      { type: 'file' },
      'not a file',
    ];
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    const content = (byId(s.entries, userId) as Extract<SessionEntry, { type: 'message' }>).message.content;
    expect(content[0]).toEqual({ type: 'text', text: real.history.messages[userId]!.content });
    expect(content.slice(1)).toEqual([
      { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ', byteLength: 6 },
      { type: 'image', mimeType: 'image/*', url: 'https://cdn.example/cat.png' },
      { type: 'image', mimeType: 'image/*' },
      { type: 'image', mimeType: 'image/gif', data: 'R0lGOD', byteLength: 4 },
      { type: 'file', name: 'notes.pdf', mimeType: 'application/pdf', byteLength: 2048 },
      { type: 'file', name: 'data.csv', mimeType: 'application/octet-stream', byteLength: 0 },
      { type: 'file', name: 'file', mimeType: 'application/octet-stream', byteLength: 0 },
    ]);
  });

  it('reads usage in the OpenAI, Anthropic-like and Ollama shapes, from usage or info', () => {
    const usageFrom = (fields: Raw) => {
      const c = copy();
      const reply = c.history.messages[replyId]!;
      delete reply.usage;
      Object.assign(reply, fields);
      const e = byId(read(c).sessions[0]!.entries, replyId);
      return e.type === 'message' && e.message.role === 'assistant' ? e.message.usage : 'not a reply';
    };
    expect(usageFrom({ usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } })).toEqual({ input: 10, output: 20, totalTokens: 30 });
    expect(usageFrom({ usage: { input_tokens: 7, output_tokens: 8 } })).toEqual({ input: 7, output: 8 });
    expect(usageFrom({ info: { prompt_eval_count: 26, eval_count: 298, total_duration: 1 } })).toEqual({ input: 26, output: 298 });
    expect(usageFrom({ info: { usage: { prompt_eval_count: 3 } } })).toEqual({ input: 3, output: 0 });
    expect(usageFrom({ info: { eval_count: 5 } })).toEqual({ input: 0, output: 5 });
    expect(usageFrom({ info: { openai: true } })).toBeUndefined();
    expect(usageFrom({})).toBeUndefined();
  });

  it('a reply flagged error without details failed with "error"; an empty reply has no content', () => {
    const c = copy();
    Object.assign(c.history.messages[replyId]!, { error: true, content: '' });
    expect(byId(read(c).sessions[0]!.entries, replyId)).toMatchObject({ message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'error' } });
    const ok = byId(read(real).sessions[0]!.entries, replyId);
    expect(ok.type === 'message' && ok.message.role === 'assistant' && ok.message.errorMessage).toBeUndefined();
  });

  it('keeps a message of another role as a note showing its text or its role', () => {
    const c = copy();
    c.history.messages.sys = { id: 'sys', parentId: replyId, childrenIds: [], role: 'system', content: 'Use metric units.', timestamp: 1744577600 };
    c.history.messages.odd = { id: 'odd', parentId: 'sys', childrenIds: [], timestamp: 1744577601 };
    const s = read(c).sessions[0]!;
    expect(byId(s.entries, 'sys')).toMatchObject({ type: 'custom', customType: 'open-webui:system', display: 'Use metric units.', parentId: replyId });
    expect(byId(s.entries, 'odd')).toMatchObject({ type: 'custom', customType: 'open-webui:unknown', display: 'unknown message' });
  });

  it('takes the system prompt from the chat params or the chat, and the model of the chat when replies name none', () => {
    const c = copy();
    c.params = { system: 'Answer in French.' };
    delete c.history.messages[replyId]!.model;
    const s = read(c).sessions[0]!;
    expect(s.meta.systemPrompt).toBe('Answer in French.');
    expect(s.meta.model).toBe(real.models[0]);
    const d = copy();
    d.system = 'Be brief.';
    expect(read(d).sessions[0]!.meta.systemPrompt).toBe('Be brief.');
    expect(read(real).sessions[0]!.meta.systemPrompt).toBeUndefined();
  });

  it('titles a "New Chat" or untitled chat by its first prompt', () => {
    const c = copy();
    c.title = 'New Chat';
    expect(read(c).sessions[0]!.meta.title.startsWith('what was the ruling in the US')).toBe(true);
    c.title = '  ';
    expect(read(c).sessions[0]!.meta.title.startsWith('what was the ruling in the US')).toBe(true);
  });

  it('reads a chat without history from its flat message list, linked by parentId', () => {
    const c = copy() as Raw;
    const history = (c.history as Chat['history']).messages;
    delete c.history;
    c.messages = [history[userId], history[replyId], { role: 'user', content: 'no id' }, null];
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      [userId, null],
      [replyId, userId],
    ]);
    // No currentId: it opens at the newest leaf.
    expect(s.meta.leafId).toBe(replyId);
  });

  it('opens at the newest leaf when currentId is not a leaf, and makes a message whose parent is missing a root', () => {
    const c = copy();
    c.history.currentId = userId;
    expect(read(c).sessions[0]!.meta.leafId).toBe(replyId);
    const d = copy();
    d.history.messages[replyId]!.parentId = 'deleted';
    const s = read(d).sessions[0]!;
    expect(byId(s.entries, replyId).parentId).toBeNull();
  });

  it('takes the id of the chat when the export item has none', () => {
    const c = copy() as Raw;
    c.id = 'chat-7';
    expect(read(c).sessions[0]!.meta.source?.originalId).toBe('chat-7');
    expect(read(real).sessions[0]!.meta.source?.originalId).toBeUndefined();
  });

  it('refuses what is not a chat, naming the chat at fault', () => {
    expect(() => read('a string')).toThrow(ImportError);
    expect(() => read('a string')).toThrow(/^Expected an Open WebUI export/);
    expect(() => read([real, 5])).toThrow(/^Chat 2: expected a JSON object$/);
    expect(() => read([{ title: 'Plans', chat: {} }])).toThrow(/^Chat 1 \("Plans"\): has no message history$/);
    expect(() => read([{ chat: {} }])).toThrow(/^Chat 1: has no message history$/);
  });
});
