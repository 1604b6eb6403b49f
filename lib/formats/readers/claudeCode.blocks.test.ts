import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readClaudeCode } from './claudeCode';

/**
 * Content blocks and line kinds Claude Code writes that the real transcripts here do not hold
 * (documents, image links, server tools, refusals, API errors, stderr output, summaries…). Each
 * test continues the real claude-code-log transcript with lines shaped as Claude Code writes them.
 */
const realText = readFixture('claudeLog');
const realLines = realText.trim().split('\n').map((l) => JSON.parse(l) as Raw);
const lastMain = realLines.filter((r) => typeof r.uuid === 'string' && r.isSidechain !== true).at(-1)!;
const common = { isSidechain: false, userType: 'external', cwd: lastMain.cwd, sessionId: lastMain.sessionId, version: lastMain.version };
let clock = Date.parse(lastMain.timestamp as string);

/** Lines chained one after the other below the transcript's last line (each its own parentUuid unless given). */
function continued(lines: Raw[]): string {
  let parent = lastMain.uuid as string;
  const out = lines.map((l) => {
    const rec: Raw = { ...common, parentUuid: parent, timestamp: new Date((clock += 1000)).toISOString(), ...l };
    if (typeof rec.uuid === 'string') parent = rec.uuid;
    return JSON.stringify(rec);
  });
  return `${realText.trimEnd()}\n${out.join('\n')}\n`;
}
const user = (uuid: string, content: unknown, extra: Raw = {}) => ({ type: 'user', uuid, message: { role: 'user', content }, ...extra });
const assistant = (uuid: string, message: Raw, extra: Raw = {}) => ({ type: 'assistant', uuid, message: { role: 'assistant', type: 'message', ...message }, ...extra });
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;
const contentOf = (e: SessionEntry) => (e.type === 'message' ? e.message.content : null);

describe('Claude Code content blocks', () => {
  it('a prompt keeps linked images and documents; an image it cannot read is a placeholder', () => {
    const r = readClaudeCode(
      continued([
        user('u1', [
          { type: 'text', text: 'See these.' },
          { type: 'image', source: { type: 'url', url: 'https://img.example/a.png' } },
          { type: 'image', source: { type: 'url', url: 'https://img.example/b.webp', media_type: 'image/webp' } },
          { type: 'image', source: { type: 'file', file_id: 'file_1' } },
          { type: 'image' },
          { type: 'document', title: 'notes.txt', source: { type: 'text', media_type: 'text/plain', data: 'hello' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } },
          { type: 'document' },
          { type: 'container_upload', file_id: 'f2' },
          { type: 'text' },
        ]),
      ]),
    );
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(contentOf(entry(s.entries, 'u1'))).toEqual([
      { type: 'text', text: 'See these.' },
      { type: 'image', mimeType: 'image/*', url: 'https://img.example/a.png' },
      { type: 'image', mimeType: 'image/webp', url: 'https://img.example/b.webp' },
      { type: 'text', text: '[image]' },
      { type: 'text', text: '[image]' },
      { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: 5, text: 'hello' },
      { type: 'file', name: 'document', mimeType: 'application/pdf', byteLength: 6 },
      { type: 'file', name: 'document', mimeType: 'application/octet-stream', byteLength: 0 },
      { type: 'text', text: `[container_upload] ${JSON.stringify({ type: 'container_upload', file_id: 'f2' }, null, 2)}` },
      { type: 'text', text: '' },
    ]);
    expect(s.meta.leafId).toBe('u1');
  });

  it('a reply keeps redacted thinking, server tools, unknown blocks, and calls whose input is not an object', () => {
    const s = readClaudeCode(
      continued([
        assistant('a1', {
          id: 'msg_x1',
          model: 'claude-sonnet-4-5',
          stop_reason: 'tool_use',
          content: [
            { type: 'redacted_thinking', data: 'EqQB' },
            { type: 'thinking' },
            { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'tides' } },
            { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [] },
            { type: 'tool_use', id: 'tu_1', name: 'Bash', input: 'ls' },
            { type: 'tool_use', input: null },
            { type: 'text' },
          ],
          usage: { output_tokens: 12 },
        }),
        user('r1', [
          { type: 'tool_result', tool_use_id: 'tu_1', content: [{ type: 'document', title: 'out.txt', source: { type: 'text', data: 'a\nb' } }, { type: 'document', title: 'blob.bin', source: { type: 'base64', data: 'AAAA' } }] },
          { type: 'tool_result', content: 'no id' },
        ]),
      ]),
    ).sessions[0]!;
    expect(contentOf(entry(s.entries, 'a1'))).toEqual([
      { type: 'thinking', thinking: '', redacted: true },
      { type: 'thinking', thinking: '' },
      { type: 'toolCall', id: 'srv_1', name: 'web_search', arguments: { query: 'tides' } },
      { type: 'text', text: `[web_search_tool_result] ${JSON.stringify({ type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [] }, null, 2)}` },
      { type: 'toolCall', id: 'tu_1', name: 'Bash', arguments: { input: 'ls' } },
      { type: 'toolCall', id: '', name: 'unknown', arguments: { input: null } },
      { type: 'text', text: '' },
    ]);
    expect(entry(s.entries, 'a1')).toMatchObject({ message: { model: 'anthropic:claude-sonnet-4-5', stopReason: 'toolUse', usage: { input: 0, output: 12, totalTokens: 12 } } });
    expect(entry(s.entries, 'r1:1')).toMatchObject({ message: { role: 'toolResult', toolCallId: 'tu_1', toolName: 'Bash', content: [{ type: 'text', text: 'a\nb' }, { type: 'text', text: '[blob.bin]' }] } });
    // A result without a call id answers the unnamed call.
    expect(entry(s.entries, 'r1')).toMatchObject({ message: { role: 'toolResult', toolCallId: '', toolName: 'unknown', content: [{ type: 'text', text: 'no id' }] } });
    expect(s.meta.model).toBe('anthropic:claude-sonnet-4-5');
  });

  it('reads stop reasons, refusals, API errors and cache usage; a synthetic reply does not name the model', () => {
    const s = readClaudeCode(
      continued([
        assistant('len', { id: 'm1', model: 'claude-opus-4', stop_reason: 'max_tokens', content: [{ type: 'text', text: 'cut' }], usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 } }),
        assistant('pause', { id: 'm2', model: 'claude-opus-4', stop_reason: 'pause_turn', content: [{ type: 'text', text: 'x' }], usage: { cache_read_input_tokens: 3 } }),
        assistant('ref', { id: 'm3', model: 'claude-opus-4', stop_reason: 'refusal', content: [{ type: 'text', text: 'no' }] }),
        assistant('api', { id: 'm4', model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] }, { isApiErrorMessage: true }),
        assistant('api2', { id: 'm5', model: '<synthetic>', content: [] }, { isApiErrorMessage: true }),
        assistant('odd', { content: 'plain string reply', stop_reason: 'weird' }),
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'len')).toMatchObject({ message: { stopReason: 'length', usage: { input: 10, output: 5, cacheRead: 100, cacheWrite: 20, totalTokens: 135 } } });
    const pause = entry(s.entries, 'pause');
    expect(pause).toMatchObject({ message: { stopReason: 'stop' } });
    expect(pause.type === 'message' && pause.message.role === 'assistant' && pause.message.usage).toBeUndefined();
    expect(entry(s.entries, 'ref')).toMatchObject({ message: { stopReason: 'error' } });
    expect(entry(s.entries, 'api')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'API Error: 529 Overloaded', model: 'anthropic:<synthetic>' } });
    expect(entry(s.entries, 'api2')).toMatchObject({ message: { stopReason: 'error', errorMessage: 'API error' } });
    const odd = entry(s.entries, 'odd');
    expect(odd).toMatchObject({ message: { content: [{ type: 'text', text: 'plain string reply' }] } });
    expect(odd.type === 'message' && odd.message.role === 'assistant' && odd.message.stopReason).toBeUndefined();
    expect(s.meta.model).toBe('anthropic:claude-opus-4');
  });

  it('a system line shows its content, else its subtype, else "system"; stderr output is a note', () => {
    const s = readClaudeCode(
      continued([
        { type: 'system', uuid: 's1', subtype: 'informational', level: 'info' },
        { type: 'system', uuid: 's2' },
        { type: 'system', uuid: 's3', content: '\u001b[1mRunning hook\u001b[22m', toolUseID: 'tu_9' },
        user('e1', '<local-command-stderr>\u001b[31mboom\u001b[39m</local-command-stderr>'),
        user('e2', '<local-command-stdout></local-command-stdout>'),
        user('c1', '<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>'),
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 's1')).toMatchObject({ type: 'custom', customType: 'claude-code:system:informational', display: 'informational', data: { subtype: 'informational', level: 'info' } });
    expect(entry(s.entries, 's2')).toMatchObject({ type: 'custom', customType: 'claude-code:system', display: 'system' });
    expect(entry(s.entries, 's3')).toMatchObject({ display: 'Running hook', data: { toolUseID: 'tu_9' } });
    expect(entry(s.entries, 'e1')).toMatchObject({ type: 'custom', customType: 'claude-code:note', display: 'Command error: boom' });
    expect(entry(s.entries, 'e2')).toMatchObject({ display: 'Command output: (none)' });
    expect(entry(s.entries, 'c1')).toMatchObject({ display: '/compact' });
  });

  it('a compact boundary without its summary line, or at the end of the file, is still a compaction', () => {
    const s = readClaudeCode(
      continued([
        { type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, logicalParentUuid: lastMain.uuid, content: 'Conversation \u001b[2mcompacted\u001b[22m', compactMetadata: { trigger: 'manual', preTokens: 150000 } },
        user('after', 'next question'),
        { type: 'system', subtype: 'compact_boundary', uuid: 'b2', parentUuid: null, logicalParentUuid: 'after' },
      ]),
    ).sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'b1')).toMatchObject({ type: 'compaction', parentId: lastMain.uuid, summary: 'Conversation compacted', tokensBefore: 150000, firstKeptEntryId: 'b1' });
    expect(entry(s.entries, 'b2')).toMatchObject({ type: 'compaction', parentId: 'after', summary: 'Conversation compacted', tokensBefore: 0, firstKeptEntryId: 'b2' });
    expect(s.meta.leafId).toBe('b2');
  });

  it('a compact summary without a boundary line (an older file) is a compaction itself', () => {
    const s = readClaudeCode(continued([user('cs', [{ type: 'text', text: 'Summary of before.' }], { isCompactSummary: true }), user('q', 'go on')])).sessions[0]!;
    expect(entry(s.entries, 'cs')).toMatchObject({ type: 'compaction', parentId: lastMain.uuid, summary: 'Summary of before.', tokensBefore: 0, firstKeptEntryId: 'cs' });
  });

  it('a summary line names the session only when its leaf is a line of this session; the others title sessions elsewhere', () => {
    const title = (lines: Raw[]) => readClaudeCode(continued(lines)).sessions[0]!.meta.title;
    expect(title([{ type: 'summary', summary: 'Elsewhere', leafUuid: 'not-here' }, { type: 'summary', summary: 'MCP setup check', leafUuid: lastMain.uuid }])).toBe('MCP setup check');
    const untitled = title([]);
    expect(title([{ type: 'summary', summary: 'First named', leafUuid: 'not-here' }, { type: 'summary', summary: 'Second' }])).toBe(untitled);
    // A leaf in the file but of another session (the tail of a resumed session the file opens with) is that session's.
    expect(title([user('other', 'x', { sessionId: 'another-session' }), { type: 'summary', summary: 'Other session', leafUuid: 'other' }, user('mine', 'y')])).toBe(untitled);
    expect(title([{ type: 'summary' }])).not.toBe('');
  });

  it('refuses a user or assistant line without a message, and a file with no message, naming the line', () => {
    const lineNo = realLines.length + 1;
    expect(() => readClaudeCode(continued([{ type: 'user', uuid: 'x' }]))).toThrow(ImportError);
    expect(() => readClaudeCode(continued([{ type: 'user', uuid: 'x' }]))).toThrow(new RegExp(`^Line ${lineNo}: user line without a message object$`));
    expect(() => readClaudeCode(continued([{ type: 'assistant', uuid: 'x', message: 'text' }]))).toThrow(new RegExp(`^Line ${lineNo}: assistant line without a message object$`));
    expect(() => readClaudeCode(`${JSON.stringify({ type: 'summary', summary: 's', leafUuid: 'l' })}\n`)).toThrow(/^The transcript holds no messages\.$/);
  });
});
