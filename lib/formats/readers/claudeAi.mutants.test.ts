import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError, skippedText } from '../types';
import { readClaudeAi } from './claudeAi';

/**
 * Properties of the Claude.ai reader that the first mutation run found unstated (issue 18): the text
 * field as a fallback for content, which blocks a prompt keeps, how results find their call's name,
 * times and the undated flag, the title of an untitled conversation, the format named by errors,
 * warnings and skip counts. Each test edits a copy of the export's fully written conversation.
 */
type Conv = Raw & { chat_messages: Raw[] };
const convs = JSON.parse(readFixture('claudeAiExport')) as Conv[];
const base = convs.find((c) => c.name === 'How Photosynthesis Works')!;
const copy = () => structuredClone(base);
const read = (c: unknown, opts = {}) => readClaudeAi(JSON.stringify([c]), opts);
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;

describe('Claude.ai reader: content', () => {
  it('reads the text field of a message whose content list is empty or holds no block objects', () => {
    const c = copy();
    const [ask, reply] = c.chat_messages as [Raw, Raw];
    ask.content = [];
    reply.content = [null, 3, 'text'];
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, ask.uuid as string)).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: ask.text }] } });
    expect(entry(s.entries, reply.uuid as string)).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: reply.text }], stopReason: 'stop' } });
  });

  it('a prompt keeps its text blocks only, a text block without text as empty text', () => {
    const c = copy();
    const ask = c.chat_messages[0]!;
    ask.content = [{ type: 'text', text: ask.text }, { type: 'image', source: { type: 'base64', data: 'iVBORw0KGgo=' } }, { type: 'tool_result', content: 'x' }, { type: 'text' }];
    const e = entry(read(c).sessions[0]!.entries, ask.uuid as string);
    expect(e.type === 'message' && e.message.content).toEqual([
      { type: 'text', text: ask.text },
      { type: 'text', text: '' },
    ]);
  });

  it('a result names its call by id even after a later call; a result before any call gets an id of its own and the name "tool"; a result’s list may hold values that are not blocks', () => {
    const c = copy();
    const reply = c.chat_messages[1]!;
    const uuid = reply.uuid as string;
    reply.content = [
      { type: 'tool_result', content: ['early', 3, null] },
      { type: 'tool_use', id: 'a', name: 'web_search', input: { query: 'leaf' } },
      { type: 'tool_use', id: 'b', name: 'web_fetch', input: { url: 'https://leaf.example/' } },
      { type: 'tool_result', tool_use_id: 'a', content: 'found' },
      { type: 'tool_result', tool_use_id: 'b', content: 'fetched' },
      { type: 'text', text: reply.text },
    ];
    const s = read(c).sessions[0]!;
    expect(s.entries.filter((e) => e.id.startsWith(uuid)).map((e) => e.id)).toEqual([`${uuid}:1`, `${uuid}:2`, `${uuid}:3`, `${uuid}:4`, uuid]);
    expect(entry(s.entries, `${uuid}:1`)).toMatchObject({ message: { role: 'toolResult', toolCallId: `${uuid}-tool1`, toolName: 'tool', content: [{ type: 'text', text: 'early\n3\nnull' }] } });
    expect(entry(s.entries, `${uuid}:3`)).toMatchObject({ message: { role: 'toolResult', toolCallId: 'a', toolName: 'web_search' } });
    expect(entry(s.entries, `${uuid}:4`)).toMatchObject({ message: { role: 'toolResult', toolCallId: 'b', toolName: 'web_fetch' } });
  });
});

describe('Claude.ai reader: times', () => {
  it('a message without a time takes the conversation’s; the update time counts when later than every message', () => {
    const c = copy();
    delete c.chat_messages[0]!.created_at;
    const later = '2030-01-01T00:00:00Z';
    c.updated_at = later;
    const s = read(c).sessions[0]!;
    expect(entry(s.entries, c.chat_messages[0]!.uuid as string).timestamp).toBe(Date.parse(c.created_at as string));
    expect(s.meta.updatedAt).toBe(Date.parse(later));
    expect(s.meta.undated).toBeUndefined();
  });

  it('is undated only when neither the conversation nor any message has a time, and then dated by the import', () => {
    const importedAt = Date.parse('2026-02-03T04:05:06Z');
    const c = copy();
    delete c.created_at;
    delete c.updated_at;
    for (const m of c.chat_messages) delete m.created_at;
    const s = read(c, { importedAt }).sessions[0]!;
    expect(s.meta.undated).toBe(true);
    expect(s.meta.createdAt).toBe(importedAt);
    // Messages with times, the conversation without: dated by its messages.
    const d = copy();
    delete d.created_at;
    const t = read(d, { importedAt }).sessions[0]!;
    expect(t.meta.undated).toBeUndefined();
    expect(t.meta.createdAt).toBe(Date.parse(d.chat_messages[0]!.created_at as string));
    // No message that can be read, no time at all: still a number, the import's.
    const e = copy();
    delete e.created_at;
    e.chat_messages = ['not a message'] as unknown as Raw[];
    expect(read(e, { importedAt }).sessions[0]!.meta.createdAt).toBe(importedAt);
  });
});

describe('Claude.ai reader: naming and reporting', () => {
  it('titles an untitled conversation by its first prompt that has text, past a reply and a blank prompt before it', () => {
    const c = copy();
    delete c.name;
    const [ask, reply] = c.chat_messages as [Raw, Raw];
    const blank = { ...structuredClone(ask), uuid: 'blank', text: '  ', content: [{ type: 'text', text: '  ' }], attachments: [{ file_name: 'leaf.txt', extracted_content: 'green' }] };
    c.chat_messages = [structuredClone(reply), blank, ...c.chat_messages];
    expect(read(c).sessions[0]!.meta.title).toBe(ask.text);
  });

  it('names the Claude.ai format in every error it raises', () => {
    const cases = ['[7]', '[{"name":"x"}]', '{"name":"x"}', '[{"chat_messages": [}]'];
    for (const text of cases) {
      const err = thrown(() => readClaudeAi(text));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('claude-ai');
    }
  });

  it('a clean conversation gives no warnings; a warning names its conversation', () => {
    expect(read(copy()).warnings).toEqual([]);
    const c = copy();
    c.chat_messages[2]!.uuid = c.chat_messages[0]!.uuid;
    const warnings = readClaudeAi(JSON.stringify([copy(), c])).warnings;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.startsWith(`Conversation 2 (${JSON.stringify(base.name)}): `)).toBe(true);
    expect(warnings[0]).toMatch(/repeated an id/);
  });

  it('counts one empty conversation in the singular', () => {
    const result = readClaudeAi(JSON.stringify([copy(), { ...copy(), chat_messages: [] }]));
    expect(result.sessions).toHaveLength(1);
    expect(skippedText(result.skipped)).toBe('1 empty conversation skipped');
  });
});
