import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readCodex } from './codex';

/**
 * Rollout items the real Codex rollout does not hold (images, local shell calls, failed searches,
 * older output shapes, developer notes…). Each test appends lines, shaped as Codex writes them,
 * to the real rollout; an appended line k (1-based) becomes entry `codex-<lines + k>`.
 */
const text = readFixture('codexRollout');
const lines = text.trimEnd().split('\n');
const ts = (JSON.parse(lines.at(-1)!) as Raw).timestamp as string;
const id = (k: number) => `codex-${lines.length + k}`;

const item = (payload: Raw) => ({ timestamp: ts, type: 'response_item', payload });
const event = (payload: Raw) => ({ timestamp: ts, type: 'event_msg', payload });
const prompt = (t: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] });
const appended = (added: Raw[]) => `${text.trimEnd()}\n${added.map((r) => JSON.stringify(r)).join('\n')}\n`;
const read = (added: Raw[]) => readCodex(appended(added)).sessions[0]!;
const entry = (entries: SessionEntry[], entryId: string) => entries.find((e) => e.id === entryId)!;

describe('Codex rollout items', () => {
  it('a prompt keeps its images, inline or linked', () => {
    const s = read([item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is on screen?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }, { type: 'input_image', image_url: 'https://img.example/s.png' }, { type: 'input_image' }, { type: 'text' }, { type: 'input_file' }, 7] })]);
    expectWellFormed(s);
    expect(entry(s.entries, id(1))).toMatchObject({
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on screen?' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'image', mimeType: 'image/*', url: 'https://img.example/s.png' },
          { type: 'image', mimeType: 'image/*', url: '' },
          { type: 'text', text: '' },
        ],
      },
    });
    const e = entry(s.entries, id(1));
    expect(e.type === 'message' && e.message.content).toHaveLength(5);
  });

  it('reads every kind of call and its arguments, and pairs each output with its call', () => {
    const s = read([
      prompt('go'),
      item({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Plan: list files.' }] }),
      item({ type: 'function_call', call_id: 'f1', name: 'shell', arguments: { command: ['ls'] } }),
      item({ type: 'function_call', call_id: 'f2', name: 'shell', arguments: '[1, 2]' }),
      item({ type: 'function_call', call_id: 'f3', name: 'shell', arguments: 'ls -la' }),
      item({ type: 'function_call', id: 'f4' }),
      item({ type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch' }),
      item({ type: 'local_shell_call', call_id: 'l1', action: { type: 'exec', command: ['pwd'] } }),
      item({ type: 'local_shell_call' }),
      item({ type: 'function_call_output', call_id: 'f1', output: JSON.stringify({ content: 'a.ts', success: false }) }),
      item({ type: 'function_call_output', call_id: 'f2', output: '{not json' }),
      item({ type: 'function_call_output', call_id: 'f3', output: { lines: 2 } }),
      item({ type: 'function_call_output', call_id: 'f4', output: JSON.stringify({ output: 'ok', metadata: { exit_code: 0 } }) }),
      item({ type: 'custom_tool_call_output', call_id: 'c1', output: JSON.stringify({ metadata: { exit_code: 1 } }) }),
      item({ type: 'function_call_output', call_id: 'l1', output: 42 }),
      item({ type: 'function_call_output', output: 'orphan' }),
    ]);
    expectWellFormed(s);
    const reply = entry(s.entries, id(2));
    expect(reply).toMatchObject({
      message: {
        role: 'assistant',
        stopReason: 'toolUse',
        content: [
          { type: 'thinking', thinking: 'Plan: list files.' },
          { type: 'toolCall', id: 'f1', name: 'shell', arguments: { command: ['ls'] } },
          { type: 'toolCall', id: 'f2', name: 'shell', arguments: { input: '[1, 2]' } },
          { type: 'toolCall', id: 'f3', name: 'shell', arguments: { input: 'ls -la' } },
          { type: 'toolCall', id: 'f4', name: 'unknown', arguments: { input: null } },
          { type: 'toolCall', id: 'c1', name: 'apply_patch', arguments: { input: null } },
          { type: 'toolCall', id: 'l1', name: 'local_shell', arguments: { type: 'exec', command: ['pwd'] } },
          { type: 'toolCall', id: id(9), name: 'local_shell', arguments: {} },
        ],
      },
    });
    const result = (k: number) => entry(s.entries, id(k));
    expect(result(10)).toMatchObject({ message: { role: 'toolResult', toolCallId: 'f1', toolName: 'shell', isError: true, content: [{ type: 'text', text: 'a.ts' }] } });
    expect(result(11)).toMatchObject({ message: { toolCallId: 'f2', isError: false, content: [{ type: 'text', text: '{not json' }] } });
    expect(result(12)).toMatchObject({ message: { toolCallId: 'f3', isError: false, content: [{ type: 'text', text: JSON.stringify({ lines: 2 }, null, 2) }] } });
    expect(result(13)).toMatchObject({ message: { toolCallId: 'f4', toolName: 'unknown', isError: false, content: [{ type: 'text', text: 'ok' }] } });
    expect(result(14)).toMatchObject({ message: { toolCallId: 'c1', toolName: 'apply_patch', isError: true, content: [{ type: 'text', text: JSON.stringify({ metadata: { exit_code: 1 } }) }] } });
    expect(result(15)).toMatchObject({ message: { toolCallId: 'l1', toolName: 'local_shell', content: [{ type: 'text', text: '42' }] } });
    expect(result(16)).toMatchObject({ message: { toolCallId: '', toolName: 'unknown', content: [{ type: 'text', text: 'orphan' }] } });
  });

  it('a search writes what Codex knows of it: run or failed, with or without its query; reasoning without text is redacted', () => {
    const s = read([prompt('look it up'), item({ type: 'reasoning' }), item({ type: 'web_search_call', status: 'failed', action: { type: 'search', query: 'tide Brest' } }), item({ type: 'web_search_call', id: 'ws_2' })]);
    expectWellFormed(s);
    expect(expectToolResultsPaired(s)).toBeGreaterThan(0);
    expect(entry(s.entries, id(2))).toMatchObject({ message: { content: [{ type: 'thinking', thinking: '', redacted: true }, { type: 'toolCall', id: `${id(3)}:search`, name: 'web_search', arguments: { type: 'search', query: 'tide Brest' } }, { type: 'toolCall', id: 'ws_2', arguments: {} }] } });
    expect(entry(s.entries, `${id(2)}:answer1`)).toMatchObject({ message: { toolCallId: `${id(3)}:search`, isError: true, content: [{ type: 'text', text: 'Web search failed for "tide Brest"; Codex does not record the results in its rollout.' }] } });
    expect(entry(s.entries, `${id(2)}:answer2`)).toMatchObject({ message: { toolCallId: 'ws_2', isError: false, content: [{ type: 'text', text: 'Web search run; Codex does not record the results in its rollout.' }] } });
  });

  it('developer and unknown messages and items are notes; an aborted turn without a reply is a note', () => {
    const s = read([
      prompt('next'),
      item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: read-only' }] }),
      item({ type: 'message', content: [] }),
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }] }),
      item({ type: 'ghost_snapshot', ghost_commit: {} }),
      event({ type: 'turn_aborted', reason: 'interrupted' }),
      event({ type: 'turn_aborted' }),
    ]);
    expect(entry(s.entries, id(2))).toMatchObject({ type: 'custom', customType: 'codex:developer', display: 'Codex context: developer instructions' });
    expect(entry(s.entries, id(3))).toMatchObject({ type: 'custom', customType: 'codex:message', display: 'Codex context: unknown instructions' });
    expect(entry(s.entries, id(4))).toMatchObject({ type: 'custom', customType: 'codex:context', display: 'Codex context: environment_context' });
    expect(entry(s.entries, id(5))).toMatchObject({ type: 'custom', customType: 'codex:ghost_snapshot', display: 'Codex ghost_snapshot record' });
    expect(entry(s.entries, id(6))).toMatchObject({ type: 'custom', customType: 'codex:turn_aborted', display: 'Turn aborted (interrupted)' });
    expect(entry(s.entries, id(7))).toMatchObject({ display: 'Turn aborted' });
  });

  it('a failed patch marks its result an error; usage with cached input counts cache reads apart; a second count does not replace the first', () => {
    const s = read([
      prompt('patch it'),
      item({ type: 'custom_tool_call', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch' }),
      event({ type: 'token_count', info: { last_token_usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 50 } } }),
      event({ type: 'token_count', info: { last_token_usage: { input_tokens: 1, output_tokens: 1 } } }),
      event({ type: 'token_count', info: null }),
      item({ type: 'custom_tool_call_output', call_id: 'p1', output: 'Done' }),
      event({ type: 'patch_apply_end', call_id: 'p1', success: false }),
      event({ type: 'exec_command_end', exit_code: 1 }),
    ]);
    expect(entry(s.entries, id(2))).toMatchObject({ message: { usage: { input: 200, output: 50, cacheRead: 800, totalTokens: 1050 } } });
    expect(entry(s.entries, id(6))).toMatchObject({ message: { toolCallId: 'p1', isError: true } });
  });

  it('reads the provider and instructions of the session meta in their other shapes', () => {
    const meta = JSON.parse(lines[0]!) as Raw & { payload: Raw };
    const edit = (payload: Raw) => [JSON.stringify({ ...meta, payload: { ...meta.payload, ...payload } }), ...lines.slice(1)].join('\n');
    const a = readCodex(edit({ base_instructions: 'Plain instructions', model_provider: 'azure' })).sessions[0]!;
    expect(a.meta.systemPrompt).toBe('Plain instructions');
    expect(a.meta.model?.startsWith('azure:')).toBe(true);
    const b = readCodex(edit({ instructions: 'Older field' })).sessions[0]!;
    expect(b.meta.systemPrompt).toBe('Older field');
  });

  it('refuses a record without a type, or a rollout without messages', () => {
    expect(() => readCodex(appended([{ timestamp: ts, payload: {} }]))).toThrow(ImportError);
    expect(() => readCodex(appended([{ timestamp: ts, payload: {} }]))).toThrow(new RegExp(`^Line ${lines.length + 1}: a record without a "type"$`));
    expect(() => readCodex(appended([{ timestamp: ts, what: 1 }]))).toThrow(new RegExp(`^Line ${lines.length + 1}: not a Codex rollout record \\(no "type" or "payload"\\)$`));
    expect(readCodex(appended([{ timestamp: ts, type: 'future_record', payload: {} }, { record_type: 'state' }])).sessions[0]!.entries).toHaveLength(read([]).entries.length);
    expect(() => readCodex(`${lines[0]!}\n`)).toThrow(/^The rollout holds no messages\.$/);
  });
});
