import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats/import';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { noteText } from './notes';

describe('noteText', () => {
  it('shows the command notes of a real Claude Code transcript by their one line; messages have none', () => {
    const [s] = importText(readFixture('claudeLog'), { fileName: FIXTURES.claudeLog }).sessions;
    const notes = s!.entries.filter((e) => e.type === 'custom' && e.customType === 'claude-code:note');
    expect(notes.map((n) => noteText(n))).toContain('/mcp');
    for (const n of notes) expect(noteText(n)).toBe(n.type === 'custom' ? n.display : '');
    expect(s!.entries.filter((e) => e.type === 'message').every((e) => noteText(e) === '')).toBe(true);
  });

  it('names model changes and summary revisions, and a custom record without a display by its type', () => {
    expect(noteText({ id: 'm', parentId: null, timestamp: 1, type: 'model_change', model: 'openai:gpt-5.5' })).toBe('Model changed to openai:gpt-5.5');
    expect(noteText({ id: 'r', parentId: null, timestamp: 1, type: 'summary_revision', targetId: 'c', action: 'undo' })).toMatch(/^Compaction undone/);
    expect(noteText({ id: 'c', parentId: null, timestamp: 1, type: 'custom', customType: 'codex:turn_aborted' })).toBe('[codex:turn_aborted]');
  });

  it('a custom record shows its display trimmed, and its type when the display is blank', () => {
    const custom = (display?: string) => ({ id: 'c', parentId: null, timestamp: 1, type: 'custom' as const, customType: 'gemini:info', ...(display !== undefined ? { display } : {}) });
    expect(noteText(custom('  Switched to flash  '))).toBe('Switched to flash');
    expect(noteText(custom('   '))).toBe('[gemini:info]');
  });

  it('a tool mask says how many results it masked, in the singular for one', () => {
    const mask = (maskedIds: string[]) => ({ id: 'k', parentId: null, timestamp: 1, type: 'tool_mask' as const, maskedIds, tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    expect(noteText(mask(['t1']))).toMatch(/ 1 result shown /);
    expect(noteText(mask(['t1', 't2', 't3']))).toMatch(/ 3 results shown /);
    expect(noteText(mask(['t1']))).toMatch(/^Old tool output masked/);
  });

  it('each revision of a summary has its own words; of a mask, undo and redo say so and nothing else shows', () => {
    const revision = (action: 'regenerate' | 'edit' | 'undo' | 'redo') => ({ id: 'r', parentId: 'k', timestamp: 1, type: 'summary_revision' as const, targetId: 'k', action });
    const mask = { id: 'k', parentId: null, timestamp: 1, type: 'tool_mask' as const, maskedIds: ['t1'], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 };
    const compaction = { id: 'k', parentId: null, timestamp: 1, type: 'compaction' as const, summary: 'S', firstKeptEntryId: 'k', tokensBefore: 1, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' as const } } };
    const actions = ['regenerate', 'edit', 'undo', 'redo'] as const;
    const ofSummary = actions.map((a) => noteText(revision(a), compaction));
    expect(ofSummary.every((t) => t.length > 0)).toBe(true);
    expect(new Set(ofSummary).size).toBe(actions.length);
    expect(noteText(revision('undo'))).toBe(ofSummary[2]);
    expect(noteText(revision('undo'), mask)).toMatch(/^Masking undone/);
    expect(noteText(revision('redo'), mask)).toBe('Masking restored');
    expect(noteText(revision('regenerate'), mask)).toBe('');
    expect(noteText(revision('edit'), mask)).toBe('');
  });

  it('a pin and a label have no note', () => {
    expect(noteText({ id: 'p', parentId: null, timestamp: 1, type: 'pin', targetId: 'u', pinned: true })).toBe('');
    expect(noteText({ id: 'l', parentId: null, timestamp: 1, type: 'label', targetId: 'u', label: 'x' })).toBe('');
  });
});
