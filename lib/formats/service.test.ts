import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { fixturePath, readFixture } from '@/lib/testing/fixtures';
import { createFormatsService } from './service';

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
