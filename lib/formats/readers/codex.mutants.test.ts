import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readCodex } from './codex';

/**
 * Properties of the Codex reader that the first mutation run found unstated (issue 18): the real
 * calls' JSON arguments, outputs that are JSON but not objects, usage with one side missing, notes
 * in the middle of a response, reasoning in several parts, the legacy rollout without envelopes,
 * dates, and the format named by errors. Each test appends lines, shaped as Codex writes them, to
 * the real rollout (line k appended becomes entry `codex-<lines + k>`), or edits its lines.
 */
const text = readFixture('codexRollout');
const lines = text.trimEnd().split('\n');
const records = lines.map((l) => JSON.parse(l) as Raw & { payload?: Raw });
const ts = records.at(-1)!.timestamp as string;
const id = (k: number) => `codex-${lines.length + k}`;

const item = (payload: Raw) => ({ timestamp: ts, type: 'response_item', payload });
const event = (payload: Raw) => ({ timestamp: ts, type: 'event_msg', payload });
const prompt = (t: string) => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] });
const says = (t: string) => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t }] });
const appended = (added: Raw[]) => `${text.trimEnd()}\n${added.map((r) => JSON.stringify(r)).join('\n')}\n`;
const read = (added: Raw[]) => readCodex(appended(added)).sessions[0]!;
const entry = (entries: SessionEntry[], entryId: string) => entries.find((e) => e.id === entryId)!;

describe('Codex reader: calls and outputs', () => {
  it('parses the JSON arguments of every real function call into an object', () => {
    const s = readCodex(text).sessions[0]!;
    const calls = new Map(s.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content : [])).flatMap((p) => (p.type === 'toolCall' ? [[p.id, p.arguments] as const] : [])));
    const raw = records.filter((r) => r.payload?.type === 'function_call').map((r) => r.payload!);
    expect(raw.length).toBeGreaterThan(0);
    for (const p of raw) expect(calls.get(p.call_id as string)).toEqual(JSON.parse(p.arguments as string));
  });

  it('keeps an output that is JSON but not an object as written', () => {
    const s = read([prompt('go'), item({ type: 'function_call', call_id: 'j1', name: 'shell', arguments: '{}' }), item({ type: 'function_call_output', call_id: 'j1', output: '[1, 2]' }), item({ type: 'function_call', call_id: 'j2', name: 'shell', arguments: '{}' }), item({ type: 'function_call_output', call_id: 'j2', output: '"quoted"' })]);
    expect(entry(s.entries, id(3))).toMatchObject({ message: { role: 'toolResult', toolCallId: 'j1', content: [{ type: 'text', text: '[1, 2]' }] } });
    expect(entry(s.entries, id(5))).toMatchObject({ message: { role: 'toolResult', toolCallId: 'j2', content: [{ type: 'text', text: '"quoted"' }] } });
  });

  it('answers a web search under the tool name web_search', () => {
    const s = read([prompt('look'), item({ type: 'web_search_call', id: 'ws', status: 'completed', action: { type: 'search', query: 'tides' } })]);
    expect(entry(s.entries, `${id(2)}:answer1`)).toMatchObject({ message: { role: 'toolResult', toolCallId: 'ws', toolName: 'web_search' } });
  });
});

describe('Codex reader: replies', () => {
  it('a reply keeps the content items that have text only; reasoning in several parts is joined by blank lines', () => {
    const s = read([
      prompt('think'),
      item({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'First.' }, { type: 'summary_text', text: 'Second.' }] }),
      item({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'One.' }, { type: 'reasoning_text', text: 'Two.' }] }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }, { type: 'refusal' }] }),
    ]);
    const reply = entry(s.entries, id(2));
    expect(reply.type === 'message' && reply.message.content).toEqual([
      { type: 'thinking', thinking: 'First.\n\nSecond.' },
      { type: 'thinking', thinking: 'One.\n\nTwo.' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('a note inside a response comes after the response, which stays one entry', () => {
    const s = read([prompt('work'), says('Starting.'), item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox changed' }] }), says('Continuing.')]);
    expectWellFormed(s);
    expect(entry(s.entries, id(2)).parentId).toBe(id(1));
    expect(entry(s.entries, id(3))).toMatchObject({ type: 'custom', customType: 'codex:developer', parentId: id(2) });
    expect(entry(s.entries, id(4)).parentId).toBe(id(3));
  });

  it('context Codex injects is a note even after leading blank lines', () => {
    const s = read([item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '\n\n  <environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }] })]);
    expect(entry(s.entries, id(1))).toMatchObject({ type: 'custom', customType: 'codex:context' });
  });

  it('reads usage that gives only one side, and takes none from a count without figures', () => {
    const s = read([
      prompt('a'),
      says('One.'),
      event({ type: 'token_count', info: { last_token_usage: {} } }),
      event({ type: 'token_count', info: { last_token_usage: { output_tokens: 7 } } }),
      prompt('b'),
      says('Two.'),
      event({ type: 'token_count', info: { last_token_usage: { input_tokens: 9 } } }),
    ]);
    const usage = (k: number) => {
      const e = entry(s.entries, id(k));
      return e.type === 'message' && e.message.role === 'assistant' ? e.message.usage : null;
    };
    expect(usage(2)).toEqual({ input: 0, output: 7, totalTokens: 7 });
    expect(usage(6)).toEqual({ input: 9, output: 0, totalTokens: 9 });
  });

  it('a turn context without a model changes nothing; a compaction without a message has an empty summary', () => {
    const before = readCodex(text).sessions[0]!;
    const s = read([{ timestamp: ts, type: 'turn_context', payload: { cwd: '/w' } }, prompt('more'), { timestamp: ts, type: 'compacted', payload: { replacement_history: [] } }, prompt('after')]);
    expect(s.meta.model).toBe(before.meta.model);
    expect(s.entries.filter((e) => e.type === 'model_change')).toHaveLength(before.entries.filter((e) => e.type === 'model_change').length);
    expect(entry(s.entries, id(3))).toMatchObject({ type: 'compaction', summary: '', firstKeptEntryId: id(3) });
  });
});

describe('Codex reader: session meta, dates, legacy rollouts', () => {
  const meta = records[0]!.payload!;
  const withMeta = (payload: Raw, strip: (r: Raw) => Raw = (r) => r) => [JSON.stringify(strip({ ...records[0]!, payload })), ...records.slice(1).map((r) => JSON.stringify(strip(r)))].join('\n');

  it('names the model by the provider openai when the session meta names none', () => {
    const { model_provider: _p, ...rest } = meta;
    const turn = records.find((r) => r.type === 'turn_context')!.payload!;
    expect(readCodex(withMeta(rest)).sessions[0]!.meta.model).toBe(`openai:${turn.model as string}`);
  });

  it('is undated only when neither the records nor the session meta have a time', () => {
    const importedAt = Date.parse('2030-01-01T00:00:00Z');
    const noTime = ({ timestamp: _t, ...r }: Raw) => r;
    const dated = readCodex(withMeta(meta, noTime), { importedAt }).sessions[0]!;
    expect(dated.meta.undated).toBeUndefined();
    expect(dated.meta.createdAt).toBe(Date.parse(meta.timestamp as string));
    const { timestamp: _t, ...metaNoTime } = meta;
    const undated = readCodex(withMeta(metaNoTime, noTime), { importedAt }).sessions[0]!;
    expect(undated.meta.undated).toBe(true);
    expect(undated.meta.createdAt).toBe(importedAt);
  });

  it('reads an older rollout of bare items after a header line as the enveloped one, ignoring its state lines and other kinds', () => {
    const header = { id: meta.id, timestamp: meta.timestamp, instructions: 'Older instructions' };
    const items = records.filter((r) => r.type === 'response_item').map((r) => r.payload!);
    const legacy = [header, { record_type: 'state' }, ...items, { type: 'later_kind', detail: 1 }].map((r) => JSON.stringify(r)).join('\n');
    const s = readCodex(legacy).sessions[0]!;
    expectWellFormed(s);
    expect(s.meta.systemPrompt).toBe('Older instructions');
    expect(s.meta.source?.originalId).toBe(meta.id);
    // Ids made from line numbers (searches without an id) differ with the lines; the rest is the same.
    const messages = (entries: SessionEntry[]) =>
      JSON.stringify(entries.flatMap((e): unknown[] => (e.type === 'message' ? [[e.message.role, e.message.content]] : e.type === 'custom' ? [[e.customType, e.display]] : []))).replace(/codex-\d+/g, 'codex-N');
    const modern = readCodex(text).sessions[0]!;
    expect(messages(s.entries)).toEqual(messages(modern.entries));
  });

  it('refuses an older rollout whose first line is no header, or a later line that is neither item nor state', () => {
    const items = records.filter((r) => r.type === 'response_item').map((r) => JSON.stringify(r.payload));
    expect(() => readCodex([JSON.stringify({ timestamp: meta.timestamp, instructions: 'x' }), ...items].join('\n'))).toThrow(/^Line 1: not a Codex rollout record/);
    const header = JSON.stringify({ id: meta.id, timestamp: meta.timestamp });
    expect(() => readCodex([header, ...items, JSON.stringify({ id: 'later' })].join('\n'))).toThrow(new RegExp(`^Line ${items.length + 2}: not a Codex rollout record`));
  });

  it('names the Codex format and the line in its errors', () => {
    const cases: [string, number | undefined][] = [
      [appended([{ timestamp: ts, payload: {} }]), lines.length + 1],
      [appended([{ timestamp: ts, what: 1 }]), lines.length + 1],
      [`${lines[0]!}\n`, undefined],
    ];
    for (const [t, line] of cases) {
      const err = thrown(() => readCodex(t));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('codex');
      expect((err as ImportError).line).toBe(line);
    }
  });
});
