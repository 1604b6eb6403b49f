import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { contentHash } from './hash';
import { importText } from './import';
import { expectNoBase64InText, expectToolResultsPaired, expectWellFormed, withoutSessionId } from '@/lib/testing/formatChecks';

/** Invariants every imported real transcript must satisfy, whatever its format. */
describe.each(allFixtureFiles())('fixture %s', (file) => {
  const text = readFileSync(join(FIXTURES_DIR, file), 'utf8');
  const importedAt = Date.parse('2026-12-01T12:00:00Z');
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => importText(text, { fileName: file, importedAt });

  it('imports well-formed sessions with provenance', () => {
    const result = read();
    expect(result.sessions.length).toBeGreaterThan(0);
    for (const s of result.sessions) {
      expectWellFormed(s);
      expect(s.entries.length).toBeGreaterThan(0);
      expect(s.meta.title.trim()).not.toBe('');
      expect(s.meta.source).toMatchObject({ format: result.format, fileName: file, hash: contentHash(text) });
      expect(s.meta.createdAt).toBeLessThanOrEqual(s.meta.updatedAt);
    }
  });

  it('opens on a leaf and builds a sensible context there', () => {
    const result = read();
    for (const s of result.sessions) {
      const tree = new SessionTree(s.entries);
      expect(s.meta.leafId).not.toBeNull();
      expect(tree.children(s.meta.leafId!)).toHaveLength(0);
      const ctx = buildSessionContext(tree, s.meta.leafId);
      expect(ctx.path[ctx.path.length - 1]!.id).toBe(s.meta.leafId);
      expect(ctx.items.length).toBeGreaterThan(0);
      const first = ctx.items[0]!;
      expect(first.kind === 'compactionSummary' || (first.kind === 'message' && first.message.role === 'user')).toBe(true);
      // Every tool result the model sees answers a call it also sees.
      const calls = new Set<string>();
      for (const item of ctx.items) {
        if (item.kind !== 'message') continue;
        if (item.message.role === 'assistant') for (const p of item.message.content) if (p.type === 'toolCall') calls.add(p.id);
        if (item.message.role === 'toolResult' && ctx.compaction === null) expect(calls.has(item.message.toolCallId)).toBe(true);
      }
    }
  });

  it('pairs tool results with calls on their path and keeps images out of text', () => {
    const result = read();
    for (const s of result.sessions) {
      expectToolResultsPaired(s);
      expectNoBase64InText(s);
    }
  });

  it('dates every session from its file, or marks it undated at the import time: never 1970', () => {
    const result = read();
    const year2000 = Date.parse('2000-01-01T00:00:00Z');
    for (const s of result.sessions) {
      expect(s.meta.createdAt).toBeGreaterThan(year2000);
      for (const e of s.entries) expect(e.timestamp).toBeGreaterThan(year2000);
      if (s.meta.undated) {
        expect(s.meta.createdAt).toBe(importedAt);
        expect(s.entries.every((e) => e.timestamp === importedAt)).toBe(true);
      } else expect(s.meta.createdAt).toBeLessThan(importedAt);
    }
  });

  it('gives the same entry ids and hash when imported again', () => {
    const result = read();
    const again = importText(text, { fileName: file, importedAt });
    expect(again.sessions.map(withoutSessionId)).toStrictEqual(result.sessions.map(withoutSessionId));
    expect(again.sessions[0]!.meta.id).not.toBe(result.sessions[0]!.meta.id);
  });
});
