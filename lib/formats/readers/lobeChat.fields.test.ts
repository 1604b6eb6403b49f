import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readLobeChat } from './lobeChat';

/**
 * LobeChat fields the real export does not use: the files table, usage, errors as strings, messages
 * without topic, other roles, the `data` wrapper of newer exports. Each test adds messages (in the
 * export's own shape) to a copy of the real export.
 */
type State = { messages: Raw[]; sessions: Raw[]; topics: Raw[]; files?: Raw[] };
const real = JSON.parse(readFixture('lobeChatExport')) as Raw & { state: State };
const prompt = real.state.messages.find((m) => m.role === 'user' && (m.content as string).trim() !== '')!;
const t0 = (prompt.createdAt as number) + 1;

const withState = (edit: (s: State) => void): Raw => {
  const d = structuredClone(real);
  edit(d.state);
  return d;
};
/** Messages in a topic of their own, under the prompt's assistant. */
const inTopic = (topicId: string, msgs: Raw[]) => msgs.map((m, i) => ({ sessionId: prompt.sessionId, topicId, createdAt: t0 + i, extra: {}, meta: {}, ...m }));
const read = (doc: unknown) => readLobeChat(JSON.stringify(doc));
const entry = (sessions: { entries: SessionEntry[] }[], id: string) => sessions.flatMap((s) => s.entries).find((e) => e.id === id)!;

describe('LobeChat fields', () => {
  it('attaches files from the files table by type, and images for ids it does not list', () => {
    const doc = withState((s) => {
      s.files = [{ id: 'f1', fileType: 'image/png', url: 'https://files.example/a.png', name: 'a.png' }, { id: 'f2', fileType: 'application/pdf', name: 'spec.pdf', size: 2048 }, { id: 'f3', type: 'text/plain' }, { id: 'f4' }, { name: 'no id' }];
      s.messages.push(...inTopic('files', [{ id: 'u', role: 'user', content: 'see', files: ['f1', 'f2', 'f3', 'f4', 'gone', 7] }]));
    });
    const r = read(doc);
    expect(entry(r.sessions, 'u')).toMatchObject({
      message: {
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', mimeType: 'image/png', url: 'https://files.example/a.png' },
          { type: 'file', name: 'spec.pdf', mimeType: 'application/pdf', byteLength: 2048 },
          { type: 'file', name: 'f3', mimeType: 'text/plain', byteLength: 0 },
          { type: 'file', name: 'f4', mimeType: 'application/octet-stream', byteLength: 0 },
          { type: 'image', mimeType: 'image/*' },
        ],
      },
    });
    const u = entry(r.sessions, 'u');
    expect(u.type === 'message' && u.message.content).toHaveLength(6);
  });

  it('reads usage in its three shapes, errors given as text or JSON text, and models without provider', () => {
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('usage', [
          { id: 'q', role: 'user', content: 'hi' },
          { id: 'a1', role: 'assistant', content: 'x', extra: { usage: { totalInputTokens: 10, totalOutputTokens: 2 } }, model: 'gpt-4o' },
          { id: 'a2', role: 'assistant', content: 'x', metadata: { usage: { inputTokens: 3 } }, provider: 'openai', model: 'gpt-4o' },
          { id: 'a3', role: 'assistant', content: 'x', extra: { usage: { completion_tokens: 4, prompt_tokens: 1 } } },
          { id: 'e1', role: 'assistant', content: '', error: 'plain failure' },
          { id: 'e2', role: 'assistant', content: '', error: JSON.stringify({ body: { error: { message: 'Invalid API key' } } }) },
          { id: 'e3', role: 'assistant', content: '', error: { type: 'Unknown' } },
          { id: 'ok', role: 'assistant', content: 'fine', error: null },
        ]),
      );
    });
    const r = read(doc);
    expect(entry(r.sessions, 'a1')).toMatchObject({ message: { usage: { input: 10, output: 2 }, model: 'gpt-4o' } });
    expect(entry(r.sessions, 'a2')).toMatchObject({ message: { usage: { input: 3, output: 0 }, model: 'openai:gpt-4o' } });
    expect(entry(r.sessions, 'a3')).toMatchObject({ message: { usage: { input: 1, output: 4 } } });
    expect(entry(r.sessions, 'e1')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'plain failure' } });
    expect(entry(r.sessions, 'e2')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'Invalid API key' } });
    expect(entry(r.sessions, 'e3')).toMatchObject({ message: { stopReason: 'error', errorMessage: JSON.stringify({ type: 'Unknown' }, null, 2) } });
    expect(entry(r.sessions, 'ok')).toMatchObject({ message: { stopReason: 'stop', content: [{ type: 'text', text: 'fine' }] } });
    const ok = entry(r.sessions, 'ok');
    expect(ok.type === 'message' && ok.message.role === 'assistant' && ok.message.usage).toBeUndefined();
  });

  it('keeps other roles as notes; groups messages without topic by assistant; names messages without id by position', () => {
    const doc = withState((s) => {
      (s.messages as unknown[]).push({ id: 'tool1', role: 'tool', content: 'result text', sessionId: 'lone', createdAt: t0 }, { role: 'user', content: 'no id', sessionId: 'lone', createdAt: t0 + 1 }, { id: 'odd', sessionId: 'lone', createdAt: t0 + 2 }, 'junk');
    });
    const r = read(doc);
    const lone = r.sessions.find((s) => s.meta.source?.originalId === 'lone/no-topic')!;
    expectWellFormed(lone);
    expect(lone.entries.map((e) => e.id)).toEqual(['tool1', 'lobe-no-topic-1', 'odd']);
    expect(lone.entries[0]).toMatchObject({ type: 'custom', customType: 'lobechat:tool', display: 'result text' });
    expect(lone.entries[2]).toMatchObject({ type: 'custom', customType: 'lobechat:unknown', display: 'unknown message' });
    expect(lone.meta.title).toBe('no id');
    expect(lone.meta.leafId).toBe('odd');
  });

  it('titles a default topic by the agent and the first prompt; takes the agent config for model and system prompt', () => {
    const agent = real.state.sessions.find((s) => (s.meta as Raw | undefined)?.title)!;
    const doc = withState((s) => {
      const a = s.sessions.find((x) => x.id === agent.id)!;
      a.config = { ...(a.config as Raw), systemRole: '  ', provider: 'ollama', model: 'llama3' };
      s.topics.push({ id: 'dt', title: 'Default Topic', sessionId: agent.id, createdAt: t0 - 1000, updatedAt: t0 + 5000 });
      s.messages.push({ id: 'p', role: 'user', content: 'Plan a trip', sessionId: agent.id, topicId: 'dt', createdAt: t0 }, { id: 'w', role: 'assistant', content: '...', sessionId: agent.id, topicId: 'dt', createdAt: t0 + 1 });
    });
    const s = read(doc).sessions.find((x) => x.meta.source?.originalId === 'dt')!;
    expect(s.meta.title).toBe(`${(agent.meta as Raw).title as string}: Plan a trip`);
    expect(s.meta.model).toBe('ollama:llama3');
    expect(s.meta.systemPrompt).toBeUndefined();
    expect(s.meta.createdAt).toBe(t0 - 1000);
    expect(s.meta.updatedAt).toBe(t0 + 5000);
  });

  it('reads the data wrapper of newer exports, warns about an export without messages, refuses anything else', () => {
    const { state, ...rest } = real;
    expect(read({ ...rest, data: state }).sessions).toHaveLength(read(real).sessions.length);
    const empty = read({ state: { messages: [], sessions: [{ id: 'a' }, {}] } });
    expect(empty.sessions).toEqual([]);
    expect(empty.warnings).toEqual(['The export holds no messages.']);
    expect(empty.skipped).toEqual([{ count: 1, one: 'assistant without messages', many: 'assistants without messages' }]);
    expect(() => read({ state: {} })).toThrow(ImportError);
    expect(() => read([])).toThrow(/^Expected a LobeChat export: an object with "state" \(or "data"\) holding "messages"\.$/);
  });
});
