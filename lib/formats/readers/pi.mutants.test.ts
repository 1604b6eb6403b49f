import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, rawRecords, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readPi } from './pi';

/**
 * Properties of the pi reader that the mutation run found unstated (issue 18): the v1 ids and
 * times of the real session, its usage, title and span; parents in v1 and v2 files; times
 * carried from the header or the message; blocks that are not what their other fields suggest;
 * usage with one side; the session model past user messages; session names; compactions naming
 * both an id and an index; the title without a session name; undated files; and the format and
 * line named by every refusal. Tests append records to the real v1 session or write small files
 * from its header.
 */
const text = readFixture('piV1');
const records = rawRecords(text).map((r) => r.rec);
const header = records[0]!;
const ts = '2025-12-24T13:00:00.000Z';
const at = text.trimEnd().split('\n').length + 1;

const appended = (added: Raw[]) => `${text.trimEnd()}\n${added.map((r) => JSON.stringify({ timestamp: ts, ...r })).join('\n')}\n`;
const read = (added: Raw[]) => readPi(appended(added));
const file = (recs: Raw[]) => recs.map((r) => JSON.stringify(r)).join('\n');
const msg = (id: string, message: Raw, extra: Raw = {}) => ({ type: 'message', id, message, ...extra });
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id);

describe('pi reader: the real v1 session', () => {
  it('names each record by its index in the file, the header being 0, and keeps its time', () => {
    const s = readPi(text).sessions[0]!;
    const body = records.slice(1);
    expect(body.every((r) => r.id === undefined && typeof r.timestamp === 'string')).toBe(true);
    expect(s.entries.map((e) => [e.id, e.timestamp])).toEqual(body.map((r, i) => [`pi-${i + 1}`, Date.parse(r.timestamp as string)]));
  });

  it('reads every reply’s usage with its total cost', () => {
    const s = readPi(text).sessions[0]!;
    const byId = new Map(s.entries.map((e) => [e.id, e]));
    let n = 0;
    records.forEach((r, i) => {
      const m = r.message as Raw | undefined;
      if (m?.role !== 'assistant') return;
      const u = m.usage as Raw & { cost: Raw };
      const e = byId.get(`pi-${i}`);
      expect(e?.type === 'message' && e.message.role === 'assistant' && e.message.usage).toEqual({ input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, totalTokens: u.totalTokens, cost: u.cost.total });
      n++;
    });
    expect(n).toBeGreaterThan(0);
  });

  it('is titled by the first prompt and spans from the header to the last record', () => {
    const s = readPi(text).sessions[0]!;
    const first = records.find((r) => (r.message as Raw | undefined)?.role === 'user')!;
    const content = (first.message as Raw).content as Raw[];
    expect(s.meta.title).toBe(content[0]!.text);
    expect(s.meta.createdAt).toBe(Date.parse(header.timestamp as string));
    expect(s.meta.updatedAt).toBe(Date.parse(records.at(-1)!.timestamp as string));
    expect('undated' in s.meta).toBe(false);
  });
});

describe('pi reader: parents and times', () => {
  it('in a v1 file a parentId is ignored: every record follows the one before it', () => {
    const s = read([msg('u', { role: 'user', content: 'a' }, { parentId: 'elsewhere' })]).sessions[0]!;
    expect(entry(s.entries, 'u')?.parentId).toBe(`pi-${records.length - 1}`);
  });

  it('in a v2 file parents come from parentId, and a record without one follows the record before it', () => {
    const s = readPi(
      file([
        { ...header, version: 2 },
        msg('u1', { role: 'user', content: 'first' }, { parentId: null, timestamp: ts }),
        msg('a1', { role: 'assistant', content: 'one' }, { parentId: 'u1', timestamp: ts }),
        msg('a2', { role: 'assistant', content: 'two' }, { parentId: 'u1', timestamp: ts }),
        msg('u2', { role: 'user', content: 'next' }, { timestamp: ts }),
      ]),
    ).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['u1', null],
      ['a1', 'u1'],
      ['a2', 'u1'],
      ['u2', 'a2'],
    ]);
  });

  it('a record without a time takes its message’s time, else the time before it, starting from the header', () => {
    const t0 = Date.parse(header.timestamp as string);
    const s = readPi(
      file([
        header,
        msg('u1', { role: 'user', content: 'first' }),
        msg('a1', { role: 'assistant', content: 'one', timestamp: t0 + 5000 }),
        { type: 'label', id: 'l1', targetId: 'u1', label: 'x' },
        msg('u2', { role: 'user', content: 'later' }, { timestamp: new Date(t0 + 9000).toISOString() }),
      ]),
    ).sessions[0]!;
    expect(s.entries.map((e) => [e.id, e.timestamp])).toEqual([
      ['u1', t0],
      ['a1', t0 + 5000],
      ['l1', t0 + 5000],
      ['u2', t0 + 9000],
    ]);
  });

  it('a file without any time is undated', () => {
    const { timestamp: _t, ...bare } = header;
    const s = readPi(file([bare, msg('u1', { role: 'user', content: 'when?' })]), { importedAt: 1_700_000_000_000 }).sessions[0]!;
    expect(s.meta).toMatchObject({ undated: true, createdAt: 1_700_000_000_000 });
  });
});

describe('pi reader: content', () => {
  it('only text blocks are text, only image blocks images, only thinking blocks thoughts; blocks that are not objects are skipped', () => {
    const s = read([
      msg('u', { role: 'user', content: ['loose', null, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', text: 'alt' }, { type: 'audio', data: 'AAAA' }, { type: 'text', text: 'Look' }] }),
      msg('a', { role: 'assistant', content: [7, { type: 'image', data: 'x', text: 'alt' }, { type: 'note', thinking: 'private' }, { type: 'toolCall', id: 'c', name: 'ls' }] }),
    ]).sessions[0]!;
    const u = entry(s.entries, 'u');
    expect(u?.type === 'message' && u.message.content).toEqual([
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=', byteLength: 8 },
      { type: 'text', text: 'Look' },
    ]);
    const a = entry(s.entries, 'a');
    // Strict: a call without arguments has an empty object, not one holding `value: undefined`.
    expect(a?.type === 'message' && a.message.content).toStrictEqual([
      { type: 'text', text: '[image]' },
      { type: 'toolCall', id: 'c', name: 'ls', arguments: {} },
    ]);
  });

  it('usage with only one side counts the other as 0; usage with neither is none', () => {
    const s = read([msg('i', { role: 'assistant', content: 'x', usage: { input: 5 } }), msg('e', { role: 'assistant', content: 'y', usage: { cost: 1 } })]).sessions[0]!;
    expect(entry(s.entries, 'i')).toMatchObject({ message: { usage: { input: 5, output: 0 } } });
    const e = entry(s.entries, 'e');
    expect(e?.type === 'message' && e.message.role === 'assistant' && 'usage' in e.message).toBe(false);
  });

  it('a shell command that exited with 0 says no exit code', () => {
    const s = read([msg('b', { role: 'bashExecution', command: 'true', output: 'ok', exitCode: 0 })]).sessions[0]!;
    const b = entry(s.entries, 'b');
    expect(b?.type === 'message' && b.message.content).toEqual([{ type: 'text', text: '[Shell command run by the user]\n$ true\nOutput:\nok' }]);
  });
});

describe('pi reader: session fields', () => {
  it('the session model is the last reply’s, also when user messages follow it', () => {
    const s = read([msg('a', { role: 'assistant', content: 'x', provider: 'openai', model: 'gpt-5' }), msg('u', { role: 'user', content: 'thanks' })]).sessions[0]!;
    expect(s.meta.model).toBe('openai:gpt-5');
  });

  it('a reply without a model keeps the model of the reply before it', () => {
    const s = read([
      msg('a', { role: 'assistant', content: 'x', provider: 'anthropic', model: 'claude' }),
      msg('u', { role: 'user', content: 'and then?' }),
      msg('b', { role: 'assistant', content: 'y' }),
    ]).sessions[0]!;
    expect(s.meta.model).toBe('anthropic:claude');
  });

  it('a session_info without a name keeps the name given before; a named one shows it', () => {
    const s = read([
      { type: 'session_info', id: 's1', name: 'Refactor' },
      { type: 'session_info', id: 's2' },
    ]).sessions[0]!;
    expect(entry(s.entries, 's1')).toMatchObject({ type: 'custom', display: 'Session name: Refactor' });
    expect(s.meta.title).toBe('Refactor');
  });

  it('a compaction naming both an entry id and an index keeps from the id, without a warning', () => {
    const r = read([{ type: 'compaction', id: 'k', summary: 'S', firstKeptEntryId: 'pi-5', firstKeptEntryIndex: 7 }]);
    expect(entry(r.sessions[0]!.entries, 'k')).toMatchObject({ type: 'compaction', firstKeptEntryId: 'pi-5' });
    expect(r.warnings.filter((w) => w.startsWith(`Line ${at}`))).toEqual([]);
  });

  it('the title is the first user message, past replies and notes; without one it is "pi session"', () => {
    const base = { ...header, version: 3 };
    const s = readPi(
      file([
        base,
        { type: 'custom', id: 'c', parentId: null, customType: 'ext' },
        msg('a', { role: 'assistant', content: 'Hi, how can I help?' }, { parentId: 'c' }),
        msg('u', { role: 'user', content: 'Fix the tests' }, { parentId: 'a' }),
      ]),
    );
    expect(s.warnings).toEqual([]);
    expect(s.sessions[0]!.meta.title).toBe('Fix the tests');
    expect(readPi(file([base, msg('a', { role: 'assistant', content: 'Hello' }, { parentId: null })])).sessions[0]!.meta.title).toBe('pi session');
  });
});

describe('pi reader: refusals', () => {
  it('names the format and the line of a damaged record', () => {
    for (const bad of [msg('m', { content: 'x' }), { type: 'message', id: 'm' }, { id: 'n' }, header]) {
      const err = thrown(() => read([bad]));
      expect(err).toBeInstanceOf(ImportError);
      expect(err).toMatchObject({ format: 'pi', line: at });
    }
  });

  it('names the format for a parent loop, an empty file and a line that is not JSON', () => {
    const loop = file([
      { ...header, version: 3 },
      msg('x', { role: 'user', content: 'a' }, { parentId: 'y' }),
      msg('y', { role: 'assistant', content: 'b' }, { parentId: 'x' }),
    ]);
    for (const bad of [loop, '', `${JSON.stringify(header)}\n{"type": "message", "id": `]) {
      const err = thrown(() => readPi(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('pi');
    }
  });

  it('a v3 file is known: no warning about its version', () => {
    expect(readPi(file([{ ...header, version: 3 }, msg('u', { role: 'user', content: 'hi' }, { parentId: null })])).warnings).toEqual([]);
  });
});
