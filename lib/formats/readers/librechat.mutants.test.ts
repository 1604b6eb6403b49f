import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readLibreChat } from './librechat';

/**
 * Properties of the LibreChat reader that the mutation run found unstated (issue 18): parents from
 * the nesting alone, entries that are not objects, ids by position, the leaf by the last child of
 * the last root (a root whose parent is missing included), error texts only on the last segment of
 * an errored reply, tool results that are no errors, parts without text, titles, times from the
 * conversation, undated conversations, models missing, and the format named by every refusal.
 * Tests edit a copy of the real export (a nested tree) or add flat messages to it.
 */
const text = readFixture('librechatTree');
const real = JSON.parse(text) as Raw & { messages: Raw[] };
const firstId = real.messages[0]!.messageId as string;
const at = '2024-05-02T10:00:00.000Z';

type Node = Raw & { children?: Node[] };
const walk = (ms: Node[], out: Node[] = []): Node[] => {
  for (const m of ms) {
    out.push(m);
    walk(m.children ?? [], out);
  }
  return out;
};
const copy = () => structuredClone(real);
const withMessages = (added: Raw[], edit: (d: ReturnType<typeof copy>) => void = () => {}) => {
  const d = copy();
  d.messages.push(...added);
  edit(d);
  return d;
};
const read = (doc: unknown, opts: Parameters<typeof readLibreChat>[1] = {}) => readLibreChat(JSON.stringify(doc), opts);
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id);

describe('LibreChat reader: the tree', () => {
  it('in a nested export without parentMessageId, each message’s parent is the message it is nested in', () => {
    const doc = copy();
    const nodes = walk(doc.messages as Node[]);
    const parentOf = new Map<string, string | null>();
    const note = (ms: Node[], parent: string | null) => {
      for (const m of ms) {
        parentOf.set(m.messageId as string, parent);
        note(m.children ?? [], m.messageId as string);
      }
    };
    note(doc.messages as Node[], null);
    for (const m of nodes) delete m.parentMessageId;
    const s = read(doc).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual(nodes.map((m) => [m.messageId, parentOf.get(m.messageId as string)]));
  });

  it('skips messages and children that are not objects', () => {
    const doc = copy();
    (doc.messages as unknown[]).push(null, 'x');
    ((doc.messages[0] as Node).children as unknown[]).push(7);
    expect(read(doc).sessions[0]!.entries.map((e) => e.id)).toEqual(readLibreChat(text).sessions[0]!.entries.map((e) => e.id));
  });

  it('names messages without id by their position in the export', () => {
    const count = walk(real.messages as Node[]).length;
    const s = read(withMessages([{ parentMessageId: firstId, isCreatedByUser: true, text: 'one' }, { parentMessageId: firstId, isCreatedByUser: true, text: 'two' }])).sessions[0]!;
    expect(s.entries.slice(-2).map((e) => e.id)).toEqual([`librechat-${count}`, `librechat-${count + 1}`]);
  });

  it('opens on the last child of each level, not on the message listed last', () => {
    const doc = {
      conversationId: 'c',
      title: 't',
      messages: [
        { messageId: 'u', isCreatedByUser: true, text: 'hi', createdAt: at },
        { messageId: 'a1', parentMessageId: 'u', text: 'first', createdAt: at },
        { messageId: 'a2', parentMessageId: 'u', text: 'second', createdAt: at },
        { messageId: 'f', parentMessageId: 'a1', isCreatedByUser: true, text: 'on the first', createdAt: at },
      ],
    };
    expect(read(doc).sessions[0]!.meta.leafId).toBe('a2');
  });

  it('a message whose parent is not in the export is a root, and as the last root it holds the leaf', () => {
    const r = read(withMessages([{ messageId: 'orphan', parentMessageId: 'gone', isCreatedByUser: true, text: 'lost parent', createdAt: at }]));
    expect(r.sessions[0]!.meta.leafId).toBe('orphan');
    expect(r.warnings).toEqual(['1 entry refers to a parent that is not in the file; shown as separate roots.']);
  });

  it('refuses messages whose parents name each other, naming the format', () => {
    const err = thrown(() => read({ conversationId: 'c', messages: [{ messageId: 'x', parentMessageId: 'y', text: 'a' }, { messageId: 'y', parentMessageId: 'x', text: 'b' }] }));
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).format).toBe('librechat');
  });
});

describe('LibreChat reader: replies', () => {
  it('only the last segment of a failed reply carries its error; other replies carry none', () => {
    const reply = { messageId: 'r', parentMessageId: firstId, createdAt: at, error: true, text: 'Tool crashed', content: [{ type: 'tool_call', tool_call: { id: 'c1', name: 'run', args: '{}', output: 'boom' } }, { type: 'text', text: 'Trying again' }] };
    const s = read(withMessages([reply])).sessions[0]!;
    expect(entry(s.entries, 'r')).toMatchObject({ message: { role: 'assistant', stopReason: 'error', errorMessage: 'Tool crashed' } });
    const first = entry(s.entries, 'r:1');
    expect(first?.type === 'message' && first.message.role === 'assistant' && first.message.stopReason).toBe('toolUse');
    expect(first?.type === 'message' && 'errorMessage' in first.message).toBe(false);
    expect(entry(s.entries, 'r:2')).toMatchObject({ message: { role: 'toolResult', toolCallId: 'c1', isError: false, content: [{ type: 'text', text: 'boom' }] } });
    for (const e of readLibreChat(text).sessions[0]!.entries) expect(e.type === 'message' && 'errorMessage' in e.message).toBe(false);
  });

  it('a text part without text is empty text; arguments given as a list stay a list; only image_url parts are image links', () => {
    const s = read(
      withMessages([
        { messageId: 'r', parentMessageId: firstId, createdAt: at, content: [{ type: 'text' }, { type: 'tool_call', tool_call: { id: 'c', name: 'sum', args: [1] } }] },
        { messageId: 'p', parentMessageId: 'r', isCreatedByUser: true, createdAt: at, content: [{ type: 'text', text: 'see' }, { type: 'image_file', image_url: 'https://img.example/x.png' }] },
      ]),
    ).sessions[0]!;
    const r = entry(s.entries, 'r');
    expect(r?.type === 'message' && r.message.content).toEqual([
      { type: 'text', text: '' },
      { type: 'toolCall', id: 'c', name: 'sum', arguments: { input: [1] } },
    ]);
    const p = entry(s.entries, 'p');
    expect(p?.type === 'message' && p.message.content).toEqual([{ type: 'text', text: 'see' }]);
  });

  it('a conversation and replies without any model name none', () => {
    const s = read(
      withMessages([{ messageId: 'r', parentMessageId: firstId, createdAt: at, text: 'x' }], (d) => {
        delete (d.options as Raw).model;
        for (const m of walk(d.messages as Node[])) delete m.model;
      }),
    ).sessions[0]!;
    expect('model' in s.meta).toBe(false);
    const r = entry(s.entries, 'r');
    expect(r?.type === 'message' && 'model' in r.message).toBe(false);
  });
});

describe('LibreChat reader: conversation fields', () => {
  it('a title is trimmed; a blank one gives way to the first prompt, past replies', () => {
    expect(read({ ...copy(), title: '  Venv trouble  ' }).sessions[0]!.meta.title).toBe('Venv trouble');
    const doc = { conversationId: 'c', title: '  ', messages: [{ messageId: 'g', text: 'Welcome!', createdAt: at }, { messageId: 'u', parentMessageId: 'g', isCreatedByUser: true, text: 'Fix my venv', createdAt: at }] };
    expect(read(doc).sessions[0]!.meta.title).toBe('Fix my venv');
    const noPrompt = { conversationId: 'c', messages: [{ messageId: 'g', text: 'Welcome!', createdAt: at }] };
    expect(read(noPrompt).sessions[0]!.meta.title).toBe('LibreChat conversation');
  });

  it('messages without a time before any dated one take the conversation’s creation time', () => {
    const created = '2024-05-01T16:00:00.000Z';
    const doc = {
      conversationId: 'c',
      createdAt: created,
      messages: [
        { messageId: 'u', isCreatedByUser: true, text: 'hi' },
        { messageId: 'a', parentMessageId: 'u', text: 'hello', createdAt: at },
      ],
    };
    const s = read(doc).sessions[0]!;
    expect(s.entries.map((e) => e.timestamp)).toEqual([Date.parse(created), Date.parse(at)]);
  });

  it('the conversation’s update time counts when it is later than its messages', () => {
    const later = '2024-06-01T00:00:00.000Z';
    const s = read({ ...copy(), updatedAt: later }).sessions[0]!;
    expect(s.meta.updatedAt).toBe(Date.parse(later));
  });

  it('an empty conversation is dated by its creation time', () => {
    const created = '2024-05-01T16:00:00.000Z';
    const s = read({ conversationId: 'e', title: 'Empty', createdAt: created, messages: [] }, { importedAt: 1_800_000_000_000 }).sessions[0]!;
    expect(s.meta.createdAt).toBe(Date.parse(created));
  });

  it('a conversation without any time is undated, one with its creation time is not', () => {
    const bare = { conversationId: 'c', messages: [{ messageId: 'u', isCreatedByUser: true, text: 'hi' }] };
    expect(read(bare, { importedAt: 1_800_000_000_000 }).sessions[0]!.meta).toMatchObject({ undated: true, createdAt: 1_800_000_000_000 });
    expect('undated' in read({ ...bare, createdAt: at }, { importedAt: 1_800_000_000_000 }).sessions[0]!.meta).toBe(false);
    expect('undated' in readLibreChat(text).sessions[0]!.meta).toBe(false);
  });
});

describe('LibreChat reader: refusals', () => {
  it('names the format when the text is not JSON, a conversation is not an object or has no messages', () => {
    for (const bad of ['{"messages": [', JSON.stringify([real, 'x']), JSON.stringify({ title: 't' })]) {
      const err = thrown(() => readLibreChat(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('librechat');
    }
  });
});
