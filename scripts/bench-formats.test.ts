import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { importStream, importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import { utf8Length } from '@/lib/formats/lines';
import { chatGptExportChunks, emptyShape, generateChatGptExport, type ChatGptConversation } from '@/lib/testing/generateChatGpt';
import { claudeCodeFolderFiles, emptyClaudeCodeShape } from '@/lib/testing/generateClaudeCode';
import { expectToolResultsPaired, expectWellFormed } from '@/lib/testing/formatChecks';

/**
 * The generated ChatGPT export the formats bench imports must be something
 * the importer reads the way it reads a real export: otherwise the bench
 * would time error paths. Expectations are computed from the raw JSON here,
 * not by the importer.
 */

function exportText(seed: number, targetBytes: number) {
  const shape = emptyShape();
  const text = [...chatGptExportChunks({ seed, targetBytes }, shape)].join('');
  return { text, shape };
}

/** Messages the importer keeps: everything but the empty hidden system message. */
function keptMessages(c: ChatGptConversation): number {
  return Object.values(c.mapping).filter((n) => n.message && n.message.author.role !== 'system').length;
}

function branchPoints(c: ChatGptConversation): number {
  return Object.values(c.mapping).filter((n) => n.children.length > 1).length;
}

describe('generated ChatGPT export', () => {
  it('is deterministic and sized as asked', () => {
    const a = exportText(7, 300_000);
    const b = exportText(7, 300_000);
    const c = exportText(8, 300_000);
    expect(a.text).toBe(b.text);
    expect(c.text).not.toBe(a.text);
    expect(a.shape.bytes).toBe(Buffer.byteLength(a.text, 'utf8'));
    expect(a.shape.bytes).toBeGreaterThanOrEqual(300_000);
    const parsed = JSON.parse(a.text) as ChatGptConversation[];
    expect(parsed).toHaveLength(a.shape.conversations);
    expect(parsed.reduce((n, conv) => n + Object.keys(conv.mapping).length, 0)).toBe(a.shape.nodes);
  });

  it('counts UTF-8 bytes like Buffer does', () => {
    for (const s of ['', 'plain', 'Größe', '这个函数', '👍 ship it 🚀', 'lone \ud800 surrogate', 'end \ud83d']) {
      expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
    }
  });

  it('has branches, tool use, images and reasoning in realistic proportions', () => {
    const { shape } = exportText(11, 2_000_000);
    expect(shape.conversations).toBeGreaterThan(20);
    expect(shape.editedPrompts).toBeGreaterThan(0);
    expect(shape.regeneratedReplies).toBeGreaterThan(0);
    expect(shape.branchPoints).toBe(shape.editedPrompts + shape.regeneratedReplies);
    expect(shape.toolCalls).toBeGreaterThan(0);
    expect(shape.images).toBeGreaterThan(0);
    expect(shape.reasoningReplies).toBeGreaterThan(0);
    // Real exports average a few KB per message (text plus metadata).
    const perMessage = shape.bytes / shape.messages;
    expect(perMessage).toBeGreaterThan(500);
    expect(perMessage).toBeLessThan(10_000);
  });

  it('imports cleanly: every conversation, every message, every branch point, current_node as the leaf', () => {
    const { conversations } = generateChatGptExport({ seed: 3, conversations: 40 });
    const result = importText(JSON.stringify(conversations), { fileName: 'conversations.json' });
    expect(result.format).toBe('chatgpt');
    expect(result.warnings).toEqual([]);
    expect(result.sessions).toHaveLength(conversations.length);
    result.sessions.forEach((s, i) => {
      const conv = conversations[i]!;
      expect(s.meta.title).toBe(conv.title);
      expect(s.meta.source?.originalId).toBe(conv.conversation_id);
      expect(s.entries).toHaveLength(keptMessages(conv));
      expect(s.meta.leafId).toBe(conv.current_node);
      const tree = new SessionTree(s.entries);
      expect(s.entries.filter((e) => tree.children(e.id).length > 1)).toHaveLength(branchPoints(conv));
    });
    const kinds = new Set(result.sessions.flatMap((s) => s.entries.flatMap((e) => (e.type === 'message' ? e.message.content.map((p) => `${e.message.role}:${p.type}`) : [e.type]))));
    for (const k of ['user:text', 'assistant:text', 'assistant:toolCall', 'assistant:thinking', 'toolResult:text']) expect(kinds).toContain(k);
  });

  it('streams in 64 KB chunks to the same sessions as importText', async () => {
    const { text } = exportText(5, 1_000_000);
    const whole = importText(text, { fileName: 'conversations.json' });
    async function* chunks() {
      for (let i = 0; i < text.length; i += 65_536) yield text.slice(i, i + 65_536);
    }
    const streamed = await importStream(chunks(), { fileName: 'conversations.json' });
    expect(streamed.sessions).toHaveLength(whole.sessions.length);
    const strip = (r: typeof whole) => r.sessions.map((s) => ({ ...s, meta: { ...s.meta, id: '' } }));
    expect(isDeepStrictEqual(strip(streamed), strip(whole))).toBe(true);
  });
});

describe('generated Claude Code folder', () => {
  const generate = (seed: number, files: number, targetBytes: number) => {
    const shape = emptyClaudeCodeShape();
    return { files: [...claudeCodeFolderFiles({ seed, files, targetBytes }, shape)], shape };
  };

  it('is deterministic, sized as asked and skewed like a real projects folder', () => {
    const a = generate(7, 40, 4_000_000);
    expect(generate(7, 40, 4_000_000).files).toEqual(a.files);
    expect(generate(8, 40, 4_000_000).files).not.toEqual(a.files);
    expect(a.files).toHaveLength(40);
    const sizes = a.files.map((f) => Buffer.byteLength(f.text, 'utf8'));
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(a.shape.bytes);
    expect(a.shape.bytes).toBeGreaterThan(4_000_000 * 0.95);
    expect(a.shape.bytes).toBeLessThan(4_000_000 * 1.3);
    sizes.sort((x, y) => x - y);
    // Many small sessions, a few large ones.
    expect(sizes.at(-1)!).toBeGreaterThan(5 * sizes[20]!);
    expect(new Set(a.files.map((f) => f.path)).size).toBe(40);
    expect(a.files.every((f) => /^-home-dev-[a-z-]+\/[0-9a-f-]{36}\.jsonl$/.test(f.path))).toBe(true);
  });

  it('reads as Claude Code: an entry per uuid line, every tool call paired, notes and sub-agents where they were written', () => {
    const { files, shape } = generate(11, 30, 3_000_000);
    let entries = 0;
    let calls = 0;
    let paired = 0;
    let notes = 0;
    let compactions = 0;
    for (const f of files) {
      const r = importText(f.text, { fileName: f.path.split('/')[1] });
      expect(r.format).toBe('claude-code');
      const s = r.sessions[0]!;
      expectWellFormed(s);
      entries += s.entries.length;
      calls += s.entries.reduce((n, e) => n + (e.type === 'message' && e.message.role === 'assistant' ? e.message.content.filter((p) => p.type === 'toolCall').length : 0), 0);
      paired += expectToolResultsPaired(s);
      notes += s.entries.filter((e) => e.type === 'custom' && e.customType === 'claude-code:note').length;
      compactions += s.entries.filter((e) => e.type === 'compaction').length;
    }
    // A compaction's boundary and summary lines are one entry.
    expect(entries).toBe(shape.uuidLines - shape.compactions);
    expect(calls).toBe(shape.toolCalls);
    expect(paired).toBe(shape.toolCalls);
    expect(notes).toBe(shape.commandNotes);
    expect(compactions).toBe(shape.compactions);
    expect(shape.sidechainLines).toBeGreaterThan(0);
    expect(shape.commandNotes).toBeGreaterThan(0);
  });
});
