import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readGemini } from './gemini';

/**
 * Properties of the Gemini CLI reader that the mutation run found unstated (issue 18): rewinds to a
 * later message, rewrites after later messages, the leaf when a rewind leaves nothing, records that
 * are not messages, parts that are not objects, usage with input only, thoughts without a
 * description, undated logs, the title's default, the document form's detection (byte-order mark,
 * one line) and the format named by every refusal. Tests write the real session as its .jsonl log
 * (a metadata line, then one line per message) with records added, or edit the .json document.
 */
const text = readFixture('geminiSession');
const doc = JSON.parse(text) as Raw & { messages: Raw[] };
const [prompt, r1, r2, r3] = doc.messages as [Raw, Raw, Raw, Raw];
const at = '2026-03-27T10:30:00.000Z';

function log(extra: Raw[], messages: Raw[] = doc.messages, meta: Raw | null = null): string {
  const { messages: _m, ...m } = doc;
  return [meta ?? m, ...messages, ...extra].map((r) => JSON.stringify(r)).join('\n') + '\n';
}
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id);
const lastResultOf = (reply: Raw) => `${reply.id as string}:${(reply.toolCalls as Raw[]).at(-1)!.id as string}`;

describe('Gemini CLI reader: rewinds, rewrites and the leaf', () => {
  it('a rewind to a later message continues from the last result of the reply before it', () => {
    const next = { id: 'n', timestamp: at, type: 'user', content: 'Only the English README.' };
    const s = readGemini(log([{ $rewindTo: r2.id }, next])).sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'n')?.parentId).toBe(lastResultOf(r1));
    expect(s.meta.leafId).toBe('n');
  });

  it('the leaf after a rewind with nothing after it is the last result of the reply before the rewind point', () => {
    const s = readGemini(log([{ $rewindTo: r2.id }])).sessions[0]!;
    expect(s.meta.leafId).toBe(lastResultOf(r1));
  });

  it('a rewind leaving no message makes the leaf the last entry of the file', () => {
    const s = readGemini(log([{ $rewindTo: prompt.id }])).sessions[0]!;
    expect(s.meta.leafId).toBe(r3.id);
  });

  it('a message written again after later ones is replaced where it was: the conversation still ends at the later message', () => {
    const next = { id: 'n', timestamp: at, type: 'user', content: 'Thanks' };
    expect(r3.toolCalls ?? []).toEqual([]);
    const s = readGemini(log([{ ...r2 }, next])).sessions[0]!;
    expect(entry(s.entries, 'n')?.parentId).toBe(r3.id);
    const again = readGemini(log([next, { ...r2 }])).sessions[0]!;
    expect(again.meta.leafId).toBe('n');
  });
});

describe('Gemini CLI reader: records and parts', () => {
  it('a log line with an id but no type, or a type but no id, is no record of the format, named by its line', () => {
    for (const bad of [{ id: 'x', content: 'hi' }, { type: 'user', content: 'hi' }]) {
      const err = thrown(() => readGemini(log([bad])));
      expect(err).toBeInstanceOf(ImportError);
      expect(err).toMatchObject({ format: 'gemini-cli', line: doc.messages.length + 2 });
      expect((err as Error).message).toMatch(/^Line \d+: not a Gemini CLI session record/);
    }
  });

  it('a message of the document without a type is a note of unknown kind', () => {
    const s = readGemini(JSON.stringify({ ...doc, messages: [...doc.messages, { id: 'odd', timestamp: at, content: 'what is this' }] }, null, 2)).sessions[0]!;
    expect(entry(s.entries, 'odd')).toMatchObject({ type: 'custom', customType: 'gemini-cli:unknown', display: 'unknown message: what is this' });
  });

  it('an error message is a failed assistant message', () => {
    const s = readGemini(log([{ id: 'e', timestamp: at, type: 'error', content: 'Quota exceeded' }])).sessions[0]!;
    expect(entry(s.entries, 'e')).toMatchObject({ type: 'message', message: { role: 'assistant', stopReason: 'error', errorMessage: 'Quota exceeded' } });
  });

  it('skips parts, tool calls and result parts that are not objects or hold nothing readable', () => {
    const s = readGemini(
      log([
        { id: 'p', timestamp: at, type: 'user', content: [null, 'Look', 3, { text: ' here' }] },
        { id: 'r', timestamp: at, type: 'gemini', content: '', toolCalls: [null, { id: 'c', name: 'ls', status: 'success', result: [{ functionCall: { name: 'x' } }, { text: 'a.ts' }] }] },
      ]),
    ).sessions[0]!;
    expectWellFormed(s);
    const p = entry(s.entries, 'p');
    expect(p?.type === 'message' && p.message.content).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'text', text: ' here' },
    ]);
    const r = entry(s.entries, 'r');
    expect(r?.type === 'message' && r.message.content).toEqual([{ type: 'toolCall', id: 'c', name: 'ls', arguments: {} }]);
    const c = entry(s.entries, 'r:c');
    expect(c?.type === 'message' && c.message.content).toEqual([{ type: 'text', text: 'a.ts' }]);
  });

  it('usage with input only counts no output, cached tokens apart; a thought without description is its subject', () => {
    const s = readGemini(log([{ id: 'r', timestamp: at, type: 'gemini', content: 'ok', tokens: { input: 10, cached: 4 }, thoughts: [{ subject: 'Plan' }] }])).sessions[0]!;
    expect(entry(s.entries, 'r')).toMatchObject({ message: { usage: { input: 6, output: 0, cacheRead: 4 }, content: [{ type: 'thinking', thinking: '**Plan**\n\n' }, { type: 'text', text: 'ok' }] } });
  });
});

describe('Gemini CLI reader: session fields', () => {
  const undatedLog = (meta: Raw) => log([], [{ id: 'u', type: 'user', content: 'hi' }, { id: 'g', type: 'gemini', content: 'hello' }], meta);

  it('a log whose messages have no time is dated by its start time, and undated without one', () => {
    // Imported after it started, as always: the messages carry the import time, the session its start.
    const dated = readGemini(undatedLog({ sessionId: 's', startTime: prompt.timestamp }), { importedAt: Date.parse('2026-04-01T00:00:00.000Z') }).sessions[0]!;
    expect('undated' in dated.meta).toBe(false);
    expect(dated.meta.createdAt).toBe(Date.parse(prompt.timestamp as string));
    const bare = readGemini(undatedLog({ sessionId: 's' }), { importedAt: 1_700_000_000_000 }).sessions[0]!;
    expect(bare.meta).toMatchObject({ undated: true, createdAt: 1_700_000_000_000 });
    expect('undated' in readGemini(text).sessions[0]!.meta).toBe(false);
  });

  it('without a summary or a prompt the title is "Gemini CLI session"', () => {
    expect(readGemini(log([], [r3])).sessions[0]!.meta.title).toBe('Gemini CLI session');
  });

  it('reads the real document without warnings', () => {
    expect(readGemini(text).warnings).toEqual([]);
  });
});

describe('Gemini CLI reader: the document form', () => {
  it('a document after a byte-order mark reads as without it; a mark inside a text stays', () => {
    const plain = readGemini(text, { importedAt: 1 }).sessions[0]!;
    const marked = readGemini(`\uFEFF${text}`, { importedAt: 1 }).sessions[0]!;
    expect(marked.entries).toEqual(plain.entries);
    const inner = JSON.stringify({ ...doc, messages: [{ ...prompt, content: [{ text: 'a\uFEFFb' }] }] }, null, 2);
    const p = entry(readGemini(inner).sessions[0]!.entries, prompt.id as string);
    expect(p?.type === 'message' && p.message.content).toEqual([{ type: 'text', text: 'a\uFEFFb' }]);
  });

  it('a document on one line is still a document: its errors name no line', () => {
    expect(() => readGemini(JSON.stringify({ ...doc, messages: [{ type: 'user' }] }))).toThrow(/^A message without an "id" in the session's messages$/);
    expect(() => readGemini('{"role":"user"}')).toThrow(/^Line 1: not a Gemini CLI session record/);
  });
});

describe('Gemini CLI reader: refusals', () => {
  it('names the format of every refusal', () => {
    const { messages: _m, ...meta } = doc;
    const bad = [
      '', // no records
      '{\n"sessionId": ', // a document cut short
      '[\n1\n]', // a document that is no object
      JSON.stringify({ ...doc, messages: [{ type: 'user' }] }, null, 2), // document message without id
      JSON.stringify({ messages: [] }, null, 2), // document without session id
      '{"$set":{"summary":"x"}}\n', // no session
      JSON.stringify(meta) + '\n', // no messages
    ];
    for (const t of bad) {
      const err = thrown(() => readGemini(t));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('gemini-cli');
    }
  });
});

describe('Gemini CLI reader: messages that share an id', () => {
  it('the document form keeps both of two messages with one id, the later under a new id, and says so', () => {
    const twin = { ...prompt, content: [{ text: 'A second question that happens to reuse the id.' }], timestamp: at };
    const edited = { ...doc, messages: [...doc.messages, twin] };
    const r = readGemini(JSON.stringify(edited));
    const s = r.sessions[0]!;
    expectWellFormed(s);
    const ids = s.entries.map((e) => e.id);
    expect(ids).toContain(prompt.id);
    expect(ids).toContain(`${prompt.id as string}~2`);
    const kept = entry(s.entries, `${prompt.id as string}~2`)!;
    expect(kept.type === 'message' && kept.message.content).toEqual([{ type: 'text', text: 'A second question that happens to reuse the id.' }]);
    // The original is untouched, and the twin follows the conversation where it came.
    expect(entry(s.entries, prompt.id as string)).toEqual(readGemini(text).sessions[0]!.entries.find((e) => e.id === prompt.id));
    expect(s.meta.leafId).toBe(`${prompt.id as string}~2`);
    expect(r.warnings).toContain('1 message shared an id with an earlier, different message; both kept, the later under a new id.');
  });

  it('the log form keeps a record of another kind that reuses an id, and still takes a same-kind record as a rewrite', () => {
    const userWithReplyId = { id: r3.id, timestamp: at, type: 'user', content: 'not a rewrite of the reply' };
    const r = readGemini(log([userWithReplyId]));
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, r3.id as string)?.type).toBe('message');
    expect(entry(s.entries, `${r3.id as string}~2`)).toMatchObject({ type: 'message', message: { role: 'user' } });
    expect(r.warnings.some((w) => w.startsWith('1 message shared an id'))).toBe(true);
    // A gemini record written again is the CLI finishing its reply: replaced, no warning.
    const rewrite = readGemini(log([{ ...r3 }]));
    expect(rewrite.sessions[0]!.entries).toHaveLength(readGemini(log([])).sessions[0]!.entries.length);
    expect(rewrite.warnings.some((w) => w.includes('shared an id'))).toBe(false);
  });
});
