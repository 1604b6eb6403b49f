import { describe, expect, it } from 'vitest';
import { messageText } from '@/lib/session/messages';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readChatGpt } from './chatgpt';

/**
 * Properties of the ChatGPT reader that the first mutation run found unstated (issue 18): content
 * read as plain text where a tool result, a system message or a prompt needs it, messages missing
 * fields, the order of children and the parents a node may name, the leaf, title, dates, and the
 * errors. Each test edits a copy of the real conversation of chatgpt-tree.json, or grafts messages,
 * shaped as the export writes them, below its current message.
 */
const base = (JSON.parse(readFixture('chatgptTree')) as Raw[])[0]!;
type Node = { id: string; parent: string | null; children: string[]; message: Raw | null };
const nodesOf = (conv: Raw) => conv.mapping as Record<string, Node>;

type Added = { id: string; role?: string; content?: Raw; recipient?: string; name?: string; status?: string; metadata?: Raw; message?: Raw };

/** The real conversation with `added` chained below its current message; the last one becomes current. `message` replaces the whole message. */
function grafted(added: Added[], under = base.current_node as string): Raw {
  const conv = structuredClone(base);
  const mapping = nodesOf(conv);
  let parent = under;
  for (const a of added) {
    mapping[parent]!.children.push(a.id);
    const message = a.message ?? {
      id: a.id,
      author: { role: a.role, name: a.name ?? null, metadata: {} },
      create_time: 1714585070,
      content: a.content,
      status: a.status ?? 'finished_successfully',
      recipient: a.recipient ?? 'all',
      metadata: a.metadata ?? {},
    };
    mapping[a.id] = { id: a.id, parent, children: [], message };
    parent = a.id;
  }
  conv.current_node = parent;
  return conv;
}

const read = (conv: Raw, opts = {}) => readChatGpt(JSON.stringify([conv]), opts);
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;
const textOf = (e: SessionEntry) => (e.type === 'message' ? messageText(e.message) : '');

describe('ChatGPT reader: content as plain text', () => {
  it('a tool result reads code, execution output (its text alone), an error without a name, and browsing with both page and summary', () => {
    const r = read(
      grafted([
        { id: 'call', role: 'assistant', recipient: 'python', content: { content_type: 'code', text: 'print(1)' } },
        { id: 'r1', role: 'tool', name: 'python', content: { content_type: 'code', text: 'x = 1' } },
        { id: 'r2', role: 'tool', name: 'python', content: { content_type: 'code' } },
        { id: 'r3', role: 'tool', name: 'python', content: { content_type: 'execution_output' } },
        { id: 'r3b', role: 'tool', name: 'python', content: { content_type: 'execution_output', name: 'stdout', text: '42' } },
        { id: 'r4', role: 'tool', name: 'python', content: { content_type: 'system_error', text: 'Execution interrupted' } },
        { id: 'r5', role: 'tool', name: 'browser', content: { content_type: 'tether_browsing_display', result: '# Tides', summary: 'A tide table' } },
        { id: 'r6', role: 'tool', name: 'python', content: { content_type: 'text', parts: ['Part one', { kind: 'not text' }, 7, 'Part two'] } },
      ]),
    );
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(textOf(entry(s.entries, 'r1'))).toBe('x = 1');
    expect(entry(s.entries, 'r2')).toMatchObject({ message: { role: 'toolResult', content: [] } });
    expect(entry(s.entries, 'r3')).toMatchObject({ message: { role: 'toolResult', content: [] } });
    // Output is its text alone, whatever else the content names.
    expect(textOf(entry(s.entries, 'r3b'))).toBe('42');
    expect(entry(s.entries, 'r4')).toMatchObject({ message: { isError: true, content: [{ type: 'text', text: 'Execution interrupted' }] } });
    expect(textOf(entry(s.entries, 'r5'))).toBe('# Tides\n\nA tide table');
    expect(textOf(entry(s.entries, 'r6'))).toBe('Part one\n\nPart two');
    expect(r.warnings).toEqual([]);
  });

  it('a system message reads a multimodal content as its texts; reasoning without text reads empty, a thought that is no object adds nothing', () => {
    const s = read(
      grafted([
        { id: 'sys', role: 'system', content: { content_type: 'multimodal_text', parts: ['Be kind.', { content_type: 'image_asset_pointer', asset_pointer: 'x' }, { text: 'Be brief.' }, '', 7] } },
        { id: 'rc', role: 'assistant', content: { content_type: 'reasoning_recap' } },
        { id: 'th', role: 'assistant', content: { content_type: 'thoughts', thoughts: [null, { summary: 'Checking units' }] } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'sys')).toMatchObject({ type: 'custom', customType: 'chatgpt:system', display: 'Be kind.\n\nBe brief.' });
    expect(entry(s.entries, 'rc')).toMatchObject({ message: { content: [{ type: 'thinking', thinking: '' }] } });
    const th = entry(s.entries, 'th');
    expect(th.type === 'message' && th.message.content[0]?.type === 'thinking' && th.message.content[0].thinking.trim()).toBe('Checking units');
  });

  it('a multimodal prompt keeps its images and texts and drops the parts that are neither', () => {
    const s = read(
      grafted([
        { id: 'u', role: 'user', content: { content_type: 'multimodal_text', parts: [{ content_type: 'audio_asset_pointer', asset_pointer: 'sediment://a' }, { content_type: 'image_asset_pointer', asset_pointer: 'file-service://i' }, 'What is this?'] } },
      ]),
    ).sessions[0]!;
    const u = entry(s.entries, 'u');
    expect(u.type === 'message' && u.message.content.map((p) => p.type)).toEqual(['image', 'text']);
  });

  it('a code call without text has empty code; a code reply without text or in a language ending in "unknown" keeps its fence', () => {
    const s = read(
      grafted([
        { id: 'c', role: 'assistant', recipient: 'python', content: { content_type: 'code' } },
        { id: 'o', role: 'tool', name: 'python', content: { content_type: 'execution_output', text: '' } },
        { id: 'e', role: 'assistant', content: { content_type: 'code', language: 'python' } },
        { id: 'l1', role: 'assistant', content: { content_type: 'code', language: 'myunknown', text: 'x' } },
        { id: 'l2', role: 'assistant', content: { content_type: 'code', language: 'unknownish', text: 'y' } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'c')).toMatchObject({ message: { content: [{ type: 'toolCall', arguments: { code: '' } }] } });
    expect(textOf(entry(s.entries, 'e'))).toBe('```python\n\n```');
    expect(textOf(entry(s.entries, 'l1'))).toBe('```myunknown\nx\n```');
    expect(textOf(entry(s.entries, 'l2'))).toBe('```unknownish\ny\n```');
  });
});

describe('ChatGPT reader: messages missing fields', () => {
  it('a message without author is a note of an unknown role; one without content is an empty message, with no warning', () => {
    const r = read(
      grafted([
        { id: 'anon', message: { id: 'anon', content: { content_type: 'text', parts: ['who?'] }, create_time: 1714585070 } },
        { id: 'bare', message: { id: 'bare', author: { role: 'user' }, create_time: 1714585071 } },
        { id: 'plain', message: { id: 'plain', author: { role: 'user' }, content: { parts: ['no type'] }, create_time: 1714585072 } },
      ]),
    );
    const s = r.sessions[0]!;
    expect(entry(s.entries, 'anon')).toMatchObject({ type: 'custom', customType: 'chatgpt:unknown', display: 'unknown message' });
    expect(entry(s.entries, 'bare')).toMatchObject({ type: 'message', message: { role: 'user', content: [] } });
    expect(entry(s.entries, 'plain')).toMatchObject({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'no type' }] } });
    expect(r.warnings).toEqual([]);
  });

  it('drops a user message only when it is both empty and hidden', () => {
    const s = read(
      grafted([
        { id: 'empty', role: 'user', content: { content_type: 'text', parts: [] } },
        { id: 'hiddenText', role: 'user', content: { content_type: 'text', parts: ['remembered'] }, metadata: { is_visually_hidden_from_conversation: true } },
        { id: 'hiddenEmpty', role: 'user', content: { content_type: 'text', parts: [] }, metadata: { is_visually_hidden_from_conversation: true } },
      ]),
    ).sessions[0]!;
    expect(s.entries.map((e) => e.id)).toEqual(expect.arrayContaining(['empty', 'hiddenText']));
    expect(s.entries.some((e) => e.id === 'hiddenEmpty')).toBe(false);
  });

  it('a reply without recipient or status is a finished plain reply; its finish details give the stop reason', () => {
    const reply = (id: string, finish?: string): Added => ({
      id,
      message: { id, author: { role: 'assistant' }, content: { content_type: 'text', parts: [`reply ${id}`] }, create_time: 1714585070, metadata: finish ? { finish_details: { type: finish } } : {} },
    });
    const s = read(grafted([reply('a'), reply('b', 'max_tokens'), reply('c', 'stop')])).sessions[0]!;
    const a = entry(s.entries, 'a');
    expect(a).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'reply a' }] } });
    expect(a.type === 'message' && a.message.role === 'assistant' && a.message.stopReason).toBeUndefined();
    expect(entry(s.entries, 'b')).toMatchObject({ message: { stopReason: 'length' } });
    expect(entry(s.entries, 'c')).toMatchObject({ message: { stopReason: 'stop' } });
  });

  it('a tool message with no call above it keeps its name and content as the note’s data', () => {
    const content = { content_type: 'text', parts: ['orphan output'] };
    const s = read(grafted([{ id: 'orphan', role: 'tool', name: 'dalle', content }], 'aaa297ba-e2da-440e-84f4-e62e7be8b003')).sessions[0]!;
    const e = entry(s.entries, 'orphan');
    expect(e.type === 'custom' && e.data).toEqual({ name: 'dalle', content });
  });
});

describe('ChatGPT reader: the tree', () => {
  it('orders children as their parent lists them, and those it does not list after them in mapping order', () => {
    const conv = structuredClone(base);
    const mapping = nodesOf(conv);
    const points = Object.values(mapping).filter((n) => n.children.length > 1);
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) p.children.reverse();
    const s = read(conv).sessions[0]!;
    const tree = new SessionTree(s.entries);
    for (const p of points) expect(tree.children(p.id).map((e) => e.id)).toEqual(p.children);
    // Two more children of a branch point that its list does not name, in mapping order.
    const p = points[0]!;
    const stray = (id: string) => ({ id, parent: p.id, children: [], message: { id, author: { role: 'user' }, create_time: 1714585070, content: { content_type: 'text', parts: [id] } } });
    const more = structuredClone(conv);
    Object.assign(nodesOf(more), { s1: stray('s1'), s2: stray('s2'), s3: stray('s3') });
    const t = new SessionTree(read(more).sessions[0]!.entries);
    expect(t.children(p.id).map((e) => e.id)).toEqual([...p.children, 's1', 's2', 's3']);
  });

  it('a node whose parent is not in the mapping, or is itself, is a root; a node without children list or that is no object is read', () => {
    const conv = structuredClone(base);
    const mapping = nodesOf(conv) as Record<string, unknown>;
    const lone = (id: string, parent: string | null) => ({ id, parent, message: { id, author: { role: 'user' }, create_time: 1714585070, content: { content_type: 'text', parts: [id] } } });
    Object.assign(mapping, { gone: lone('lost', 'not-here'), self: lone('self', 'self'), junk: 7, nul: null });
    const r = read(conv);
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(entry(s.entries, 'lost').parentId).toBeNull();
    expect(entry(s.entries, 'self').parentId).toBeNull();
    expect(r.warnings).toEqual([]);
  });

  it('keeps the first of two nodes with the same id', () => {
    const conv = grafted([{ id: 'dup', role: 'user', content: { content_type: 'text', parts: ['first'] } }]);
    nodesOf(conv).later = { id: 'dup', parent: base.current_node as string, children: [], message: { id: 'dup', author: { role: 'user' }, create_time: 1714585070, content: { content_type: 'text', parts: ['second'] } } };
    const s = read(conv).sessions[0]!;
    expect(s.entries.filter((e) => e.id === 'dup').map(textOf)).toEqual(['first']);
  });

  it('a mapping that is all one parent loop counts every node left out', () => {
    const loop = (id: string, parent: string) => ({ id, parent, children: [parent], message: { id, author: { role: 'user' }, content: { content_type: 'text', parts: [id] } } });
    const r = read({ title: 'Loop', mapping: { x: loop('x', 'y'), y: loop('y', 'x') } });
    expect(r.warnings).toEqual(['Conversation 1: 2 node(s) sit on a parent loop and were left out.']);
  });

  it('opens at the newest message when the current node is the root without a message; no warning without a current node', () => {
    const conv = structuredClone(base);
    const root = Object.values(nodesOf(conv)).find((n) => n.parent === null)!;
    conv.current_node = root.id;
    expect(read(conv).sessions[0]!.meta.leafId).toBe(new SessionTree(read(base).sessions[0]!.entries).newestLeaf());
    const none = structuredClone(base);
    delete none.current_node;
    expect(read(none).warnings).toEqual([]);
  });
});

describe('ChatGPT reader: title, dates and errors', () => {
  it('titles a conversation with a blank title, or whose first messages are notes and replies, by its first user message', () => {
    const conv = structuredClone(base);
    conv.title = '   ';
    // A system message with text before everything: the first entry is a note.
    const root = Object.values(nodesOf(conv)).find((n) => n.parent === null)!;
    nodesOf(conv).note = { id: 'note', parent: root.id, children: [], message: { id: 'note', author: { role: 'system' }, create_time: 1714585030, content: { content_type: 'text', parts: ['Be kind.'] } } };
    root.children.unshift('note');
    const s = read(conv).sessions[0]!;
    const firstUser = Object.values(nodesOf(base)).find((n) => (n.message?.author as Raw | undefined)?.role === 'user')!;
    expect(s.entries[0]!.type).toBe('custom');
    expect(s.meta.title).toBe(((firstUser.message!.content as Raw).parts as string[])[0]);
    const noUser = structuredClone(base);
    delete noUser.title;
    for (const n of Object.values(nodesOf(noUser))) if ((n.message?.author as Raw | undefined)?.role === 'user') (n.message!.author as Raw).role = 'assistant';
    expect(read(noUser).sessions[0]!.meta.title).toBe('ChatGPT conversation');
    // The first message an assistant's: still the first user message.
    const replyFirst = grafted([{ id: 'late', role: 'user', content: { content_type: 'text', parts: ['Later question'] } }]);
    delete replyFirst.title;
    for (const n of Object.values(nodesOf(replyFirst))) if (n.id !== 'late' && (n.message?.author as Raw | undefined)?.role === 'user') (n.message!.author as Raw).role = 'assistant';
    expect(read(replyFirst).sessions[0]!.meta.title).toBe('Later question');
  });

  it('updatedAt is the conversation’s update time (in seconds) when that is the latest', () => {
    const conv = structuredClone(base);
    const later = Math.max(...Object.values(nodesOf(conv)).map((n) => (n.message?.create_time as number | undefined) ?? 0)) + 3600;
    conv.update_time = later;
    expect(read(conv).sessions[0]!.meta.updatedAt).toBe(Math.round(later * 1000));
  });

  it('is undated only when neither the conversation nor any message has a time', () => {
    const importedAt = Date.parse('2030-01-01T00:00:00Z');
    const conv = structuredClone(base);
    delete conv.create_time;
    const dated = read(conv, { importedAt }).sessions[0]!;
    expect(dated.meta.undated).toBeUndefined();
    for (const n of Object.values(nodesOf(conv))) if (n.message) delete n.message.create_time;
    const undated = read(conv, { importedAt }).sessions[0]!;
    expect(undated.meta.undated).toBe(true);
    expect(undated.meta.createdAt).toBe(importedAt);
  });

  it('refuses what is not a conversation, naming it and the ChatGPT format', () => {
    const cases: [string, RegExp][] = [
      ['[7]', /^Conversation 1: expected a JSON object, found 7$/],
      ['[[1]]', /^Conversation 1: expected a JSON object, found a JSON array$/],
      ['[{"title": "Plans"}]', /^Conversation 1 \("Plans"\): has no "mapping" of messages$/],
      ['[{}]', /^Conversation 1: has no "mapping" of messages$/],
      ['{"foo": 1}', /^Expected a ChatGPT export: an array of conversations, or one conversation with a "mapping"\.$/],
      ['7', /^Expected a ChatGPT export/],
      ['[{"mapping": }]', /invalid JSON/],
    ];
    for (const [text, message] of cases) {
      const err = thrown(() => readChatGpt(text));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).message).toMatch(message);
      expect((err as ImportError).format).toBe('chatgpt');
    }
  });

  it('says so when the export holds no conversation', () => {
    expect(readChatGpt('[]').warnings).toEqual(['The export holds no conversations.']);
  });
});
