import { describe, expect, it } from 'vitest';
import { strToU8, zipSync } from 'fflate';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { declareSizes } from '@/lib/testing/zips';
import { exportArchive } from './export/archive';
import { importText } from './import';
import { createFormatsService } from './service';
import { zipDirectory, zipDirectoryOf } from './unzip';
import { MAX_EXPORT_BYTES, zipContents } from './zipImport';

/**
 * ChatGPT and Claude.ai deliver their data exports as a .zip: the
 * conversations in conversations.json beside images and other files. Read
 * from the zip on disk: the directory and that entry only.
 */

const chatgpt = readFixture('chatgptExport');
const claudeAi = readFixture('claudeAiExport');
const png = new Uint8Array(200_000).map((_, i) => (i * 7919) % 251);

/** A zip laid out as ChatGPT's export is: the conversations among pages, settings and uploaded images. */
function chatGptZip(conversations = chatgpt): File {
  const zip = zipSync({
    'chat.html': strToU8('<html><body>Your conversations</body></html>'),
    'conversations.json': strToU8(conversations),
    'user.json': strToU8('{"id":"user-1"}'),
    'message_feedback.json': strToU8('[]'),
    'file-AbC123-image.png': [png, { level: 0 }],
    'dalle-generations/file-XyZ.webp': [png, { level: 0 }],
  });
  return new File([zip as BlobPart], 'chatgpt-export.zip');
}

const service = createFormatsService();
const withoutIds = (r: { sessions: { meta: { id: string } }[] }) => r.sessions.map((s) => ({ ...s, meta: { ...s.meta, id: '' } }));

describe('zipped chat exports', () => {
  it('a ChatGPT export zip imports the conversations its conversations.json holds, as the JSON alone does', async () => {
    const fromZip = await service.importFile(chatGptZip(), 'chatgpt-export.zip', undefined, 1);
    const fromJson = importText(chatgpt, { fileName: 'chatgpt-export.zip', importedAt: 1 });
    expect(fromZip.format).toBe('chatgpt');
    expect(fromZip.sessions).toHaveLength(2);
    expect(withoutIds(fromZip)).toEqual(withoutIds(fromJson));
  });

  it('a Claude.ai export zip (conversations.json in a folder, with projects.json and users.json)', async () => {
    const zip = zipSync({ 'data-2026/users.json': strToU8('[]'), 'data-2026/projects.json': strToU8('[]'), 'data-2026/conversations.json': strToU8(claudeAi) });
    const r = await service.importFile(new File([zip as BlobPart], 'data-2026.zip'), 'data-2026.zip', undefined, 1);
    expect(r.format).toBe('claude-ai');
    expect(r.sessions).toHaveLength(importText(claudeAi, { fileName: FIXTURES.claudeAiExport }).sessions.length);
  });

  it('a backup of this app is still read as one', async () => {
    const snap = importText(readFixture('piSession'), { fileName: 'a.jsonl' }).sessions[0]!;
    expect(await zipContents(new File([exportArchive([snap]) as BlobPart], 'backup.zip'))).toEqual({ kind: 'archive' });
  });

  it('a zip with no conversations says what it expected', async () => {
    const zip = zipSync({ 'photos/a.png': png, 'notes.txt': strToU8('hello') });
    await expect(zipContents(new File([zip as BlobPart], 'photos.zip'))).rejects.toThrow(/neither a backup of this app .* nor a ChatGPT or Claude\.ai data export \(conversations\.json\)/);
  });

  it('refuses conversations declared larger than one import takes, before inflating anything', async () => {
    const zip = declareSizes(zipSync({ 'conversations.json': strToU8(chatgpt) }), () => 0xffffffff);
    // Just under the limit: read, and found short.
    expect(0xffffffff).toBeLessThan(MAX_EXPORT_BYTES);
    const big = zipSync({ 'conversations.json': strToU8(chatgpt), 'conversations-001.json': strToU8(chatgpt) });
    const bomb = declareSizes(big, () => 0xffffffff);
    await expect(zipContents(new File([bomb as BlobPart], 'bomb.zip'))).rejects.toThrow(/more than the .* one import takes/);
    // One entry that inflates to less than it declares is damaged, not silently short.
    await expect(service.importFile(new File([zip as BlobPart], 'lying.zip'), 'lying.zip')).rejects.toThrow(/damaged: conversations\.json unpacks to/);
  });

  it('reads the directory from the end of the file the way the in-memory reader does, a long comment and all', async () => {
    const bytes = zipSync({ 'a.json': strToU8('[]'), 'dir/conversations.json': strToU8(chatgpt), 'b.png': png });
    const comment = strToU8('x'.repeat(40_000));
    const withComment = new Uint8Array(bytes.length + comment.length);
    withComment.set(bytes);
    withComment.set(comment, bytes.length);
    new DataView(withComment.buffer).setUint16(bytes.length - 2, comment.length, true);
    for (const b of [bytes, withComment]) expect(await zipDirectoryOf(new File([b as BlobPart], 'x.zip'))).toEqual(zipDirectory(b));
  });
});
