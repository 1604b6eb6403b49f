import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats/import';
import { readFixture, FIXTURES } from '@/lib/testing/fixtures';
import { sessionWhen } from './sessionDate';

describe('sessionWhen', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');

  it('says "no date" for a trajectory without times, with when it was imported', () => {
    const [s] = importText(readFixture('sweTraj'), { fileName: FIXTURES.sweTraj, importedAt: now - 5 * 60_000 }).sessions;
    expect(s!.meta.undated).toBe(true);
    expect(sessionWhen(s!.meta, now)).toBe('no date · imported 5 min ago');
    // Once the user writes to it, its last change is a real time.
    expect(sessionWhen({ ...s!.meta, updatedAt: now - 60 * 60_000 + 5 * 60_000 + 1 }, now)).toMatch(/h ago|min ago/);
  });

  it('gives a dated session its last change', () => {
    const [s] = importText(readFixture('chatgptTree'), { fileName: FIXTURES.chatgptTree, importedAt: now }).sessions;
    expect(s!.meta.undated).toBeUndefined();
    expect(sessionWhen(s!.meta, now)).toBe(new Date(s!.meta.updatedAt).toLocaleDateString());
  });
});
