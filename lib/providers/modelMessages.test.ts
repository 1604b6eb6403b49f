import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ContextItem } from '@/lib/session/context';
import { chatMessageSchema } from '@/lib/session/schema';
import type { ChatMessage } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX, contextToModelMessages } from './modelMessages';

/** The pi v1 transcript as context items: its messages (user, assistant, toolResult) and its compaction summaries, in file order. */
function piContext(): ContextItem[] {
  const items: ContextItem[] = [];
  const lines = readFixture('piV1').split('\n').filter((l) => l.trim());
  let n = 0;
  for (const line of lines) {
    // One line of this file holds two objects with nothing between them.
    for (const raw of line.split(/(?<=\})(?=\{"type")/)) {
      const o = JSON.parse(raw) as { type: string; message?: unknown; summary?: string; tokensBefore?: number };
      if (o.type === 'message') {
        // pi's usage carries a cost breakdown object where ours has a number; usage is irrelevant here.
        const { usage: _usage, ...message } = o.message as Record<string, unknown>;
        const parsed = chatMessageSchema.safeParse(message);
        if (parsed.success) items.push({ kind: 'message', entryId: `e${++n}`, message: parsed.data as ChatMessage });
      } else if (o.type === 'compaction') {
        items.push({ kind: 'compactionSummary', entryId: `c${++n}`, summary: o.summary!, tokensBefore: o.tokensBefore! });
      }
    }
  }
  return items;
}

function textOf(m: ModelMessage): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content as { type: string; text?: string }[]).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

describe('contextToModelMessages on the real pi transcript', () => {
  const items = piContext();
  const messages = contextToModelMessages(items);
  const sourceMessages = items.flatMap((i) => (i.kind === 'message' ? [i.message] : []));

  it('read the fixture', () => {
    expect(sourceMessages.filter((m) => m.role === 'toolResult').length).toBe(429);
    expect(sourceMessages.filter((m) => m.role === 'assistant').length).toBe(504);
    expect(items.filter((i) => i.kind === 'compactionSummary')).toHaveLength(2);
  });

  it('alternates user/assistant strictly, starting with the user, with no tool or system messages', () => {
    expect(messages[0]!.role).toBe('user');
    for (let i = 1; i < messages.length; i++) expect(messages[i]!.role, `message ${i}`).not.toBe(messages[i - 1]!.role);
    expect(new Set(messages.map((m) => m.role))).toEqual(new Set(['user', 'assistant']));
  });

  it('flattens every tool call into its assistant turn and every result into the next user turn', () => {
    const all = messages.map(textOf).join('\n');
    const calls = sourceMessages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((p) => p.type === 'toolCall') : []));
    expect(calls).toHaveLength(432);
    const assistantText = messages.filter((m) => m.role === 'assistant').map(textOf).join('\n');
    expect(assistantText.match(/^\[tool call [^\]]+\] \{/gm)).toHaveLength(432);
    const userText = messages.filter((m) => m.role === 'user').map(textOf).join('\n');
    expect(userText.match(/^\[tool result [^\]]+\]/gm)).toHaveLength(429);
    // The arguments survive as JSON.
    const first = calls[0]!;
    expect(all).toContain(`[tool call ${first.name}] ${JSON.stringify(first.arguments)}`);
  });

  it('keeps every user text and every image (as base64 file parts)', () => {
    const userText = messages.filter((m) => m.role === 'user').map(textOf).join('\n');
    for (const m of sourceMessages) {
      if (m.role !== 'user') continue;
      for (const p of m.content) if (p.type === 'text' && p.text.trim()) expect(userText).toContain(p.text);
    }
    const files = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; mediaType?: string }[]).filter((p) => p.type === 'file') : []));
    expect(files).toHaveLength(3);
    expect(files.every((f) => f.mediaType === 'image/png')).toBe(true);
  });

  it('presents compaction summaries as tagged user text', () => {
    const summaries = items.filter((i): i is Extract<ContextItem, { kind: 'compactionSummary' }> => i.kind === 'compactionSummary');
    const userText = messages.filter((m) => m.role === 'user').map(textOf).join('\n');
    for (const s of summaries) expect(userText).toContain(`${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n${s.summary.trim()}\n</summary>`);
  });

  it('sends nothing empty', () => {
    for (const m of messages) {
      expect(Array.isArray(m.content) && m.content.length > 0).toBe(true);
      for (const p of m.content as { type: string; text?: string }[]) if (p.type === 'text') expect(p.text!.trim().length).toBeGreaterThan(0);
    }
  });
});

describe('contextToModelMessages edge cases', () => {
  it('drops thinking, opens with a user turn when the context starts with the assistant, and keeps branch summaries', () => {
    const items: ContextItem[] = [
      { kind: 'message', entryId: 'a1', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'secret plan' }, { type: 'text', text: 'Hello.' }] } },
      { kind: 'branchSummary', entryId: 'b1', summary: 'Tried approach A; it failed.', fromId: 'x' },
      { kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'Try B.' }, { type: 'image', mimeType: 'image/jpeg', url: 'http://169.254.169.254/x.png' }] } },
      { kind: 'message', entryId: 'a2', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'only thoughts' }] } },
      { kind: 'message', entryId: 'u2', message: { role: 'user', content: [{ type: 'file', name: 'notes.md', mimeType: 'text/markdown', byteLength: 5, text: '# hi' }, { type: 'file', name: 'a.pdf', mimeType: 'application/pdf', byteLength: 99 }] } },
    ];
    const out = contextToModelMessages(items);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const all = out.map(textOf).join('\n');
    expect(all).not.toContain('secret plan');
    expect(all).not.toContain('only thoughts');
    expect(all).toContain(`${BRANCH_SUMMARY_PREFIX}\n\n<summary>\nTried approach A; it failed.\n</summary>`);
    // An image known only by URL is never handed to the SDK as something to download.
    expect(JSON.stringify(out)).not.toMatch(/"type":"file"[^}]*169\.254/);
    expect(all).toContain('[image not included: http://169.254.169.254/x.png]');
    expect(all).toContain('<file name="notes.md" type="text/markdown">\n# hi\n</file>');
    expect(all).toContain('[attachment a.pdf (application/pdf, 99 bytes) not included]');
  });

  it('returns nothing for a context with nothing to say', () => {
    expect(contextToModelMessages([{ kind: 'message', entryId: 'a', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] } }])).toEqual([]);
  });
});
