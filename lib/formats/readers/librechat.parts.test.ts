import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readLibreChat } from './librechat';

/**
 * What LibreChat messages can hold beyond the real export's plain text: typed content parts, files,
 * stop states, endpoints. Each test adds messages to the real conversation (flat, linked by
 * parentMessageId, as the non-recursive export writes them) or edits its fields.
 */
const real = JSON.parse(readFixture('librechatTree')) as Raw & { messages: Raw[]; options: Raw };
const firstId = real.messages[0]!.messageId as string;
const at = '2024-05-02T10:00:00.000Z';

function withMessages(added: Raw[], edit: (doc: typeof real) => void = () => {}): Raw {
  const doc = structuredClone(real);
  doc.messages.push(...added);
  edit(doc);
  return doc;
}
const read = (doc: unknown) => readLibreChat(JSON.stringify(doc));
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;

describe('LibreChat message parts', () => {
  it('a prompt keeps its text parts, image links and attached files', () => {
    const prompt = {
      messageId: 'p',
      parentMessageId: firstId,
      isCreatedByUser: 'true',
      createdAt: at,
      content: [{ type: 'text', text: 'What is this?' }, { type: 'text', text: { value: 'And this?' } }, { type: 'text' }, { type: 'image_url', image_url: 'https://img.example/a.png' }, { type: 'image_url', image_url: { url: 'https://img.example/b.png' } }, { type: 'image_url' }, { type: 'video' }, 'stray'],
      files: [{ type: 'image/png', filepath: '/images/u/c.png', width: 640, height: 480, bytes: 5120 }, { type: 'application/pdf', filename: 'spec.pdf', bytes: 2048 }, {}, null],
    };
    const s = read(withMessages([prompt])).sessions[0]!;
    expectWellFormed(s);
    const p = entry(s.entries, 'p');
    expect(p.type === 'message' && p.message.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'text', text: 'And this?' },
      { type: 'text', text: '' },
      { type: 'image', mimeType: 'image/*', url: 'https://img.example/a.png' },
      { type: 'image', mimeType: 'image/*', url: 'https://img.example/b.png' },
      { type: 'image', mimeType: 'image/png', url: '/images/u/c.png', width: 640, height: 480, byteLength: 5120 },
      { type: 'file', name: 'spec.pdf', mimeType: 'application/pdf', byteLength: 2048 },
      { type: 'file', name: 'file', mimeType: 'application/octet-stream', byteLength: 0 },
    ]);
    // A prompt without content parts or text is one empty text.
    const bare = read(withMessages([{ messageId: 'q', parentMessageId: firstId, isCreatedByUser: true, content: [] }])).sessions[0]!;
    expect(entry(bare.entries, 'q')).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: '' }] } });
  });

  it('a reply keeps thinking, errors and unknown parts as text, and its tool calls with whatever arguments they had', () => {
    const reply = {
      messageId: 'r',
      parentMessageId: firstId,
      isCreatedByUser: false,
      createdAt: at,
      content: [
        { type: 'think', think: 'Check the docs.' },
        { type: 'think' },
        { type: 'tool_call', tool_call: { name: 'search', args: 'not json' } },
        { type: 'tool_call', tool_call: { id: 't2', args: 42, output: { hits: 0 } } },
        { type: 'tool_call', tool_call: { id: 't3', name: 'noop' } },
        { type: 'tool_call' },
        { type: 'text', text: { value: 'Nothing found.' } },
        { type: 'error', error: 'rate limited' },
        { type: 'error' },
        { type: 'image_file', image_file: { file_id: 'f' } },
        null,
      ],
    };
    const s = read(withMessages([reply])).sessions[0]!;
    expectWellFormed(s);
    expect(expectToolResultsPaired(s)).toBe(1);
    expect(s.entries.filter((e) => e.id.startsWith('r')).map((e) => [e.id, e.parentId])).toEqual([
      ['r:1', firstId],
      ['r:2', 'r:1'],
      ['r', 'r:2'],
    ]);
    expect(entry(s.entries, 'r:1')).toMatchObject({
      message: {
        role: 'assistant',
        stopReason: 'toolUse',
        content: [
          { type: 'thinking', thinking: 'Check the docs.' },
          { type: 'thinking', thinking: '' },
          { type: 'toolCall', id: 'call-0-2', name: 'search', arguments: { input: 'not json' } },
          { type: 'toolCall', id: 't2', name: 'tool', arguments: { input: 42 } },
          { type: 'toolCall', id: 't3', name: 'noop', arguments: { input: null } },
          { type: 'toolCall', id: 'call-0-5', name: 'tool', arguments: { input: null } },
        ],
      },
    });
    expect(entry(s.entries, 'r:2')).toMatchObject({ message: { role: 'toolResult', toolCallId: 't2', toolName: 'tool', content: [{ type: 'text', text: JSON.stringify({ hits: 0 }, null, 2) }] } });
    const last = entry(s.entries, 'r');
    expect(last.type === 'message' && last.message.content).toEqual([
      { type: 'text', text: 'Nothing found.' },
      { type: 'text', text: '[error] rate limited' },
      { type: 'text', text: `[error] ${JSON.stringify({ type: 'error' }, null, 2)}` },
      { type: 'text', text: `[image_file] ${JSON.stringify({ type: 'image_file', image_file: { file_id: 'f' } }, null, 2)}` },
    ]);
  });

  it('a reply without parts is its text, or empty', () => {
    const s = read(withMessages([{ messageId: 'e', parentMessageId: firstId, content: [] }, { messageId: 't', parentMessageId: firstId, text: 'Plain.' }])).sessions[0]!;
    expect(entry(s.entries, 'e')).toMatchObject({ message: { role: 'assistant', content: [] } });
    expect(entry(s.entries, 't')).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'Plain.' }] } });
  });

  it('reads stop states and usage: finish reasons, unfinished, error with its text, prompt tokens', () => {
    const s = read(
      withMessages([
        { messageId: 'len', parentMessageId: firstId, text: 'cut', finish_reason: 'length', promptTokens: '1200', tokenCount: 300 },
        { messageId: 'tool', parentMessageId: firstId, text: 'x', finish_reason: 'tool_calls' },
        { messageId: 'fn', parentMessageId: firstId, text: 'x', finish_reason: 'function_call', promptTokens: 5 },
        { messageId: 'unf', parentMessageId: firstId, text: 'half', finish_reason: 'stop', unfinished: 'True' },
        { messageId: 'err', parentMessageId: firstId, text: 'Upstream timed out', error: true, unfinished: true },
        { messageId: 'err2', parentMessageId: firstId, error: 'true' },
        { messageId: 'count', parentMessageId: firstId, text: 'x', tokenCount: 9 },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'len')).toMatchObject({ message: { stopReason: 'length', usage: { input: 1200, output: 300 } } });
    expect(entry(s.entries, 'tool')).toMatchObject({ message: { stopReason: 'toolUse' } });
    expect(entry(s.entries, 'fn')).toMatchObject({ message: { stopReason: 'toolUse', usage: { input: 5, output: 0 } } });
    expect(entry(s.entries, 'unf')).toMatchObject({ message: { stopReason: 'interrupted' } });
    expect(entry(s.entries, 'err')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'Upstream timed out' } });
    expect(entry(s.entries, 'err2')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'error' } });
    const count = entry(s.entries, 'count');
    expect(count.type === 'message' && count.message.role === 'assistant' && count.message.usage).toBeUndefined();
    expect(count.type === 'message' && count.message.role === 'assistant' && count.message.stopReason).toBeUndefined();
  });

  it('names models by provider: known endpoints mapped, others made safe, none left bare', () => {
    const model = (endpoint: string | undefined, msg: Raw = {}) => {
      const s = read(withMessages([{ messageId: 'm', parentMessageId: firstId, text: 'x', model: 'm-1', ...msg }], (d) => {
        d.endpoint = endpoint;
        delete d.options.endpoint;
      })).sessions[0]!;
      const e = entry(s.entries, 'm');
      return [e.type === 'message' && e.message.role === 'assistant' ? e.message.model : null, s.meta.model];
    };
    expect(model('azureOpenAI')).toEqual(['azure:m-1', 'azure:gpt-4-turbo']);
    expect(model('anthropic')).toEqual(['anthropic:m-1', 'anthropic:gpt-4-turbo']);
    expect(model('My Ollama!')).toEqual(['my-ollama-:m-1', 'my-ollama-:gpt-4-turbo']);
    expect(model(undefined)).toEqual(['m-1', 'gpt-4-turbo']);
    expect(model('openAI', { endpoint: 'google' })).toEqual(['google:m-1', 'openai:gpt-4-turbo']);
    expect(model('openAI', { model: null })).toEqual(['openai:gpt-4-turbo', 'openai:gpt-4-turbo']);
  });

  it('dates a message without times after its parent, names a message without id by its position', () => {
    const s = read(withMessages([{ parentMessageId: firstId, isCreatedByUser: true, text: 'no id, no time' }, { messageId: 'late', parentMessageId: firstId, text: 'x', updatedAt: at }])).sessions[0]!;
    const parent = entry(s.entries, firstId);
    const anon = s.entries.find((e) => e.id.startsWith('librechat-'))!;
    expect(anon.timestamp).toBe(parent.timestamp);
    expect(entry(s.entries, 'late').timestamp).toBe(Date.parse(at));
  });

  it('titles an untitled conversation by its first prompt, reads several conversations, warns about an empty one', () => {
    const untitled = withMessages([], (d) => {
      delete d.title;
    });
    const empty = { conversationId: 'empty', title: 'Nothing here', messages: [] };
    const r = read([untitled, empty]);
    expect(r.sessions).toHaveLength(2);
    expect(r.sessions[0]!.meta.title.startsWith('How do I use source venv/bin/activate?')).toBe(true);
    expect(r.sessions[1]!.entries).toEqual([]);
    expect(r.warnings).toEqual(['Conversation 2 ("Nothing here") holds no messages.']);
    expect(r.sessions[0]!.meta.source!.hash).toBe(r.sessions[1]!.meta.source!.hash);
  });

  it('takes the system prompt and model from the conversation when it has no options', () => {
    const s = read(
      withMessages([], (d) => {
        delete (d as Raw).options;
        Object.assign(d, { promptPrefix: 'Be terse.', model: 'gpt-4o', endpoint: 'openAI' });
      }),
    ).sessions[0]!;
    expect(s.meta).toMatchObject({ systemPrompt: 'Be terse.', model: 'openai:gpt-4o' });
  });

  it('refuses a conversation that is not an object or has no messages list, naming it', () => {
    expect(() => read([real, 'x'])).toThrow(ImportError);
    expect(() => read([real, 'x'])).toThrow(/^Conversation 2: expected a JSON object$/);
    expect(() => read({ title: 't' })).toThrow(/^Conversation 1: has no "messages" list$/);
  });
});
