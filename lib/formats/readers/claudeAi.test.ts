import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { readFixture } from '@/lib/testing/fixtures';
import { countBy, expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError, skippedText } from '../types';
import { readClaudeAi } from './claudeAi';

const text = readFixture('claudeAiExport');
const convs = JSON.parse(text) as (Raw & { chat_messages: Raw[] })[];

describe('Claude.ai export fixture (conversations.json)', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => readClaudeAi(text, { fileName: 'conversations.json' });

  it('makes one session per conversation, skipping and counting the empty ones', () => {
    const result = read();
    const empty = convs.filter((c) => c.chat_messages.length === 0);
    expect(convs).toHaveLength(85);
    expect(empty).toHaveLength(2);
    expect(result.sessions).toHaveLength(83);
    expect(skippedText(result.skipped)).toBe('2 empty conversations skipped');
    expect(result.sessions.map((s) => s.meta.source!.originalId)).toEqual(convs.filter((c) => c.chat_messages.length > 0).map((c) => c.uuid));
  });

  it('keeps every message as an entry with its uuid, human → user, assistant → assistant, in one chain', () => {
    const result = read();
    const total = convs.reduce((n, c) => n + c.chat_messages.length, 0);
    expect(total).toBe(557);
    expect(result.sessions.reduce((n, s) => n + s.entries.length, 0)).toBe(557);
    for (const s of result.sessions) {
      expectWellFormed(s);
      const conv = convs.find((c) => c.uuid === s.meta.source!.originalId)!;
      expect(s.entries.map((e) => e.id)).toEqual(conv.chat_messages.map((m) => m.uuid));
      expect(s.entries.map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual(conv.chat_messages.map((m) => (m.sender === 'human' ? 'user' : 'assistant')));
      const tree = new SessionTree(s.entries);
      expect(tree.branchPoints()).toHaveLength(0);
      expect(s.meta.leafId).toBe(conv.chat_messages.at(-1)!.uuid);
    }
  });

  it('reads the conversation the publisher left in full: title, text, times', () => {
    const result = read();
    const conv = convs.find((c) => c.name === 'How Photosynthesis Works')!;
    const s = result.sessions.find((x) => x.meta.title === 'How Photosynthesis Works')!;
    expect(countBy(s.entries)).toEqual({ user: 5, assistant: 5 });
    const ctx = buildSessionContext(s.entries, s.meta.leafId);
    expect(ctx.items.map((i) => (i.kind === 'message' && i.message.content[0]?.type === 'text' ? i.message.content[0].text : null))).toEqual(conv.chat_messages.map((m) => m.text));
    expect(s.meta.createdAt).toBe(Date.parse(conv.created_at as string));
    expect(s.meta.updatedAt).toBe(Date.parse(conv.updated_at as string));
    expect(s.entries[0]!.timestamp).toBe(Date.parse(conv.chat_messages[0]!.created_at as string));
  });

  it('splits a reply around the tool results it holds, keeps thinking, attachments and files', () => {
    const conv = structuredClone(convs.find((c) => c.name === 'How Photosynthesis Works')!);
    const [ask, reply] = conv.chat_messages as [Raw, Raw];
    ask.attachments = [{ file_name: 'notes.txt', file_type: 'text/plain', file_size: 11, extracted_content: 'chlorophyll' }];
    ask.files = [{ file_name: 'leaf.png' }];
    reply.content = [
      { type: 'thinking', thinking: 'Look it up first.' },
      { type: 'tool_use', id: 'toolu_1', name: 'web_search', input: { query: 'photosynthesis' } },
      { type: 'tool_result', tool_use_id: 'toolu_1', name: 'web_search', content: [{ type: 'text', text: 'Plants convert light.' }], is_error: false },
      { type: 'text', text: reply.text },
    ];
    const s = readClaudeAi(JSON.stringify([conv])).sessions[0]!;
    expect(expectToolResultsPaired(s)).toBe(1);
    const first = s.entries.slice(0, 4);
    expect(first.map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
    expect(first[0]).toMatchObject({ message: { content: [{ type: 'text' }, { type: 'file', name: 'notes.txt', text: 'chlorophyll', byteLength: 11 }, { type: 'image', mimeType: 'image/png' }] } });
    expect(first[1]).toMatchObject({ id: `${reply.uuid as string}:1`, message: { content: [{ type: 'thinking', thinking: 'Look it up first.' }, { type: 'toolCall', id: 'toolu_1', name: 'web_search' }], stopReason: 'toolUse' } });
    expect(first[2]).toMatchObject({ message: { toolCallId: 'toolu_1', toolName: 'web_search', content: [{ text: 'Plants convert light.' }] } });
    expect(first[3]).toMatchObject({ id: reply.uuid, message: { content: [{ type: 'text', text: reply.text }], stopReason: 'stop' } });
    // The next prompt still follows the whole reply.
    expect(s.entries[4]!.parentId).toBe(reply.uuid);
  });

  it('refuses a file that is not a Claude.ai export with a clear error', () => {
    expect(() => readClaudeAi('{"name":"x"}')).toThrow(ImportError);
    expect(() => readClaudeAi('[{"uuid":"a","name":"x"}]')).toThrow(/^Conversation 1 \("x"\): has no "chat_messages" list$/);
  });
});
