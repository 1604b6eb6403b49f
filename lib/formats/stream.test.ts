import { describe, expect, it } from 'vitest';
import { allFixtureFiles, FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importText } from './import';
import { importStream } from './stream';
import { asAsync, expectWellFormed, prng, randomChunks, withoutSessionId } from '@/lib/testing/formatChecks';
import { ImportError, type ImportResult } from './types';

function comparable(r: ImportResult) {
  return { format: r.format, warnings: r.warnings, sessions: r.sessions.map(withoutSessionId) };
}

describe('importStream', () => {
  it.each(allFixtureFiles())('equals the whole-text import for random chunk sizes: %s', async (file) => {
    const text = readFileSync(join(FIXTURES_DIR, file), 'utf8');
    // One import time for both, so an undated file's sessions compare equal.
    const importedAt = Date.parse('2026-12-01T12:00:00Z');
    const expected = comparable(importText(text, { fileName: file, importedAt }));
    const rand = prng(file.length * 7919);
    for (const max of [1 + Math.floor(text.length / 3000), 4096, 70_000]) {
      const progress: number[] = [];
      const r = await importStream(asAsync(randomChunks(text, rand, max)), { fileName: file, importedAt, totalBytes: Buffer.byteLength(text), onProgress: (n) => progress.push(n) });
      expect(comparable(r)).toStrictEqual(expected);
      expect(progress[progress.length - 1]).toBe(Buffer.byteLength(text, 'utf8'));
      expect(progress.every((n, i) => i === 0 || n >= progress[i - 1]!)).toBe(true);
    }
  });

  it('handles one character per chunk, a BOM and surrogate pairs split across chunks', async () => {
    const conv = [{ title: 'emoji 🌍', create_time: 1, current_node: 'b', mapping: { a: { id: 'a', parent: null, children: ['b'], message: { author: { role: 'user' }, content: { content_type: 'text', parts: ['héllo 🌍🎉'] } } }, b: { id: 'b', parent: 'a', children: [], message: { author: { role: 'assistant' }, content: { content_type: 'text', parts: ['ok 👍'] }, status: 'finished_successfully' } } } }];
    const text = '\uFEFF' + JSON.stringify(conv, null, 1);
    const r = await importStream(asAsync(text.split('')));
    expect(comparable(r)).toStrictEqual(comparable(importText(text)));
    expect(r.sessions[0]!.entries[0]).toMatchObject({ message: { content: [{ text: 'héllo 🌍🎉' }] } });
  });

  it('streams a large ChatGPT export one conversation at a time', async () => {
    const one = JSON.parse(readFixture('chatgptExport')) as unknown[];
    const convs = Array.from({ length: 300 }, (_, i) => ({ ...(one[i % 2] as object), conversation_id: `c${i}` }));
    const text = JSON.stringify(convs);
    expect(text.length).toBeGreaterThan(10_000_000);
    const chunks = randomChunks(text, prng(3), 65_536);
    const r = await importStream(asAsync(chunks), { fileName: 'conversations.json' });
    expect(r.sessions).toHaveLength(300);
    expect(r.sessions.map((s) => s.meta.source?.originalId)).toEqual(convs.map((c) => c.conversation_id));
    r.sessions.slice(0, 3).forEach(expectWellFormed);
    expect(comparable(r)).toStrictEqual(comparable(importText(text, { fileName: 'conversations.json' })));
  });

  it('reports a truncated stream like the text reader does', async () => {
    const text = readFixture('piV1');
    const cut = text.slice(0, text.indexOf('\n', 200_000) + 500);
    const line = cut.split('\n').length;
    let textErr: unknown;
    try {
      importText(cut);
    } catch (e) {
      textErr = e;
    }
    await expect(importStream(asAsync(randomChunks(cut, prng(1), 5000)))).rejects.toThrow(ImportError);
    await expect(importStream(asAsync(randomChunks(cut, prng(1), 5000)))).rejects.toThrow(new RegExp(`^Line ${line}: .*\\(truncated JSON\\)`));
    expect((textErr as Error).message).toMatch(new RegExp(`^Line ${line}: .*\\(truncated JSON\\)`));
    const cg = readFixture('chatgptExport');
    await expect(importStream(asAsync(randomChunks(cg.slice(0, 100_000), prng(2), 4000)))).rejects.toThrow(/truncated/);
    await expect(importStream(asAsync([]))).rejects.toThrow(/empty/);
  });
});

describe('importStream errors in export arrays', () => {
  /** A real export with one line damaged in the middle; the line is counted here, not by the code under test. */
  function damaged(name: 'claudeAiExport' | 'chatgptExport' | 'openWebUiChat', how: (line: string) => string) {
    const lines = readFixture(name).split('\n');
    const at = Math.floor(lines.length / 2);
    lines[at] = how(lines[at]!);
    return { text: lines.join('\n'), line: at + 1 };
  }
  async function message(text: string, chunk: number): Promise<unknown> {
    return importStream(asAsync(randomChunks(text, prng(chunk), chunk)), { fileName: 'conversations.json' }).then(
      () => null,
      (e: unknown) => e,
    );
  }

  it.each([
    ['a stray brace (the token parser objects)', 'claudeAiExport', (l: string) => `${l.slice(0, Math.floor(l.length / 2))}}{,`],
    ['a bare word (the tokenizer objects)', 'chatgptExport', (l: string) => `${l.slice(0, Math.floor(l.length / 2))} nope`],
  ] as const)('names the line of %s, whatever the chunking, as the text reader does', async (_what, name, how) => {
    const { text, line } = damaged(name, how);
    for (const chunk of [4096, 65_536]) {
      const err = await message(text, chunk);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).line).toBe(line);
      expect((err as ImportError).message).toMatch(new RegExp(`^Line ${line}: invalid JSON`));
    }
    expect(() => importText(text, { fileName: 'conversations.json' })).toThrow(new RegExp(`^Line ${line}\\b`));
  });
});
