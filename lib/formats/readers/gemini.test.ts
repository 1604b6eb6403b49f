import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { countBy, expectToolResultsPaired, expectWellFormed, withoutSessionId, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readGemini } from './gemini';
import { importText } from '../import';

const text = readFixture('geminiSession');
const doc = JSON.parse(text) as Raw & { messages: Raw[] };
const replies = doc.messages.filter((m) => m.type === 'gemini');
const toolCalls = replies.flatMap((m) => (m.toolCalls as Raw[] | undefined) ?? []);
const assistants = (entries: SessionEntry[]) => entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? [e.message] : []));

/** The same session as the newer CLI writes it: a metadata line, then one line per message record. */
function asJsonl(messages: Raw[], extra: Raw[] = []): string {
  const { messages: _m, ...meta } = doc;
  return [meta, ...messages, ...extra].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

describe('Gemini CLI session fixture (.json)', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => readGemini(text, { fileName: 'session-2026-03-27T10-19-8a20078e.json' }).sessions[0]!;

  it('has the prompt, three replies, and one result per tool call, paired', () => {
    const s = read();
    expectWellFormed(s);
    expect(countBy(s.entries)).toEqual({ user: 1, assistant: 3, toolResult: toolCalls.length });
    expect(toolCalls).toHaveLength(7);
    expect(expectToolResultsPaired(s)).toBe(7);
    const results = s.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message] : []));
    for (const call of toolCalls) {
      const r = results.find((m) => m.toolCallId === call.id)!;
      const response = ((call.result as Raw[])[0]!.functionResponse as Raw).response as Raw;
      expect(r).toMatchObject({ toolName: call.name, isError: call.status !== 'success', content: [{ type: 'text', text: response.output }] });
    }
  });

  it('keeps every thought as thinking and the reply text', () => {
    const s = read();
    const thinking = assistants(s.entries).flatMap((m) => m.content.filter((p) => p.type === 'thinking'));
    expect(thinking).toHaveLength(39);
    expect(replies.flatMap((m) => m.thoughts as Raw[]).every((t) => thinking.some((p) => p.type === 'thinking' && p.thinking.includes(t.description as string)))).toBe(true);
    const last = assistants(s.entries).at(-1)!;
    expect(last.content.at(-1)).toEqual({ type: 'text', text: replies.at(-1)!.content });
  });

  it('reports usage with cache reads apart and thought tokens as output', () => {
    const s = read();
    assistants(s.entries).forEach((m, i) => {
      const t = replies[i]!.tokens as Record<string, number>;
      expect(m.usage).toEqual({ input: t.input! - t.cached!, output: t.output! + t.thoughts!, cacheRead: t.cached, totalTokens: t.total });
      expect(m.model).toBe(`google:${replies[i]!.model as string}`);
    });
  });

  it('opens on the last reply with the whole conversation in context; title, times and id from the file', () => {
    const s = read();
    expect(s.meta.leafId).toBe(replies.at(-1)!.id);
    expect(buildSessionContext(s.entries, s.meta.leafId).items).toHaveLength(s.entries.length);
    expect(s.meta.title.startsWith(((doc.messages[0]!.content as Raw[])[0]!.text as string).slice(0, 20))).toBe(true);
    expect(s.meta).toMatchObject({ createdAt: Date.parse(doc.startTime as string), updatedAt: Date.parse(doc.lastUpdated as string), source: { format: 'gemini-cli', originalId: doc.sessionId } });
  });
});

describe('Gemini CLI session log (.jsonl)', () => {
  const readFromJson = () => readGemini(text, { importedAt: 1 }).sessions[0]!;

  it('reads the same session from the log form, detected and streamed as JSON lines', () => {
    const fromJson = readFromJson();
    const jsonl = asJsonl(doc.messages);
    const r = importText(jsonl, { fileName: 'session-2026-03-27T10-19-8a20078e.jsonl', importedAt: 1 });
    expect(r.format).toBe('gemini-cli');
    const { source: _a, ...a } = withoutSessionId(r.sessions[0]!).meta;
    const { source: _b, ...b } = withoutSessionId(fromJson).meta;
    expect(a).toEqual(b);
    expect(r.sessions[0]!.entries).toEqual(fromJson.entries);
  });

  it('a record written again replaces the earlier one; $set renames the session', () => {
    const fromJson = readFromJson();
    const last = doc.messages.at(-1)!;
    const jsonl = asJsonl(doc.messages.slice(0, -1), [{ ...last, content: 'draft' }, { ...last }, { $set: { summary: 'README split for users' } }]);
    const s = readGemini(jsonl).sessions[0]!;
    expect(s.entries).toHaveLength(fromJson.entries.length);
    expect(assistants(s.entries).at(-1)!.content.at(-1)).toEqual({ type: 'text', text: last.content });
    expect(s.meta.title).toBe('README split for users');
  });

  it('a rewind keeps the dropped messages as an abandoned branch and continues from before them', () => {
    const [prompt, ...rest] = doc.messages;
    const retry = { id: 'retry-1', timestamp: '2026-03-27T10:30:00.000Z', type: 'user', content: [{ text: 'Only README.md, please.' }] };
    const s = readGemini(asJsonl([prompt!, ...rest], [{ $rewindTo: prompt!.id }, retry])).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.find((e) => e.id === 'retry-1')!.parentId).toBeNull();
    expect(s.meta.leafId).toBe('retry-1');
    expect(s.entries.find((e) => e.id === prompt!.id)).toBeDefined();
    expect(buildSessionContext(s.entries, s.meta.leafId).items).toHaveLength(1);
  });

  it('CLI notices are notes, an error message is a failed reply, neither reaches the model', () => {
    const info = { id: 'i1', timestamp: '2026-03-27T10:22:01.000Z', type: 'info', content: 'Switched to fallback model' };
    const error = { id: 'e1', timestamp: '2026-03-27T10:22:02.000Z', type: 'error', content: 'Quota exceeded' };
    const s = readGemini(asJsonl(doc.messages, [info, error])).sessions[0]!;
    expect(s.entries.find((e) => e.id === 'i1')).toMatchObject({ type: 'custom', customType: 'gemini-cli:info', display: 'Switched to fallback model' });
    expect(s.entries.find((e) => e.id === 'e1')).toMatchObject({ message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'Quota exceeded' } });
    const ids = buildSessionContext(s.entries, s.meta.leafId).items.map((i) => i.entryId);
    expect(ids).not.toContain('i1');
    expect(ids).not.toContain('e1');
  });

  it('names the line of a record it cannot read', () => {
    const jsonl = asJsonl(doc.messages).split('\n');
    jsonl[2] = '{"timestamp":"x"}';
    expect(() => readGemini(jsonl.join('\n'))).toThrow(ImportError);
    expect(() => readGemini(jsonl.join('\n'))).toThrow(/^Line 3: not a Gemini CLI session record/);
  });
});
