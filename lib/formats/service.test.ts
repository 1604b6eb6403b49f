import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { fixturePath, readFixture } from '@/lib/testing/fixtures';
import { createFormatsService, decodedChunks } from './service';

const api = createFormatsService();

describe('formats worker API', () => {
  it('streams a real file from a Blob with progress, giving the same result as a whole-text import', async () => {
    const bytes = readFileSync(fixturePath('piV1'));
    const progress: number[] = [];
    // A Blob of 64 KB parts streams in several chunks, as a browser File does.
    const parts: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
    const result = await api.importFile(new Blob(parts as BlobPart[]), 'compact.jsonl', (n, total) => {
      expect(total).toBe(bytes.length);
      progress.push(n);
    });
    const whole = importText(readFixture('piV1'), { fileName: 'compact.jsonl' });
    expect(result.sessions[0]!.entries).toEqual(whole.sessions[0]!.entries);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(bytes.length);
    // Progress only moves forward.
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('round-trips all sessions through the zip archive', async () => {
    const a = importText(readFixture('chatgptExport'), { fileName: 'conversations.json' }).sessions;
    const zip = api.exportAll(a);
    const back = await api.importFile(new Blob([zip as BlobPart]), 'backup.zip');
    expect(back.sessions.map((s) => s.entries)).toEqual(a.map((s) => s.entries));
  });

  it('exports every kind for a real session', () => {
    const [snap] = importText(readFixture('claudeLog'), { fileName: 'x.jsonl' }).sessions;
    for (const kind of ['jsonl', 'markdown', 'markdown-all', 'markdown-obsidian', 'pi-jsonl', 'html'] as const) {
      const out = api.exportSession(snap!, kind);
      expect(out.length).toBeGreaterThan(1000);
    }
    expect(api.exportSession(snap!, 'html')).toMatch(/^<!DOCTYPE html>/i);
  });

  it('rejects a malformed file with the line at fault', async () => {
    const bad = '{"type":"session","format":"longctx-session","version":1,"id":"s","title":"t","createdAt":1,"updatedAt":1,"leafId":null}\n{"id":"a","parentId":null,"timestamp":1,"type":"message","message":{"role":"user"\n';
    await expect(api.importFile(new Blob([bad]), 'broken.jsonl')).rejects.toThrow(/Line 2/);
  });
});

describe('decodedChunks', () => {
  const read = async (blob: Blob, slice: number) => {
    const out: string[] = [];
    for await (const c of decodedChunks(blob, slice)) out.push(c);
    return out;
  };

  it('decodes a real transcript slice by slice into the text a whole read gives, characters split between slices included', async () => {
    const text = readFixture('lobeChatExport');
    const bytes = new TextEncoder().encode(text);
    // 7-byte slices cut through every multi-byte character of the file sooner or later.
    expect(/[^\x00-\x7f]/.test(text)).toBe(true);
    const chunks = await read(new Blob([bytes]), 7);
    expect(chunks.length).toBeGreaterThan(bytes.length / 8);
    expect(chunks.join('')).toBe(text);
  });

  it('drops a leading byte-order mark, keeps a malformed byte visible, and yields nothing for an empty file', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x5b, 0x5d]);
    expect((await read(new Blob([bom]), 2)).join('')).toBe('[]');
    // A lone continuation byte is the replacement character, not a thrown error or a dropped byte.
    expect((await read(new Blob([new Uint8Array([0x61, 0x80, 0x62])]), 1)).join('')).toBe('a\ufffdb');
    // A file that ends inside a character ends with the replacement character.
    expect((await read(new Blob([new Uint8Array([0x61, 0xe2, 0x82])]), 2)).join('')).toBe('a\ufffd');
    expect(await read(new Blob([]), 4)).toEqual([]);
  });
});
