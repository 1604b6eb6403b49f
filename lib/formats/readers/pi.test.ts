import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { readFixture } from '@/lib/testing/fixtures';
import type { CompactionEntry, ImagePart } from '@/lib/session/types';
import { allParts, countBy, expectNoBase64InText, expectToolResultsPaired, expectWellFormed, rawRecords, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readPi } from './pi';

const text = readFixture('piV1');
const raw = rawRecords(text);
const header = raw[0]!.rec;
const records = raw.slice(1).map((r) => r.rec);
const msg = (r: Raw) => r.message as Raw;
// Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
const read = () => {
  const result = readPi(text, { fileName: 'compact.jsonl' });
  return { result, session: result.sessions[0]! };
};

describe('pi v1 fixture (badlogic_pi-mono_compact.jsonl)', () => {
  it('is a v1 file: header without version, records without ids', () => {
    expect(header.type).toBe('session');
    expect(header.version).toBeUndefined();
    expect(records.every((r) => r.id === undefined)).toBe(true);
  });

  it('imports one entry per record, including both records of the concatenated line', () => {
    const { result, session } = read();
    expect(result.sessions).toHaveLength(1);
    expect(session.entries).toHaveLength(records.length);
    const perLine = new Map<number, number>();
    for (const r of raw) perLine.set(r.line, (perLine.get(r.line) ?? 0) + 1);
    const doubled = [...perLine].filter(([, n]) => n > 1).map(([line]) => line);
    expect(doubled).toEqual([1013]);
    expect(result.warnings.filter((w) => w.startsWith('Line 1013:'))).toHaveLength(1);
  });

  it('counts entries per kind as in the file (bashExecution becomes a user message)', () => {
    const { session } = read();
    const roles = (role: string) => records.filter((r) => r.type === 'message' && msg(r).role === role).length;
    expect(countBy(session.entries)).toEqual({
      user: roles('user') + roles('bashExecution'),
      assistant: roles('assistant'),
      toolResult: roles('toolResult'),
      compaction: records.filter((r) => r.type === 'compaction').length,
    });
  });

  it('is one chain (v1: each parent is the previous record), leaf = last record', () => {
    const { session } = read();
    const tree = expectWellFormed(session);
    expect(tree.roots()).toHaveLength(1);
    expect(tree.branchPoints()).toHaveLength(0);
    expect(session.meta.leafId).toBe(session.entries[session.entries.length - 1]!.id);
    session.entries.forEach((e, i) => expect(e.parentId).toBe(i === 0 ? null : session.entries[i - 1]!.id));
  });

  it('recognises both compactions with their tokensBefore and maps firstKeptEntryIndex to the right entry', () => {
    const { session } = read();
    const rawCompactions = records.filter((r) => r.type === 'compaction');
    const compactions = session.entries.filter((e): e is CompactionEntry => e.type === 'compaction');
    expect(compactions.map((c) => c.tokensBefore)).toEqual(rawCompactions.map((r) => r.tokensBefore));
    expect(compactions.map((c) => c.tokensBefore)).toEqual([184525, 131140]);
    const byId = new Map(session.entries.map((e) => [e.id, e]));
    compactions.forEach((c, k) => {
      const index = rawCompactions[k]!.firstKeptEntryIndex as number;
      // The header is record 0, so entry index = file record index - 1.
      const target = byId.get(c.firstKeptEntryId)!;
      expect(session.entries.indexOf(target)).toBe(index - 1);
      expect(c.details.summarizer).toEqual({ kind: 'imported', source: 'pi' });
      expect(c.summary).toBe(rawCompactions[k]!.summary);
    });
    const first = byId.get(compactions[0]!.firstKeptEntryId)!;
    expect(first.type === 'message' && first.message.role).toBe('assistant');
    expect(first.type === 'message' && first.message.content.some((p) => p.type === 'toolCall')).toBe(true);
    // The raw record at that index is the same message.
    const rawTarget = raw[rawCompactions[0]!.firstKeptEntryIndex as number]!.rec;
    const rawCall = (msg(rawTarget).content as Raw[]).find((b) => b.type === 'toolCall')!;
    expect(first.type === 'message' && first.message.content.find((p) => p.type === 'toolCall')).toMatchObject({ id: rawCall.id, name: rawCall.name });
  });

  it('gives a context at the leaf that starts with the compaction summary', () => {
    const { session } = read();
    const ctx = buildSessionContext(session.entries, session.meta.leafId);
    const last = session.entries.filter((e) => e.type === 'compaction').pop()!;
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', entryId: last.id, tokensBefore: 131140 });
    expect(ctx.path).toHaveLength(session.entries.length);
    // At the first compaction, the kept entries start at its firstKeptEntryId.
    const firstCompaction = session.entries.find((e): e is CompactionEntry => e.type === 'compaction')!;
    const at = buildSessionContext(session.entries, firstCompaction.id);
    expect(at.items[0]!.kind).toBe('compactionSummary');
    expect(at.items[1]!.entryId).toBe(firstCompaction.firstKeptEntryId);
  });

  it('pairs every tool result with a call on its path, keeps images as image parts', () => {
    const { session } = read();
    expect(expectToolResultsPaired(session)).toBe(records.filter((r) => r.type === 'message' && msg(r).role === 'toolResult').length);
    const rawImages = records.flatMap((r) => (r.type === 'message' && Array.isArray(msg(r).content) ? (msg(r).content as Raw[]) : [])).filter((b) => b.type === 'image');
    const images = allParts(session).filter((p): p is ImagePart => p.type === 'image');
    expect(images).toHaveLength(rawImages.length);
    images.forEach((img, i) => {
      expect(img.data).toBe(rawImages[i]!.data);
      expect(img.mimeType).toBe(rawImages[i]!.mimeType);
      expect(img.byteLength).toBeGreaterThan(0);
    });
    expectNoBase64InText(session);
  });

  it('maps assistant usage, model and stop reasons', () => {
    const { session } = read();
    const rawAssistants = records.filter((r) => r.type === 'message' && msg(r).role === 'assistant').map(msg);
    const assistants = session.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? [e.message] : []));
    assistants.forEach((a, i) => {
      const r = rawAssistants[i]!;
      const u = r.usage as Raw & { cost: Raw };
      expect(a.model).toBe(`${r.provider}:${r.model}`);
      expect(a.stopReason).toBe(r.stopReason);
      expect(a.usage).toEqual({ input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, totalTokens: u.totalTokens, cost: u.cost.total });
      expect(a.errorMessage).toBe(r.errorMessage);
    });
  });

  it('marks the user shell command as such', () => {
    const { session } = read();
    const bash = records.find((r) => r.type === 'message' && msg(r).role === 'bashExecution')!;
    const i = records.indexOf(bash);
    const e = session.entries[i]!;
    expect(e.type === 'message' && e.message.role).toBe('user');
    const t = e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : '';
    expect(t).toContain('[Shell command run by the user]');
    expect(t).toContain(`$ ${msg(bash).command as string}`);
  });

  it('sets meta from the header and the file', () => {
    const { session } = read();
    expect(session.meta.cwd).toBe(header.cwd);
    expect(session.meta.createdAt).toBe(Date.parse(header.timestamp as string));
    expect(session.meta.source).toMatchObject({ format: 'pi', fileName: 'compact.jsonl', originalId: header.id });
    expect(session.meta.source?.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(session.meta.title.length).toBeGreaterThan(0);
  });

  it('derives the same entry ids on a second import', () => {
    const { session } = read();
    const again = readPi(text).sessions[0]!;
    expect(again.entries.map((e) => e.id)).toEqual(session.entries.map((e) => e.id));
    expect(again.meta.source?.hash).toBe(session.meta.source?.hash);
  });
});

describe('pi v2/v3 records', () => {
  const v3 = [
    { type: 'session', version: 3, id: 'sess', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w' },
    { type: 'message', id: 'u1', parentId: null, timestamp: '2025-01-01T00:00:01.000Z', message: { role: 'user', content: 'hello', timestamp: 1 } },
    { type: 'model_change', id: 'm1', parentId: 'u1', timestamp: '2025-01-01T00:00:02.000Z', provider: 'openai', modelId: 'gpt-4o' },
    { type: 'thinking_level_change', id: 't1', parentId: 'm1', timestamp: '2025-01-01T00:00:03.000Z', thinkingLevel: 'high' },
    {
      type: 'message',
      id: 'a1',
      parentId: 't1',
      timestamp: '2025-01-01T00:00:04.000Z',
      message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'x' } }], provider: 'openai', model: 'gpt-4o', stopReason: 'toolUse' },
    },
    { type: 'message', id: 'r1', parentId: 'a1', timestamp: '2025-01-01T00:00:05.000Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'data' }], isError: false } },
    { type: 'compaction', id: 'k1', parentId: 'r1', timestamp: '2025-01-01T00:00:06.000Z', summary: 'S', firstKeptEntryId: 'a1', tokensBefore: 500, details: { readFiles: ['x'], modifiedFiles: [] } },
    { type: 'branch_summary', id: 'b1', parentId: 'u1', timestamp: '2025-01-01T00:00:07.000Z', fromId: 'k1', summary: 'B' },
    { type: 'label', id: 'l1', parentId: 'b1', timestamp: '2025-01-01T00:00:08.000Z', targetId: 'u1', label: 'start' },
    { type: 'custom', id: 'x1', parentId: 'l1', timestamp: '2025-01-01T00:00:09.000Z', customType: 'ext', data: { a: 1 } },
    { type: 'custom_message', id: 'cm', parentId: 'x1', timestamp: '2025-01-01T00:00:10.000Z', customType: 'ext', content: 'injected', display: true },
    { type: 'session_info', id: 'si', parentId: 'cm', timestamp: '2025-01-01T00:00:11.000Z', name: 'Named session' },
    { type: 'future_thing', id: 'ft', parentId: 'si', timestamp: '2025-01-01T00:00:12.000Z', payload: [1, 2] },
  ];
  const readV3 = () => {
    const s = readPi(v3.map((o) => JSON.stringify(o)).join('\n')).sessions[0]!;
    return { s, byId: new Map(s.entries.map((e) => [e.id, e])) };
  };

  it('keeps ids and parents, leaf = last record, title from session_info', () => {
    const { s } = readV3();
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual(v3.slice(1).map((o) => [o.id, o.parentId]));
    expect(s.meta.leafId).toBe('ft');
    expect(s.meta.title).toBe('Named session');
  });

  it('maps what maps and keeps the rest as custom entries', () => {
    const { s, byId } = readV3();
    expect(byId.get('m1')).toMatchObject({ type: 'model_change', model: 'openai:gpt-4o' });
    expect(byId.get('t1')).toMatchObject({ type: 'custom', customType: 'pi:thinking_level_change', data: { thinkingLevel: 'high' } });
    expect(byId.get('k1')).toMatchObject({ type: 'compaction', firstKeptEntryId: 'a1', tokensBefore: 500, details: { readFiles: ['x'], modifiedFiles: [], summarizer: { kind: 'imported', source: 'pi' } } });
    expect(byId.get('b1')).toMatchObject({ type: 'branch_summary', fromId: 'k1', summary: 'B' });
    expect(byId.get('l1')).toMatchObject({ type: 'label', targetId: 'u1', label: 'start' });
    expect(byId.get('x1')).toMatchObject({ type: 'custom', customType: 'pi:ext', data: { a: 1 } });
    expect(byId.get('cm')).toMatchObject({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'injected' }] } });
    expect(byId.get('ft')).toMatchObject({ type: 'custom', customType: 'pi:future_thing', data: { payload: [1, 2] } });
    expect(byId.get('a1')).toMatchObject({ message: { content: [{ type: 'thinking', thinking: 'hm' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'x' } }] } });
    expect(expectToolResultsPaired(s)).toBe(1);
  });

  it('refuses a file that does not start with a header', () => {
    expect(() => readPi(JSON.stringify(v3[1]))).toThrow(ImportError);
    expect(() => readPi(JSON.stringify(v3[1]))).toThrow(/^Line 1: expected the pi session header/);
  });
});
