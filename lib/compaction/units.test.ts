import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { addDetails, addMessage, classifyToolCall, createFileOps, fileFooter, stripFileFooter, toFileLists, withFileFooter } from './fileOps';
import { canCompactNow, compactionLimit, compactionVerdict, emergencyKeepRecent, shouldCompact, wouldOverflow } from './policy';
import { usageFromAi } from '@/lib/testing/languageModelSummarizer';
import { addUsage } from './summarizer';

describe('file operations', () => {
  it('recognises the tool shapes of pi, Claude Code and other agents', () => {
    expect(classifyToolCall({ name: 'read', arguments: { path: '/a.ts', offset: 1 } })).toEqual({ read: ['/a.ts'], modified: [] });
    expect(classifyToolCall({ name: 'Edit', arguments: { file_path: '/b.ts', old_string: 'x', new_string: 'y' } })).toEqual({ read: [], modified: ['/b.ts'] });
    expect(classifyToolCall({ name: 'MultiEdit', arguments: { file_path: '/c.ts', edits: [] } }).modified).toEqual(['/c.ts']);
    expect(classifyToolCall({ name: 'NotebookEdit', arguments: { notebook_path: '/n.ipynb' } }).modified).toEqual(['/n.ipynb']);
    expect(classifyToolCall({ name: 'str_replace_based_edit_tool', arguments: { command: 'view', path: '/v.py' } })).toEqual({ read: ['/v.py'], modified: [] });
    expect(classifyToolCall({ name: 'str_replace_editor', arguments: { command: 'create', path: '/new.py' } })).toEqual({ read: [], modified: ['/new.py'] });
    expect(classifyToolCall({ name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** Add File: src/y.ts\n*** End Patch' } }).modified).toEqual(['src/x.ts', 'src/y.ts']);
    // Searches and shells are not file reads of a specific file.
    expect(classifyToolCall({ name: 'Grep', arguments: { pattern: 'x', path: '/src' } })).toEqual({ read: [], modified: [] });
    expect(classifyToolCall({ name: 'bash', arguments: { command: 'cat /etc/hosts' } })).toEqual({ read: [], modified: [] });
  });

  it('is cumulative and lists a read-then-modified file as modified only', () => {
    const ops = createFileOps();
    addDetails(ops, { readFiles: ['/old-read', '/later-edited'], modifiedFiles: ['/old-mod'] });
    addMessage(ops, { role: 'assistant', content: [{ type: 'toolCall', id: '1', name: 'write', arguments: { path: '/later-edited', content: '' } }, { type: 'toolCall', id: '2', name: 'read', arguments: { path: '/new-read' } }] });
    expect(toFileLists(ops)).toEqual({ readFiles: ['/new-read', '/old-read'], modifiedFiles: ['/later-edited', '/old-mod'] });
  });

  it('footer round trip: appended after the text, stripped before the text is fed back', () => {
    const lists = { readFiles: ['/r'], modifiedFiles: ['/m1', '/m2'] };
    expect(fileFooter(lists)).toBe('<read-files>\n/r\n</read-files>\n\n<modified-files>\n/m1\n/m2\n</modified-files>');
    const s = withFileFooter('## Goal\nShip it.\n', lists);
    expect(s).toBe(`## Goal\nShip it.\n\n${fileFooter(lists)}`);
    expect(stripFileFooter(s)).toBe('## Goal\nShip it.');
    expect(withFileFooter('text', { readFiles: [], modifiedFiles: [] })).toBe('text');
  });
});

describe('auto-compaction policy', () => {
  const s = DEFAULT_COMPACTION_SETTINGS;
  it('reserve rule: context > window − reserve', () => {
    expect(compactionLimit(200_000, s)).toBe(200_000 - 16_384);
    expect(shouldCompact({ contextTokens: 183_616, window: 200_000, settings: s })).toBe(false);
    expect(shouldCompact({ contextTokens: 183_617, window: 200_000, settings: s })).toBe(true);
  });

  it('threshold rule when set; the lower limit wins', () => {
    const pct = { ...s, thresholdPercent: 0.8 };
    expect(compactionLimit(200_000, pct)).toBe(160_000);
    expect(shouldCompact({ contextTokens: 170_000, window: 200_000, settings: pct })).toBe(true);
    expect(compactionLimit(32_000, { ...s, thresholdPercent: 0.9 })).toBe(32_000 - 16_384);
  });

  it('never while streaming or disabled; a reserve larger than the window falls back to half the window', () => {
    expect(shouldCompact({ contextTokens: 199_000, window: 200_000, settings: s, streaming: true })).toBe(false);
    expect(shouldCompact({ contextTokens: 199_000, window: 200_000, settings: { ...s, enabled: false } })).toBe(false);
    expect(compactionLimit(8192, s)).toBe(4096);
    expect(canCompactNow({ streaming: true })).toBe(false);
    expect(canCompactNow({ streaming: false, compacting: true })).toBe(false);
    expect(canCompactNow({ streaming: false })).toBe(true);
  });

  it('wouldOverflow checks a new message before it is sent', () => {
    expect(wouldOverflow({ contextTokens: 100_000, newMessageTokens: 80_000, window: 200_000, settings: s })).toBe(false);
    expect(wouldOverflow({ contextTokens: 100_000, newMessageTokens: 90_000, window: 200_000, settings: s })).toBe(true);
  });

  it('emergency keep-recent is a fifth of the window, never above the setting', () => {
    expect(emergencyKeepRecent(200_000)).toBe(40_000);
    expect(emergencyKeepRecent(200_000, s)).toBe(20_000);
    expect(emergencyKeepRecent(32_000, s)).toBe(6400);
  });

  it('a compaction is appended only when it leaves a smaller context', () => {
    // The incident: an overflow recovery kept one ~750k-token message verbatim and added a summary on top.
    expect(compactionVerdict({ tokensBefore: 750_014, tokensKept: 749_900, summaryTokens: 227, window: 200_000 })).toEqual({
      append: false,
      tokensAfter: 750_127,
      why: 'kept-exceeds-window',
    });
    // Asked before summarising (no summary yet): a kept tail as large as the context can never shrink it.
    expect(compactionVerdict({ tokensBefore: 9000, tokensKept: 9000, summaryTokens: 0 }).append).toBe(false);
    // A tail that fits the window, but the summary is longer than the two short messages it replaces.
    expect(compactionVerdict({ tokensBefore: 4020, tokensKept: 4000, summaryTokens: 150, window: 8192 })).toEqual({ append: false, tokensAfter: 4150, why: 'summary-not-smaller' });
    // Equal is not smaller.
    expect(compactionVerdict({ tokensBefore: 5000, tokensKept: 4000, summaryTokens: 1000, window: 8192 }).append).toBe(false);
    expect(compactionVerdict({ tokensBefore: 120_000, tokensKept: 20_000, summaryTokens: 2500, window: 128_000 })).toEqual({ append: true, tokensAfter: 22_500 });
  });
});

describe('usage mapping', () => {
  it('reads ai v7 usage (cached input apart) and sums across requests', () => {
    const u = usageFromAi({
      inputTokens: 120,
      inputTokenDetails: { noCacheTokens: 100, cacheReadTokens: 20, cacheWriteTokens: undefined },
      outputTokens: 30,
      outputTokenDetails: { textTokens: 30, reasoningTokens: undefined },
      totalTokens: 150,
    });
    expect(u).toEqual({ input: 100, output: 30, cacheRead: 20, totalTokens: 150 });
    expect(addUsage(u, { input: 1, output: 2 })).toEqual({ input: 101, output: 32, cacheRead: 20, totalTokens: 150 });
    expect(addUsage(undefined, u)).toBe(u);
  });
});
