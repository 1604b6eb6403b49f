import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readClaudeAi } from './claudeAi';

/**
 * Claude.ai message shapes the real export holds only as plain text: tool calls without ids, results
 * as strings, attachments without metadata, branches by parent_message_uuid. Each test edits a copy
 * of the export's fully written conversation ("How Photosynthesis Works").
 */
type Conv = Raw & { chat_messages: Raw[] };
const convs = JSON.parse(readFixture('claudeAiExport')) as Conv[];
const base = convs.find((c) => c.name === 'How Photosynthesis Works')!;
const copy = () => structuredClone(base);
const read = (c: unknown) => readClaudeAi(JSON.stringify([c]));
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;

describe('Claude.ai message blocks', () => {
  it('names tool calls and results that carry no ids, reads results given as text, and keeps unknown blocks as text', () => {
    const c = copy();
    const reply = c.chat_messages[1]!;
    const uuid = reply.uuid as string;
    reply.content = [
      { type: 'tool_use', name: 'artifacts', input: 'not an object' },
      { type: 'tool_result', content: 'created' },
      { type: 'tool_use' },
      { type: 'tool_result', tool_use_id: 'other', content: ['line one', { type: 'text', text: 'line two' }, { type: 'image' }], is_error: true },
      { type: 'tool_result', name: 'repl', content: null },
      { type: 'token_budget' },
      { type: 'thinking' },
      { type: 'text' },
    ];
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    const chain = s.entries.filter((e) => e.id.startsWith(uuid));
    expect(chain.map((e) => e.id)).toEqual([`${uuid}:1`, `${uuid}:2`, `${uuid}:3`, `${uuid}:4`, `${uuid}:5`, uuid]);
    expect(entry(s.entries, `${uuid}:1`)).toMatchObject({ message: { role: 'assistant', stopReason: 'toolUse', content: [{ type: 'toolCall', id: `${uuid}-tool1`, name: 'artifacts', arguments: { input: 'not an object' } }] } });
    expect(entry(s.entries, `${uuid}:2`)).toMatchObject({ message: { role: 'toolResult', toolCallId: `${uuid}-tool1`, toolName: 'artifacts', content: [{ type: 'text', text: 'created' }], isError: false } });
    expect(entry(s.entries, `${uuid}:3`)).toMatchObject({ message: { content: [{ type: 'toolCall', id: `${uuid}-tool2`, name: 'tool', arguments: { input: null } }] } });
    expect(entry(s.entries, `${uuid}:4`)).toMatchObject({ message: { toolCallId: 'other', toolName: 'tool', isError: true, content: [{ type: 'text', text: `line one\nline two\n${JSON.stringify({ type: 'image' }, null, 2)}` }] } });
    expect(entry(s.entries, `${uuid}:5`)).toMatchObject({ message: { toolCallId: `${uuid}-tool2`, toolName: 'repl', content: [{ type: 'text', text: '' }] } });
    expect(entry(s.entries, uuid)).toMatchObject({ message: { role: 'assistant', stopReason: 'stop', content: [{ type: 'text', text: `[token_budget] ${JSON.stringify({ type: 'token_budget' }, null, 2)}` }, { type: 'thinking', thinking: '' }, { type: 'text', text: '' }] } });
  });

  it('a reply that ends on a tool result ends there; an empty reply is an empty message', () => {
    const c = copy();
    const reply = c.chat_messages[1]!;
    reply.content = [{ type: 'tool_use', id: 't', name: 'web_search', input: {} }, { type: 'tool_result', tool_use_id: 't', content: [] }];
    const s = read(c).sessions[0]!;
    expect(entry(s.entries, reply.uuid as string)).toMatchObject({ message: { role: 'toolResult', toolCallId: 't', toolName: 'web_search' } });
    const d = copy();
    Object.assign(d.chat_messages[1]!, { content: [], text: undefined });
    expect(entry(read(d).sessions[0]!.entries, d.chat_messages[1]!.uuid as string)).toMatchObject({ message: { role: 'assistant', content: [], stopReason: 'stop' } });
  });

  it('keeps attachments and files with what the export says of them', () => {
    const c = copy();
    Object.assign(c.chat_messages[0]!, {
      attachments: [{ extracted_content: 'abc' }, { file_name: 'a.csv', file_type: '', file_size: 99 }, { file_name: 'b.md' }, 'x'],
      files: [{ file_name: 'PHOTO.JPEG' }, { file_name: 'scan', file_kind: 'image' }, { file_name: 'doc.pdf' }, {}, null],
    });
    const s = read(c).sessions[0]!;
    const first = entry(s.entries, c.chat_messages[0]!.uuid as string);
    expect(first.type === 'message' && first.message.content.slice(1)).toEqual([
      { type: 'file', name: 'attachment', mimeType: 'text/plain', byteLength: 3, text: 'abc' },
      { type: 'file', name: 'a.csv', mimeType: 'text/plain', byteLength: 99 },
      { type: 'file', name: 'b.md', mimeType: 'text/plain', byteLength: 0 },
      { type: 'image', mimeType: 'image/jpeg' },
      { type: 'image', mimeType: 'image/*' },
      { type: 'file', name: 'doc.pdf', mimeType: 'application/octet-stream', byteLength: 0 },
      { type: 'file', name: 'file', mimeType: 'application/octet-stream', byteLength: 0 },
    ]);
  });

  it('follows parent_message_uuid into branches; the leaf is the last message', () => {
    const c = copy();
    const [ask, reply] = c.chat_messages as [Raw, Raw];
    const retry = { ...structuredClone(reply), uuid: 'retry', parent_message_uuid: ask.uuid, text: 'A shorter answer.', content: [] };
    const orphan = { ...structuredClone(reply), uuid: 'orphan', parent_message_uuid: 'not-in-file', content: [] };
    (c.chat_messages as unknown[]).push(retry, orphan, 'not a message');
    const s = read(c).sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'retry').parentId).toBe(ask.uuid);
    // A parent that is not in the file: the message follows the one before it.
    expect(entry(s.entries, 'orphan').parentId).toBe('retry');
    expect(s.meta.leafId).toBe('orphan');
    expect(entry(s.entries, ask.uuid as string).parentId).toBeNull();
  });

  it('names a message without uuid by its position, an untitled conversation by its first prompt, and the model of the conversation', () => {
    const c = copy();
    delete c.chat_messages[0]!.uuid;
    c.name = '  ';
    c.model = 'claude-3-opus';
    const s = read(c).sessions[0]!;
    expect(s.entries[0]!.id).toBe('claude-ai-0');
    expect(s.meta.title).toBe((base.chat_messages[0]!.text as string).split('\n')[0]!.slice(0, s.meta.title.length));
    expect(s.meta.title.length).toBeGreaterThan(0);
    expect(s.meta.model).toBe('anthropic:claude-3-opus');
  });

  it('reads one conversation given alone, and refuses what is not a conversation, naming it', () => {
    expect(readClaudeAi(JSON.stringify(base)).sessions).toHaveLength(1);
    expect(() => readClaudeAi(JSON.stringify({ name: 'x' }))).toThrow(ImportError);
    expect(() => readClaudeAi(JSON.stringify({ name: 'x' }))).toThrow(/^Expected a Claude\.ai export/);
    expect(() => readClaudeAi(JSON.stringify([base, [1]]))).toThrow(/^Conversation 2: expected a JSON object, found a JSON array$/);
    expect(() => readClaudeAi(JSON.stringify([base, 7]))).toThrow(/^Conversation 2: expected a JSON object, found 7$/);
    expect(() => readClaudeAi(JSON.stringify([{ name: 'Plans' }]))).toThrow(/^Conversation 1 \("Plans"\): has no "chat_messages" list$/);
    expect(() => readClaudeAi(JSON.stringify([{}]))).toThrow(/^Conversation 1: has no "chat_messages" list$/);
  });
});
