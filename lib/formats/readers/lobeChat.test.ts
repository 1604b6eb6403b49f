import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError, skippedText } from '../types';
import { readLobeChat } from './lobeChat';

const text = readFixture('lobeChatExport');
const state = (JSON.parse(text) as Raw).state as { messages: Raw[]; sessions: Raw[]; topics: Raw[] };
const entryOf = (r: ReturnType<typeof readLobeChat>, id: string) => r.sessions.flatMap((s) => s.entries).find((e) => e.id === id)!;

describe('LobeChat export fixture', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => readLobeChat(text, { fileName: 'lobechat-sessions.json' });

  it('makes one session per topic, keeps every message, skips and counts assistants without messages', () => {
    const r = read();
    const topics = new Set(state.messages.map((m) => `${m.sessionId as string}/${m.topicId as string}`));
    expect(state.messages).toHaveLength(32);
    expect(r.sessions).toHaveLength(topics.size);
    expect(r.sessions.reduce((n, s) => n + s.entries.length, 0)).toBe(32);
    const used = new Set(state.messages.map((m) => m.sessionId));
    const idle = state.sessions.filter((s) => !used.has(s.id)).length;
    expect(idle).toBe(14);
    expect(skippedText(r.skipped)).toBe('14 assistants without messages skipped');
    for (const s of r.sessions) expectWellFormed(s);
  });

  it('links replies by parentId and the rest in time order', () => {
    const r = read();
    for (const m of state.messages) {
      const e = entryOf(r, m.id as string);
      if (m.parentId) expect(e.parentId).toBe(m.parentId);
    }
    const long = r.sessions.find((s) => s.entries.length === 6)!;
    expect(long.entries.map((e) => e.parentId)).toEqual([null, ...long.entries.slice(0, -1).map((e) => e.id)]);
    expect(buildSessionContext(long.entries, long.meta.leafId).items).toHaveLength(6);
  });

  it('keeps the six errors as failed replies with the provider message, out of the context', () => {
    const r = read();
    const failed = state.messages.filter((m) => m.error);
    expect(failed).toHaveLength(6);
    for (const m of failed) {
      const e = entryOf(r, m.id as string);
      const err = typeof m.error === 'string' ? (JSON.parse(m.error) as Raw) : (m.error as Raw);
      expect(e).toMatchObject({ message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: err.message } });
    }
  });

  it('makes placeholders of the two attached images, and names each reply’s model and provider', () => {
    const r = read();
    const withFiles = state.messages.filter((m) => Array.isArray(m.files) && (m.files as unknown[]).length > 0);
    expect(withFiles).toHaveLength(2);
    for (const m of withFiles) expect(entryOf(r, m.id as string)).toMatchObject({ message: { content: [{ type: 'text', text: m.content }, { type: 'image', mimeType: 'image/*' }] } });
    for (const m of state.messages.filter((x) => x.role === 'assistant')) {
      const extra = m.extra as Raw;
      expect(entryOf(r, m.id as string)).toMatchObject({ message: { model: `${extra.fromProvider as string}:${extra.fromModel as string}` } });
    }
  });

  it('marks the reply that never arrived (LobeChat’s "..." placeholder, no error) as interrupted, without content', () => {
    const r = read();
    const waiting = state.messages.find((m) => m.role === 'assistant' && m.content === '...' && !m.error)!;
    expect(entryOf(r, waiting.id as string)).toMatchObject({ message: { content: [], stopReason: 'interrupted' } });
  });

  it('takes the agent’s system role and name for its topic', () => {
    const r = read();
    const topic = state.topics.find((t) => t.sessionId !== 'inbox')!;
    const agent = state.sessions.find((s) => s.id === topic.sessionId)!;
    const s = r.sessions.find((x) => x.meta.source!.originalId === topic.id)!;
    expect(s.meta.systemPrompt).toBe((agent.config as Raw).systemRole);
    expect(s.meta.title).toBe(`${(agent.meta as Raw).title as string}: hello`);
  });

  it('refuses a file without messages', () => {
    expect(() => readLobeChat('{"exportType":"settings","state":{"settings":{}},"version":7}')).toThrow(ImportError);
  });
});
