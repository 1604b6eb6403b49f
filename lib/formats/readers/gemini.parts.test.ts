import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readGemini } from './gemini';

/**
 * Parts of Gemini CLI sessions the real fixture (text prompts, replies with tool calls that all
 * succeeded) does not hold: attachments, failed or unfinished tool calls, media in tool results,
 * notes. Each test appends records to the real session, in its .jsonl log form.
 */
const doc = JSON.parse(readFixture('geminiSession')) as Raw & { messages: Raw[] };
const at = '2026-03-27T10:30:00.000Z';

function log(extra: Raw[], messages: Raw[] = doc.messages): string {
  const { messages: _m, ...meta } = doc;
  return [meta, ...messages, ...extra].map((r) => JSON.stringify(r)).join('\n') + '\n';
}
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;

describe('Gemini CLI parts', () => {
  it('reads inline and uploaded attachments of a prompt as images and files', () => {
    const prompt = {
      id: 'p',
      timestamp: at,
      type: 'user',
      content: [
        'Look at these',
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK', displayName: 'spec.pdf' } },
        { inlineData: { data: 'AAAA' } },
        { inlineData: { mimeType: 'image/png' } },
        { fileData: { mimeType: 'image/jpeg', fileUri: 'gs://bucket/cat.jpg' } },
        { fileData: { mimeType: 'text/csv', fileUri: 'gs://bucket/data.csv' } },
        { fileData: {} },
        { functionCall: { name: 'ignored' } },
      ],
    };
    const s = readGemini(log([prompt])).sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'p')).toMatchObject({
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'file', name: 'spec.pdf', mimeType: 'application/pdf', byteLength: 9 },
          { type: 'file', name: 'attachment', mimeType: 'application/octet-stream', byteLength: 3 },
          { type: 'image', mimeType: 'image/jpeg', url: 'gs://bucket/cat.jpg' },
          { type: 'file', name: 'gs://bucket/data.csv', mimeType: 'text/csv', byteLength: 0 },
          { type: 'file', name: 'file', mimeType: 'application/octet-stream', byteLength: 0 },
        ],
      },
    });
    const m = entry(s.entries, 'p');
    expect(m.type === 'message' && m.message.content).toHaveLength(7);
  });

  it('takes a prompt given as one part or one string', () => {
    const s = readGemini(log([{ id: 'a', timestamp: at, type: 'user', content: { text: 'one part' } }, { id: 'b', timestamp: at, type: 'user', content: 'plain string' }])).sessions[0]!;
    expect(entry(s.entries, 'a')).toMatchObject({ message: { content: [{ type: 'text', text: 'one part' }] } });
    expect(entry(s.entries, 'b')).toMatchObject({ message: { content: [{ type: 'text', text: 'plain string' }] } });
  });

  it('a failed, cancelled or unrecorded tool call gives an error result saying what is known', () => {
    const reply = {
      id: 'r',
      timestamp: at,
      type: 'gemini',
      content: '',
      model: 'gemini-2.5-pro',
      toolCalls: [
        { id: 'c1', name: 'run_shell_command', args: { command: 'false' }, status: 'error', result: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { error: 'Command exited with code 1' } } }] },
        { id: 'c2', name: 'web_fetch', status: 'cancelled', result: [{ functionResponse: { id: 'c2', name: 'web_fetch', response: { cancelled: true } } }] },
        { name: 'glob', status: 'success', result: [{ text: 'a.ts\nb.ts' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }, { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } }] },
        { id: 'c4', name: 'read_file', result: null },
        { id: 'c5', status: 'success', result: [{ functionResponse: { id: 'c5' } }] },
      ],
    };
    const s = readGemini(log([reply])).sessions[0]!;
    expectWellFormed(s);
    expect(expectToolResultsPaired(s)).toBe(12);
    expect(entry(s.entries, 'r')).toMatchObject({
      message: {
        role: 'assistant',
        model: 'google:gemini-2.5-pro',
        stopReason: 'toolUse',
        content: [
          { type: 'toolCall', id: 'c1', name: 'run_shell_command', arguments: { command: 'false' } },
          { type: 'toolCall', id: 'c2', name: 'web_fetch', arguments: {} },
          { type: 'toolCall', id: 'r-call3', name: 'glob' },
          { type: 'toolCall', id: 'c4', name: 'read_file' },
          { type: 'toolCall', id: 'c5', name: 'unknown' },
        ],
      },
    });
    expect(entry(s.entries, 'r:c1')).toMatchObject({ parentId: 'r', message: { toolName: 'run_shell_command', isError: true, content: [{ type: 'text', text: 'Command exited with code 1' }] } });
    expect(entry(s.entries, 'r:c2')).toMatchObject({ parentId: 'r:c1', message: { isError: true, content: [{ type: 'text', text: JSON.stringify({ cancelled: true }, null, 2) }] } });
    expect(entry(s.entries, 'r:r-call3')).toMatchObject({ message: { isError: false, content: [{ type: 'text', text: 'a.ts\nb.ts' }, { type: 'image', mimeType: 'image/png' }] } });
    const glob = entry(s.entries, 'r:r-call3');
    expect(glob.type === 'message' && glob.message.content).toHaveLength(2);
    expect(entry(s.entries, 'r:c4')).toMatchObject({ message: { isError: true, content: [{ type: 'text', text: '(no result recorded; status: unknown)' }] } });
    expect(entry(s.entries, 'r:c5')).toMatchObject({ message: { isError: false, content: [{ type: 'text', text: 'null' }] } });
    // The next message follows the last result.
    const next = readGemini(log([reply, { id: 'n', timestamp: at, type: 'user', content: 'go on' }])).sessions[0]!;
    expect(entry(next.entries, 'n').parentId).toBe('r:c5');
    expect(next.meta.leafId).toBe('n');
  });

  it('a reply with thoughts without a subject, text and no calls stops normally; usage without counts is left out', () => {
    const reply = { id: 'r', timestamp: at, type: 'gemini', content: [{ text: 'Done' }, { text: '.' }], thoughts: [{ description: 'Checking.' }, null], tokens: { tool: 3 } };
    const s = readGemini(log([reply])).sessions[0]!;
    const e = entry(s.entries, 'r');
    expect(e).toMatchObject({ message: { content: [{ type: 'thinking', thinking: 'Checking.' }, { type: 'text', text: 'Done.' }], stopReason: 'stop' } });
    expect(e.type === 'message' && e.message.role === 'assistant' && e.message.usage).toBeUndefined();
    expect(e.type === 'message' && e.message.role === 'assistant' && e.message.model).toBeUndefined();
    // The session keeps the model of the last reply that named one.
    expect(s.meta.model).toBe(`google:${doc.messages.at(-1)!.model as string}`);
    const counted = readGemini(log([{ ...reply, tokens: { output: 5 } }])).sessions[0]!;
    expect(entry(counted.entries, 'r')).toMatchObject({ message: { usage: { input: 0, output: 5 } } });
  });

  it('notes: a warning shows its text, another kind its kind; an empty error says "error"', () => {
    const s = readGemini(
      log([
        { id: 'w', timestamp: at, type: 'warning', content: 'Low quota' },
        { id: 'k', timestamp: at, type: 'compression', content: 'Chat compressed' },
        { id: 'k2', timestamp: at, type: 'compression' },
        { id: 'e', timestamp: at, type: 'error', content: '' },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'w')).toMatchObject({ type: 'custom', customType: 'gemini-cli:warning', display: 'Low quota' });
    expect(entry(s.entries, 'k')).toMatchObject({ type: 'custom', customType: 'gemini-cli:compression', display: 'compression message: Chat compressed' });
    expect(entry(s.entries, 'k2')).toMatchObject({ display: 'compression message' });
    expect(entry(s.entries, 'e')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'error' } });
  });

  it('a rewind to a message that is not in the conversation starts a new root', () => {
    const s = readGemini(log([{ $rewindTo: 'nowhere' }, { id: 'fresh', timestamp: at, type: 'user', content: 'again' }])).sessions[0]!;
    expect(entry(s.entries, 'fresh').parentId).toBeNull();
    expect(s.meta.leafId).toBe('fresh');
  });

  it('a log without a metadata line still reads; later $set lines update the times and id', () => {
    const text = [...doc.messages, { $set: { sessionId: 'later-id', startTime: '2026-03-27T10:00:00.000Z', lastUpdated: '2026-03-28T00:00:00.000Z' } }].map((r) => JSON.stringify(r)).join('\n');
    const s = readGemini(text).sessions[0]!;
    expect(s.meta).toMatchObject({ createdAt: Date.parse('2026-03-27T10:00:00.000Z'), updatedAt: Date.parse('2026-03-28T00:00:00.000Z'), source: { originalId: 'later-id' } });
    expect(s.meta.title.startsWith(((doc.messages[0]!.content as Raw[])[0]!.text as string).slice(0, 10))).toBe(true);
  });

  it('refuses files that hold no session, or records that are not Gemini CLI records, naming the line', () => {
    const { messages: _m, ...meta } = doc;
    expect(() => readGemini(JSON.stringify(meta) + '\n')).toThrow(/^The session holds no messages\.$/);
    expect(() => readGemini('{"$set":{"summary":"x"}}\n')).toThrow(/^The file holds no Gemini CLI session\.$/);
    expect(() => readGemini(log([{ role: 'user', text: 'hi' }]))).toThrow(ImportError);
    expect(() => readGemini(log([{ role: 'user', text: 'hi' }]))).toThrow(new RegExp(`^Line ${doc.messages.length + 2}: not a Gemini CLI session record`));
    expect(() => readGemini(JSON.stringify({ ...doc, messages: [{ type: 'user' }] }, null, 2))).toThrow(/^A message without an "id" in the session's messages$/);
    expect(() => readGemini(JSON.stringify({ messages: [] }, null, 2))).toThrow(/^Not a Gemini CLI session record/);
    expect(() => readGemini('[\n1\n]')).toThrow(/^Expected a Gemini CLI session: a JSON object/);
  });
});
