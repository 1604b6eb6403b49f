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
});
