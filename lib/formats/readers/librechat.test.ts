import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { readLibreChat } from './librechat';

const ROOT = '00000000-0000-0000-0000-000000000000';

function flatten(ms: Raw[], parent: string | null = null, out: { m: Raw; parent: string | null }[] = []) {
  for (const m of ms) {
    out.push({ m, parent });
    flatten((m.children as Raw[] | undefined) ?? [], m.messageId as string, out);
  }
  return out;
}

describe('LibreChat tree fixture (librechat-tree.json)', () => {
  const text = readFixture('librechatTree');
  const doc = JSON.parse(text) as Raw;
  const flat = flatten(doc.messages as Raw[]);
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => {
    const s = readLibreChat(text).sessions[0]!;
    return { s, tree: new SessionTree(s.entries) };
  };

  it('preserves the nested tree: same ids, same parents, same branch points', () => {
    const { s, tree } = read();
    expectWellFormed(s);
    expect(s.entries).toHaveLength(flat.length);
    const byId = new Map(s.entries.map((e) => [e.id, e]));
    for (const { m, parent } of flat) {
      const e = byId.get(m.messageId as string)!;
      expect(e).toBeDefined();
      const expectedParent = m.parentMessageId === ROOT ? null : ((m.parentMessageId as string | undefined) ?? parent);
      expect(e.parentId).toBe(expectedParent);
      expect(e.type === 'message' && e.message.role).toBe(m.isCreatedByUser ? 'user' : 'assistant');
    }
    const rawBranchPoints = flat.filter(({ m }) => ((m.children as Raw[] | undefined) ?? []).length > 1).map(({ m }) => m.messageId);
    expect(rawBranchPoints.length).toBeGreaterThan(0);
    expect(tree.branchPoints().map((e) => e.id).sort()).toEqual([...rawBranchPoints].sort());
  });

  it('opens on a leaf reached by the last child at each level; meta from the export', () => {
    const { s, tree } = read();
    expect(tree.children(s.meta.leafId!)).toHaveLength(0);
    let cur = (doc.messages as Raw[])[(doc.messages as Raw[]).length - 1]!;
    while (((cur.children as Raw[] | undefined) ?? []).length) cur = (cur.children as Raw[])[(cur.children as Raw[]).length - 1]!;
    expect(s.meta.leafId).toBe(cur.messageId);
    expect(s.meta.title).toBe(doc.title);
    expect(s.meta.systemPrompt).toBe((doc.options as Raw).promptPrefix);
    expect(s.meta.model).toBe(`openai:${(doc.options as Raw).model as string}`);
    expect(s.meta.source).toMatchObject({ format: 'librechat', originalId: doc.conversationId });
  });
});

describe('LibreChat flat list with content parts', () => {
  it('links by parentMessageId and splits tool calls carrying output', () => {
    const doc = {
      conversationId: 'c',
      title: 't',
      endpoint: 'agents',
      messages: [
        { messageId: 'u', parentMessageId: ROOT, isCreatedByUser: true, text: 'weather?', createdAt: '2024-05-01T00:00:00Z' },
        {
          messageId: 'a',
          parentMessageId: 'u',
          isCreatedByUser: false,
          model: 'gpt-4o',
          content: [
            { type: 'text', text: 'checking' },
            { type: 'tool_call', tool_call: { id: 'call1', name: 'weather', args: '{"city":"Oslo"}', output: 'rain' } },
            { type: 'text', text: 'It rains.' },
          ],
        },
        { messageId: 'u2', parentMessageId: 'a', isCreatedByUser: true, text: 'thanks' },
      ],
    };
    const s = readLibreChat(JSON.stringify(doc)).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['u', null],
      ['a:1', 'u'],
      ['a:2', 'a:1'],
      ['a', 'a:2'],
      ['u2', 'a'],
    ]);
    expect(s.entries[1]).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'checking' }, { type: 'toolCall', id: 'call1', name: 'weather', arguments: { city: 'Oslo' } }] } });
    expect(s.entries[2]).toMatchObject({ message: { role: 'toolResult', toolCallId: 'call1', content: [{ type: 'text', text: 'rain' }] } });
    expect(expectToolResultsPaired(s)).toBe(1);
    expect(s.meta.leafId).toBe('u2');
  });
});
