import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, rawRecords, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readPi } from './pi';

/**
 * pi records and message shapes the real v1 session does not hold (shell commands kept out of the
 * context, extension messages, aborted replies, compactions keeping from odd places…). Each test
 * appends records, with ids so they can be found, to the real session file.
 */
const text = readFixture('piV1');
const lines = text.trimEnd().split('\n');
const header = JSON.parse(lines[0]!) as Raw;
const firstUser = rawRecords(text)
  .map((r) => r.rec)
  .find((r) => r.type === 'message' && (r.message as Raw).role === 'user')!;
const ts = '2025-12-24T13:00:00.000Z';

const appended = (records: Raw[]) => `${text.trimEnd()}\n${records.map((r) => JSON.stringify({ timestamp: ts, ...r })).join('\n')}\n`;
const read = (records: Raw[]) => readPi(appended(records));
const msg = (id: string, message: Raw) => ({ type: 'message', id, message });
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;
const textOf = (e: SessionEntry) => (e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : null);

describe('pi records', () => {
  it('reads message content of every kind, with the defaults pi leaves out', () => {
    const r = read([
      msg('u', { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, { type: 'image' }, { type: 'text' }, { type: 'audio' }] }),
      msg('a', {
        role: 'assistant',
        model: 'local-model',
        stopReason: 'aborted',
        errorMessage: 'Request was aborted',
        usage: { output: 7, cacheWrite: 3 },
        content: [{ type: 'thinking', thinking: '', redacted: true }, { type: 'toolCall', arguments: 'ls' }, { type: 'toolCall', id: 'c2', name: 'read' }, { type: 'image', data: 'x' }, { type: 'text' }, { type: 'thinking' }],
      }),
      msg('t', { role: 'toolResult', content: [{ type: 'text', text: 'out' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }),
      msg('c', { role: 'custom', customType: 'note', content: 'from an extension' }),
      msg('h', { role: 'hookMessage', content: [{ type: 'text', text: 'from a hook' }] }),
      msg('x', { role: 'branchSummary', summary: 'elsewhere' }),
    ]);
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'u')).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] } });
    expect(entry(s.entries, 'u').type === 'message' && (entry(s.entries, 'u') as Extract<SessionEntry, { type: 'message' }>).message.content).toHaveLength(2);
    expect(entry(s.entries, 'a')).toMatchObject({
      message: {
        role: 'assistant',
        model: 'local-model',
        stopReason: 'aborted',
        errorMessage: 'Request was aborted',
        usage: { input: 0, output: 7, cacheWrite: 3 },
        content: [{ type: 'thinking', thinking: '', redacted: true }, { type: 'toolCall', id: '', name: 'unknown', arguments: { value: 'ls' } }, { type: 'toolCall', id: 'c2', name: 'read', arguments: {} }, { type: 'text', text: '[image]' }],
      },
    });
    const a = entry(s.entries, 'a');
    expect(a.type === 'message' && a.message.content).toHaveLength(4);
    expect(entry(s.entries, 't')).toMatchObject({ message: { role: 'toolResult', toolCallId: '', toolName: 'unknown', isError: false, content: [{ type: 'text', text: 'out' }, { type: 'image', mimeType: 'image/png' }] } });
    expect(entry(s.entries, 'c')).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: 'from an extension' }] } });
    expect(entry(s.entries, 'h')).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: 'from a hook' }] } });
    expect(entry(s.entries, 'x')).toMatchObject({ type: 'custom', customType: 'pi:message:branchSummary', display: 'branchSummary message' });
    // A reply naming no model leaves the session's model as the file had it.
    expect(s.meta.model).toBe('local-model');
  });

  it('writes a shell command the user ran with what became of it; one kept out of the context is a note', () => {
    const s = read([
      msg('b1', { role: 'bashExecution', command: 'make', output: '', exitCode: 2, truncated: true }),
      msg('b2', { role: 'bashExecution', command: 'sleep 100', output: 'zz', cancelled: true, exitCode: 130 }),
      msg('b3', { role: 'bashExecution', command: 'git status', output: 'clean', exitCode: 0, excludeFromContext: true }),
      msg('b4', { role: 'bashExecution' }),
    ]).sessions[0]!;
    expect(textOf(entry(s.entries, 'b1'))).toBe('[Shell command run by the user]\n$ make\n(no output)\nExit code: 2\n(output truncated)');
    expect(textOf(entry(s.entries, 'b2'))).toBe('[Shell command run by the user]\n$ sleep 100\nOutput:\nzz\n(command cancelled)');
    expect(entry(s.entries, 'b3')).toMatchObject({ type: 'custom', customType: 'pi:bashExecution', display: '$ git status' });
    expect(textOf(entry(s.entries, 'b4'))).toBe('[Shell command run by the user]\n$ \n(no output)');
  });

  it('reads the other record kinds with their defaults', () => {
    const s = read([
      { type: 'branch_summary', id: 'bs', summary: 'Tried another way.', details: { readFiles: ['a.ts', 3], modifiedFiles: 'none' } },
      { type: 'branch_summary', id: 'bs2' },
      { type: 'model_change', id: 'mc', modelId: 'gpt-5' },
      { type: 'model_change', id: 'mc2', provider: 'openai', model: 'gpt-5-mini' },
      { type: 'model_change', id: 'mc3' },
      { type: 'label', id: 'lb' },
      { type: 'thinking_level_change', id: 'tl', thinkingLevel: 'high' },
      { type: 'session_info', id: 'si' },
      { type: 'custom', id: 'cu', data: { x: 1 } },
      { type: 'custom_message', id: 'cm', content: [{ type: 'text', text: 'injected' }] },
      { type: 'future_kind', id: 'fk', extra: true },
    ]).sessions[0]!;
    const prev = (id: string) => s.entries[s.entries.findIndex((e) => e.id === id) - 1]!.id;
    expect(entry(s.entries, 'bs')).toMatchObject({ type: 'branch_summary', fromId: prev('bs'), summary: 'Tried another way.', details: { readFiles: ['a.ts'], modifiedFiles: [], summarizer: { kind: 'imported', source: 'pi' } } });
    expect(entry(s.entries, 'bs2')).toMatchObject({ type: 'branch_summary', fromId: 'bs', summary: '' });
    expect(entry(s.entries, 'mc')).toMatchObject({ type: 'model_change', model: 'gpt-5' });
    expect(entry(s.entries, 'mc2')).toMatchObject({ type: 'model_change', model: 'openai:gpt-5-mini' });
    expect(entry(s.entries, 'mc3')).toMatchObject({ type: 'model_change', model: 'unknown' });
    expect(entry(s.entries, 'lb')).toMatchObject({ type: 'label', targetId: '', label: null });
    expect(entry(s.entries, 'tl')).toMatchObject({ type: 'custom', display: 'Thinking level: high' });
    expect(entry(s.entries, 'si')).toMatchObject({ type: 'custom', customType: 'pi:session_info', display: 'Session info' });
    expect(entry(s.entries, 'cu')).toMatchObject({ type: 'custom', customType: 'pi:unknown', data: { x: 1 }, display: 'Extension data (unknown)' });
    expect(entry(s.entries, 'cm')).toMatchObject({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'injected' }] } });
    expect(entry(s.entries, 'fk')).toMatchObject({ type: 'custom', customType: 'pi:future_kind', data: { extra: true }, display: 'pi future_kind record' });
    expect(s.meta.model).toBe('unknown');
    expect(s.meta.leafId).toBe('fk');
  });

  it('a compaction keeping from the start, from a record not in the file, or naming nothing, says so', () => {
    const r = read([
      { type: 'compaction', id: 'k0', summary: 'all', firstKeptEntryIndex: 0, tokensBefore: 10 },
      { type: 'compaction', id: 'k9', summary: 'lost', firstKeptEntryIndex: 99999 },
      { type: 'compaction', id: 'kn', summary: 'none' },
    ]);
    const s = r.sessions[0]!;
    expect(entry(s.entries, 'k0')).toMatchObject({ type: 'compaction', firstKeptEntryId: s.entries[0]!.id, tokensBefore: 10 });
    expect(entry(s.entries, 'k9')).toMatchObject({ type: 'compaction', firstKeptEntryId: 'k9', tokensBefore: 0 });
    expect(entry(s.entries, 'kn')).toMatchObject({ type: 'compaction', firstKeptEntryId: 'kn' });
    const at = lines.length + 1;
    expect(r.warnings.filter((w) => !w.startsWith('Line 1013:'))).toEqual([
      `Line ${at + 2}: compaction names no first kept entry; treated as keeping nothing before it.`,
      `Line ${at + 1}: compaction keeps from record 99999, which is not in the file; treated as keeping nothing before it.`,
    ]);
  });

  it('takes the model from the header when no reply names one, and warns about a newer format version', () => {
    const small = [{ ...header, version: 4, provider: 'anthropic', modelId: 'claude-x' }, { ...firstUser, id: 'u1', parentId: null }].map((r) => JSON.stringify(r)).join('\n');
    const r = readPi(small);
    expect(r.sessions[0]!.meta.model).toBe('anthropic:claude-x');
    expect(r.warnings).toEqual(['pi session format version 4 is newer than the versions this app knows (1–3); read as version 3.']);
    const bare = [{ ...header, modelId: 'm' }, firstUser].map((x) => JSON.stringify(x)).join('\n');
    expect(readPi(bare).sessions[0]!.meta.model).toBe('m');
  });

  it('refuses damaged records, naming the line', () => {
    const at = lines.length + 1;
    const refusal = (records: Raw[]) => () => read(records);
    expect(refusal([msg('m', { content: 'x' })])).toThrow(ImportError);
    expect(refusal([msg('m', { content: 'x' })])).toThrow(new RegExp(`^Line ${at}: message without a role$`));
    expect(refusal([{ type: 'message', id: 'm' }])).toThrow(new RegExp(`^Line ${at}: message record without a message object$`));
    expect(refusal([{ type: 'compaction', id: 'k' }])).toThrow(new RegExp(`^Line ${at}: compaction record without a summary$`));
    expect(refusal([{ id: 'n' }])).toThrow(new RegExp(`^Line ${at}: record without a "type"$`));
    expect(refusal([header])).toThrow(new RegExp(`^Line ${at}: a second session header in the same file$`));
    expect(() => readPi('')).toThrow(ImportError);
  });
});
