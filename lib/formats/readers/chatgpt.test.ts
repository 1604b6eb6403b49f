import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { messageText } from '@/lib/session/messages';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readChatGpt } from './chatgpt';

type Node = { id: string; parent: string | null; children: string[]; message: Raw | null };
const nodesOf = (conv: Raw) => Object.values(conv.mapping as Record<string, Node>);
const role = (n: Node) => ((n.message?.author as Raw | undefined)?.role as string | undefined) ?? null;
const isEmptySystem = (n: Node) => role(n) === 'system' && ((n.message!.content as Raw).parts as string[]).every((p) => p === '');
/** Nodes that carry a conversation message (not the synthetic root, not an empty system message). */
const kept = (conv: Raw) => nodesOf(conv).filter((n) => n.message && !isEmptySystem(n));

describe('ChatGPT tree fixture (chatgpt-tree.json)', () => {
  const text = readFixture('chatgptTree');
  const conv = (JSON.parse(text) as Raw[])[0]!;
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => {
    const s = readChatGpt(text).sessions[0]!;
    return { s, tree: new SessionTree(s.entries) };
  };

  it('has 13 mapping nodes; every node with a message becomes an entry with its id', () => {
    const { s } = read();
    expect(nodesOf(conv)).toHaveLength(13);
    expectWellFormed(s);
    expect(s.entries.map((e) => e.id).sort()).toEqual(kept(conv).map((n) => n.id).sort());
  });

  it('keeps both branch points, with their children in the export order', () => {
    const { tree } = read();
    const rawBranchPoints = nodesOf(conv).filter((n) => n.children.length > 1);
    expect(rawBranchPoints).toHaveLength(2);
    expect(tree.branchPoints().map((e) => e.id).sort()).toEqual(rawBranchPoints.map((n) => n.id).sort());
    for (const n of rawBranchPoints) expect(tree.children(n.id).map((e) => e.id)).toEqual(n.children);
    expect(tree.roots()).toHaveLength(1);
  });

  it('opens at current_node, which is a leaf', () => {
    const { s, tree } = read();
    expect(s.meta.leafId).toBe(conv.current_node);
    expect(tree.children(s.meta.leafId!)).toHaveLength(0);
    const ctx = buildSessionContext(tree, s.meta.leafId);
    expect(ctx.items[0]!.kind === 'message' && ctx.items[0]!.message.role).toBe('user');
    expect(ctx.items.length).toBe(tree.pathTo(s.meta.leafId).length);
  });

  it('marks the interrupted reply', () => {
    const { s } = read();
    const unfinished = nodesOf(conv).filter((n) => n.message && n.message.status !== 'finished_successfully');
    expect(unfinished).toHaveLength(1);
    const interrupted = s.entries.filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.stopReason === 'interrupted');
    expect(interrupted.map((e) => e.id)).toEqual(unfinished.map((n) => n.id));
  });

  it('sets title, times (seconds → ms), model', () => {
    const { s } = read();
    expect(s.meta.title).toBe(conv.title);
    expect(s.meta.createdAt).toBe(Math.round((conv.create_time as number) * 1000));
    const first = nodesOf(conv).find((n) => role(n) === 'user')!;
    expect(s.entries.find((e) => e.id === first.id)!.timestamp).toBe(Math.round((first.message!.create_time as number) * 1000));
    expect(s.meta.model).toBe(`openai:${conv.default_model_slug as string}`);
    expect(s.meta.source).toMatchObject({ format: 'chatgpt', originalId: conv.conversation_id });
  });
});

describe('ChatGPT export fixture (chatgpt-export.json)', () => {
  const text = readFixture('chatgptExport');
  const convs = JSON.parse(text) as Raw[];
  const read = () => readChatGpt(text, { fileName: 'conversations.json' });

  it('gives one session per conversation', () => {
    const result = read();
    expect(convs).toHaveLength(2);
    expect(result.sessions).toHaveLength(2);
    result.sessions.forEach((s, i) => {
      expectWellFormed(s);
      expect(s.meta.title).toBe(convs[i]!.title);
      expect(s.meta.leafId).toBe(convs[i]!.current_node);
      expect(s.entries).toHaveLength(kept(convs[i]!).length);
      // Same source file, different conversations: the duplicate check needs both.
      expect(s.meta.source?.hash).toBe(result.sessions[0]!.meta.source?.hash);
      expect(s.meta.source?.originalId).toBe(convs[i]!.conversation_id);
    });
  });

  it('maps browser tool use: calls for recipient ≠ all, results for tool messages, all paired', () => {
    const result = read();
    const s = result.sessions[0]!;
    const nodes = nodesOf(convs[0]!);
    const calls = nodes.filter((n) => role(n) === 'assistant' && n.message!.recipient !== 'all');
    const tools = nodes.filter((n) => role(n) === 'tool');
    expect(calls.length).toBeGreaterThan(0);
    const callParts = s.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content : [])).filter((p) => p.type === 'toolCall');
    expect(callParts).toHaveLength(calls.length);
    for (const c of calls) expect(callParts).toContainEqual({ type: 'toolCall', id: c.id, name: c.message!.recipient, arguments: { code: (c.message!.content as Raw).text } });
    const results = s.entries.filter((e) => e.type === 'message' && e.message.role === 'toolResult');
    expect(results.map((e) => e.id).sort()).toEqual(tools.map((n) => n.id).sort());
    expect(expectToolResultsPaired(s)).toBe(tools.length);
    expect(s.meta.model).toBe('openai:gpt-4');
  });

  it('turns tether_browsing_display and tether_quote into readable text', () => {
    const result = read();
    const s = result.sessions[0]!;
    const nodes = nodesOf(convs[0]!);
    for (const type of ['tether_browsing_display', 'tether_quote']) {
      const n = nodes.find((x) => (x.message?.content as Raw | undefined)?.content_type === type)!;
      const e = s.entries.find((x) => x.id === n.id)!;
      const c = n.message!.content as Raw;
      const t = e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : '';
      expect(t).toContain(type === 'tether_quote' ? (c.url as string) : (c.result as string).slice(0, 100));
    }
  });
});

describe('ChatGPT citation markers', () => {
  const text = readFixture('chatgptExport');
  const convs = JSON.parse(text) as Raw[];
  const replyText = (s: { entries: SessionEntry[] }, id: string) => {
    const e = s.entries.find((x) => x.id === id)!;
    return e.type === 'message' ? messageText(e.message) : '';
  };

  it('turns each 【n†source】 of the export into a link to the page it cites', () => {
    const cited = convs.flatMap((c) => nodesOf(c)).filter((n) => ((n.message?.metadata as Raw | undefined)?.citations as unknown[] | undefined)?.length);
    expect(cited).toHaveLength(3);
    const sessions = readChatGpt(text).sessions;
    for (const n of cited) {
      const raw = ((n.message!.content as Raw).parts as string[]).join('\n\n');
      expect(raw).toMatch(/【\d+†source】/);
      const s = sessions.find((x) => x.entries.some((e) => e.id === n.id))!;
      const out = replyText(s, n.id);
      expect(out).not.toMatch(/[【】]/);
      for (const c of (n.message!.metadata as Raw).citations as Raw[]) {
        const url = (c.metadata as Raw).url as string;
        expect(out).toContain(`(${url})`);
        expect(out).toContain(`[${new URL(url).hostname.replace(/^www\./, '')}]`);
      }
      expect(out).not.toMatch(/\)\(\[/);
      // Text around the marker is untouched.
      expect(out.startsWith(raw.slice(0, raw.indexOf('【')).trimEnd())).toBe(true);
    }
  });

  it('resolves the private-use cite markers of newer exports from content_references, keeps entity names, drops the rest', () => {
    const conv = structuredClone(convs[1]!);
    const reply = nodesOf(conv).find((n) => role(n) === 'assistant' && n.message!.recipient === 'all' && ((n.message!.content as Raw).parts as string[])[0]!.length > 40)!;
    const parts = (reply.message!.content as Raw).parts as string[];
    const original = parts[0]!;
    const cite = '\uE200cite\uE202turn0search0\uE202turn0news3\uE201';
    parts[0] = `${original} \uE200entity\uE202["car","Volkswagen Transporter",null]\uE201 is common ${cite}. \uE203Highlighted\uE204 \uE200image_group\uE202{"query":["van"]}\uE201`;
    (reply.message!.metadata as Raw).content_references = [
      { matched_text: cite, type: 'grouped_webpages', items: [{ title: 'Specs', url: 'https://www.example.org/specs', attribution: 'example.org' }, { title: 'News', url: 'https://news.example.com/a' }] },
    ];
    const s = readChatGpt(JSON.stringify([conv])).sessions[0]!;
    expect(replyText(s, reply.id)).toBe(`${original} Volkswagen Transporter is common ([example.org](https://www.example.org/specs), [news.example.com](https://news.example.com/a)). Highlighted`);
  });

  it('leaves a reply without markers exactly as written', () => {
    const s = readChatGpt(readFixture('chatgptTree')).sessions[0]!;
    const conv = (JSON.parse(readFixture('chatgptTree')) as Raw[])[0]!;
    for (const n of nodesOf(conv).filter((x) => role(x) === 'assistant' && x.message!.recipient === 'all')) {
      const parts = ((n.message!.content as Raw).parts as unknown[]).filter((p): p is string => typeof p === 'string');
      expect(replyText(s, n.id)).toBe(parts.filter(Boolean).join('\n\n'));
    }
  });
});

describe('ChatGPT edge cases', () => {
  it('accepts a single conversation object and multimodal image pointers', () => {
    const conv = {
      title: 'img',
      create_time: 1700000000,
      current_node: 'b',
      conversation_id: 'c',
      mapping: {
        r: { id: 'r', message: null, parent: null, children: ['a'] },
        a: {
          id: 'a',
          parent: 'r',
          children: ['b'],
          message: { author: { role: 'user' }, create_time: 1700000001, content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-1', width: 640, height: 480, size_bytes: 1234 }, 'what is this'] }, status: 'finished_successfully', recipient: 'all' },
        },
        b: { id: 'b', parent: 'a', children: [], message: { author: { role: 'assistant' }, content: { content_type: 'text', parts: ['a cat'] }, status: 'finished_successfully', recipient: 'all', metadata: { model_slug: 'gpt-4o' } } },
      },
    };
    const s = readChatGpt(JSON.stringify(conv)).sessions[0]!;
    expectWellFormed(s);
    expect(s.entries[0]).toMatchObject({ id: 'a', parentId: null, message: { content: [{ type: 'image', url: 'file-service://file-1', width: 640, height: 480, byteLength: 1234 }, { type: 'text', text: 'what is this' }] } });
    expect(s.entries[1]!.timestamp).toBe(1700000001000);
    expect(s.meta.model).toBe('openai:gpt-4o');
  });

  it('explains what it expected when given something else', () => {
    expect(() => readChatGpt('{"foo": 1}')).toThrow(ImportError);
    expect(() => readChatGpt('[{"title": "x"}]')).toThrow(/Conversation 1.*has no "mapping"/);
  });
});
