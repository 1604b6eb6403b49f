import { describe, expect, it } from 'vitest';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { contextToModelMessages } from '@/lib/providers/modelMessages';
import { TreeBuilder } from '@/lib/testing/builder';
import type { CustomEntry, LabelEntry, MessageEntry, SessionEntry } from '@/lib/session/types';
import { cacheUsable, countEntry, countText, loadEncoding } from './exact';
import {
  compactionSummaryText,
  branchSummaryText,
  MESSAGE_OVERHEAD,
  REPLY_PRIMING,
  TOKEN_CACHE_VERSION,
  TOOL_CALL_OVERHEAD,
} from './entryText';

const PLAIN = { disallowedSpecial: new Set<string>() };

const SAMPLES = [
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog.',
  'export function countTokens(text: string): number {\n  return encode(text).length;\n}\n',
  '这个函数的返回值不正确，请检查一下。',
  'Ça marche très bien — naïve café 👍🚀',
  '    indented\n\n\n\ttabs and   spaces   ',
  '{"path":"lib/tokens/exact.ts","offset":12,"limit":200}',
];

describe('exact counts', () => {
  it('equal gpt-tokenizer for known strings (o200k and cl100k)', async () => {
    await loadEncoding('cl100k_base');
    for (const s of SAMPLES) {
      expect(countText(s)).toBe(o200k.encode(s).length);
      expect(countText(s, 'cl100k_base')).toBe(cl100k.encode(s).length);
    }
    expect(countText('')).toBe(0);
    // The encodings really differ on some text, so using the wrong one would show.
    expect(SAMPLES.some((s) => countText(s) !== countText(s, 'cl100k_base'))).toBe(true);
  });

  it('count special-token strings in transcripts as text instead of throwing', () => {
    const s = 'the model printed <|endoftext|> and <|im_start|> literally';
    expect(() => o200k.encode(s)).toThrow();
    expect(countText(s)).toBe(o200k.encode(s, PLAIN).length);
    expect(countText('<|endoftext|>')).toBeGreaterThan(1);
  });
});

describe('message framing', () => {
  it('matches encodeChat: 4 tokens per message, 3 to prime the reply (o200k / gpt-4o)', () => {
    const b = new TreeBuilder();
    const turns = [b.user('What does the worker do?'), b.assistant('It counts tokens off the main thread.'), b.user('And the cut point?')];
    const chat = turns.map((e) => {
      const m = (e as MessageEntry).message;
      return { role: m.role, content: (m.content[0] as { text: string }).text };
    });
    const ours = turns.reduce((n, e) => n + countEntry(e).o200k, 0) + REPLY_PRIMING;
    expect(ours).toBe(o200k.encodeChat(chat, 'gpt-4o').length);
    expect(countEntry(turns[0]!).o200k).toBe(o200k.encode(chat[0]!.content).length + MESSAGE_OVERHEAD);
  });

  it('matches encodeChat for cl100k / gpt-4 too', async () => {
    await loadEncoding('cl100k_base');
    const e = new TreeBuilder().user('Count me with the older encoding, please.');
    const chat = [{ role: 'user' as const, content: 'Count me with the older encoding, please.' }];
    expect(countEntry(e, { cl100k: true }).cl100k! + REPLY_PRIMING).toBe(cl100k.encodeChat(chat, 'gpt-4').length);
  });

  it('counts a tool call as name + JSON arguments + call metadata', () => {
    const args = { command: 'ls -la lib/tokens', timeout: 30 };
    const e = new TreeBuilder().toolCall('bash', args, 'call_1');
    expect(countEntry(e).o200k).toBe(MESSAGE_OVERHEAD + TOOL_CALL_OVERHEAD + o200k.encode('bash').length + o200k.encode(JSON.stringify(args)).length);
  });
});

describe('what an entry counts', () => {
  const b = new TreeBuilder();
  const u = b.user('hello there');
  const thinking = b.assistant([
    { type: 'thinking', thinking: 'Let me think about this carefully.' },
    { type: 'text', text: 'Done.' },
  ]);
  const redacted = b.assistant([
    { type: 'thinking', thinking: 'EuYBCkQYAiJA'.repeat(50), redacted: true },
    { type: 'text', text: 'Done.' },
  ]);
  const result = b.toolResult('call_1', 'bash', 'total 8\n-rw-r--r-- 1 dev staff 120 a.ts');
  const comp = b.compaction('We fixed the counter.', u.id);
  const branch = b.branchSummary('Tried a WASM tokenizer, too slow.', u.id);
  const failed = b.assistant([], undefined, { stopReason: 'error', errorMessage: 'overloaded' });
  const n = (s: string) => o200k.encode(s).length;

  it('counts text, thinking and tool results with framing', () => {
    expect(countEntry(u).o200k).toBe(MESSAGE_OVERHEAD + n('hello there'));
    expect(countEntry(thinking).o200k).toBe(MESSAGE_OVERHEAD + n('Let me think about this carefully.') + n('Done.'));
    expect(countEntry(result).o200k).toBe(MESSAGE_OVERHEAD + n('total 8\n-rw-r--r-- 1 dev staff 120 a.ts'));
  });

  it('skips redacted reasoning and failed empty replies', () => {
    expect(countEntry(redacted).o200k).toBe(MESSAGE_OVERHEAD + n('Done.'));
    expect(countEntry(failed).o200k).toBe(0);
  });

  it('counts summaries with the wrapper the model sees', () => {
    expect(countEntry(comp).o200k).toBe(MESSAGE_OVERHEAD + n(compactionSummaryText('We fixed the counter.')));
    expect(countEntry(branch).o200k).toBe(MESSAGE_OVERHEAD + n(branchSummaryText('Tried a WASM tokenizer, too slow.')));
    expect(compactionSummaryText('x')).toContain('x');
  });

  it('counts summaries as the request builder sends them', () => {
    const sent = contextToModelMessages([
      { kind: 'compactionSummary', entryId: 'c', summary: '  We fixed the counter.\n', tokensBefore: 1 },
      { kind: 'message', entryId: 'a', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } },
    ]);
    const first = sent[0]!;
    const text = typeof first.content === 'string' ? first.content : (first.content[0] as { text: string }).text;
    expect(text).toBe(compactionSummaryText('  We fixed the counter.\n'));
  });

  it('counts bookkeeping entries as 0', () => {
    const label: LabelEntry = { type: 'label', id: 'l', parentId: null, timestamp: 0, targetId: u.id, label: 'important' };
    const custom: CustomEntry = { type: 'custom', id: 'x', parentId: null, timestamp: 0, customType: 'bash', data: { out: 'lots of text '.repeat(100) } };
    const others: SessionEntry[] = [label, custom, b.modelChange('openai:gpt-4o'), b.revision(comp.id, 'edit', 'A much longer edited summary text')];
    for (const e of others) expect(countEntry(e)).toEqual({ v: TOKEN_CACHE_VERSION, o200k: 0, chars4: 0 });
  });

  it('keeps images out of the text count and out of chars/4', () => {
    const withImage: MessageEntry = {
      ...u,
      id: 'img',
      message: { role: 'user', content: [{ type: 'text', text: 'hello there' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo'.repeat(10_000) }] },
    };
    expect(countEntry(withImage)).toEqual(countEntry(u));
    expect(countEntry(u).chars4).toBe(Math.ceil('hello there'.length / 4));
  });

  it('marks caches with the rules version', () => {
    const c = countEntry(u);
    expect(cacheUsable(c, 'o200k_base')).toBe(true);
    expect(cacheUsable(c, 'cl100k_base')).toBe(false);
    expect(cacheUsable({ ...c, v: TOKEN_CACHE_VERSION - 1 }, 'o200k_base')).toBe(false);
    expect(cacheUsable(undefined, 'o200k_base')).toBe(false);
  });
});
