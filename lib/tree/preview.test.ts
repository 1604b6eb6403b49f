import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importText } from '@/lib/formats/import';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { describe, expect, it } from 'vitest';
import type { CustomEntry, MessageEntry, SessionEntry } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { PREVIEW_MAX, clip, entryPreview, firstLine, matchRange, previewSearchText } from './preview';

const text = (e: SessionEntry) => entryPreview(e).text;

describe('entry previews', () => {
  const b = new TreeBuilder();

  it('user and assistant messages show their text on one line', () => {
    expect(text(b.user('  Hello\n\n  there  '))).toBe('user: Hello there');
    expect(text(b.assistant('Sure.\n\n```ts\nconst x = 1;\n```'))).toBe('assistant: Sure. ```ts const x = 1; ```');
  });

  it('a user message without text names its attachments', () => {
    const e: MessageEntry = {
      id: 'x',
      parentId: null,
      timestamp: 0,
      type: 'message',
      message: {
        role: 'user',
        content: [
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'file', name: 'notes.md', mimeType: 'text/markdown', byteLength: 10 },
        ],
      },
    };
    expect(text(e)).toBe('user: [image] [file: notes.md]');
  });

  it('an assistant message that only calls tools shows the calls with short arguments', () => {
    const e = b.toolCall('bash', { command: 'ls -la /tmp', timeout: 30 }, 'call1');
    expect(text(e)).toBe('assistant: [tool: bash command="ls -la /tmp" timeout=30]');
    const two = b.assistant([
      { type: 'thinking', thinking: 'let me look' },
      { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.ts', opts: { x: 1 }, list: [1, 2] } },
      { type: 'toolCall', id: 'c2', name: 'grep', arguments: {} },
    ]);
    expect(text(two)).toBe('assistant: [tool: read path="a.ts" opts={…} list=[…]] [tool: grep]');
  });

  it('text wins over tool calls; thinking-only and failed replies say so', () => {
    expect(text(b.assistant([{ type: 'text', text: 'Checking' }, { type: 'toolCall', id: 'c', name: 'ls', arguments: {} }]))).toBe('assistant: Checking');
    expect(text(b.assistant([{ type: 'thinking', thinking: '\n## Plan\nstep one\nstep two' }]))).toBe('assistant: [thinking] Plan');
    expect(text(b.assistant([{ type: 'thinking', thinking: 'x', redacted: true }]))).toBe('assistant: [thinking] (redacted)');
    const failed = b.assistant([], undefined, { stopReason: 'error', errorMessage: 'rate limited' });
    expect(entryPreview(failed)).toEqual({ kind: 'assistant', text: 'assistant: [error: rate limited]', error: true });
    expect(text(b.assistant([], undefined, { stopReason: 'aborted' }))).toBe('assistant: (no reply)');
    expect(text(b.assistant([], undefined, { status: 'streaming' }))).toBe('assistant: …');
  });

  it('tool results show the tool and the first non-blank line, errors marked', () => {
    expect(text(b.toolResult('c', 'bash', '\n\ntotal 8\n-rw-r--r-- a.txt'))).toBe('[tool result: bash] total 8');
    const err = b.toolResult('c', 'edit', 'Error: oldText not found', undefined, true);
    expect(entryPreview(err)).toEqual({ kind: 'toolResult', text: '[tool result: edit, error] Error: oldText not found', error: true });
    expect(text(b.toolResult('c', 'bash', ''))).toBe('[tool result: bash] (empty)');
  });

  it('compactions show tokens before and, when known, after', () => {
    const c = b.compaction('## Goal\nstuff', 'u1', 184525);
    expect(text(c)).toBe('[compaction: 184,525 tokens]');
    expect(text({ ...c, tokensAfter: 12000 })).toBe('[compaction: 184,525 tokens → 12,000]');
  });

  it('branch summaries, model changes and bookkeeping entries', () => {
    expect(text(b.branchSummary('\n# Tried the other approach\nIt failed.', 'a1'))).toBe('[branch summary] Tried the other approach');
    expect(text(b.modelChange('anthropic:claude-sonnet-4'))).toBe('[model: anthropic:claude-sonnet-4]');
    expect(text(b.label('u1', 'checkpoint'))).toBe('[label: checkpoint]');
    expect(text(b.label('u1', null))).toBe('[label cleared]');
    expect(text(b.revision('c1', 'undo'))).toBe('[summary revision: undo]');
    const custom: CustomEntry = { id: 'k', parentId: null, timestamp: 0, type: 'custom', customType: 'claude-code:system', display: 'Stop [pytest] ok' };
    expect(text(custom)).toBe('[custom: Stop [pytest] ok]');
    expect(text({ ...custom, display: undefined })).toBe('[custom: claude-code:system]');
  });

  // The time it takes is in the tree benchmark (scripts/bench-tree.ts).
  it('bounds the length on huge texts', () => {
    const huge = 'x'.repeat(2_000_000);
    const u = b.user(huge);
    const r = b.toolResult('c', 'read', `${huge}\nsecond`);
    expect(text(u).length).toBeLessThanOrEqual('user: '.length + PREVIEW_MAX);
    expect(text(r).endsWith('…')).toBe(true);
  });

  it('caches per entry object, and a replaced entry gets a fresh preview', () => {
    const e = b.user('first');
    expect(entryPreview(e)).toBe(entryPreview(e));
    const replaced: MessageEntry = { ...(e as MessageEntry), message: { role: 'user', content: [{ type: 'text', text: 'Second' }] } };
    expect(text(replaced)).toBe('user: Second');
    expect(previewSearchText(replaced)).toBe('user: second');
  });
});

describe('text helpers', () => {
  it('clip collapses whitespace and cuts with an ellipsis', () => {
    expect(clip(' a \n\t b ')).toBe('a b');
    expect(clip('abcdef', 4)).toBe('abc…');
  });
  it('firstLine skips blank lines and heading marks', () => {
    expect(firstLine('\n  \n### Title  \nbody')).toBe('Title');
    expect(firstLine('')).toBe('');
  });
});

describe('matchRange', () => {
  it('finds the first case-insensitive occurrence of the trimmed query', () => {
    expect(matchRange('user: Hello World', ' world ')).toEqual([12, 17]);
    expect(matchRange('user: hello', 'bye')).toBeNull();
    expect(matchRange('user: hello', '  ')).toBeNull();
  });
  it('gives up when lower-casing changes the length', () => {
    expect(matchRange('İstanbul trip', 'trip')).toBeNull();
  });
});

describe('previews of every real file', () => {
  it.each(allFixtureFiles())('%s: no entry previews as a bare role ("assistant: ")', (file) => {
    const { sessions } = importText(readFileSync(join(FIXTURES_DIR, file), 'utf8'), { fileName: file });
    for (const s of sessions) {
      for (const e of s.entries) {
        const { text } = entryPreview(e);
        expect(text).not.toMatch(/^(user|assistant): *$/);
        expect(text.trim()).not.toBe('');
      }
    }
  });
});
