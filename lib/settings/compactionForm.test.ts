import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { parseCompactionForm, toCompactionForm, windowNotes } from './compactionForm';

describe('the compaction form', () => {
  it('round-trips review before apply, off by default', () => {
    const form = toCompactionForm({}, DEFAULT_COMPACTION_SETTINGS);
    expect(form.reviewBeforeApply).toBe(false);
    const parsed = parseCompactionForm({ ...form, reviewBeforeApply: true });
    expect(parsed.ok && parsed.value.reviewBeforeApply).toBe(true);
  });

  it('says which values the model’s window scales down, as typed, and nothing for a large window or a bad value', () => {
    const form = toCompactionForm({}, DEFAULT_COMPACTION_SETTINGS);
    expect(windowNotes(form, 8_192)).toEqual([
      'Reserve 16,384 is more than a quarter of this model’s 8,192-token window: 2,048 is used.',
      'Keep recent 20,000 is more than a fifth of this model’s 8,192-token window: 1,638 is used.',
    ]);
    expect(windowNotes({ ...form, reserveTokens: '1000' }, 8_192)).toEqual(['Keep recent 20,000 is more than a fifth of this model’s 8,192-token window: 1,638 is used.']);
    expect(windowNotes(form, 200_000)).toEqual([]);
    expect(windowNotes(form, undefined)).toEqual([]);
    expect(windowNotes({ ...form, reserveTokens: 'lots' }, 8_192)).toEqual([]);
  });
});
