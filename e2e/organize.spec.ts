import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { Page } from '@playwright/test';
import { importText } from '../lib/formats/import';
import { SessionTree } from '../lib/session/tree';
import { expect, openApp, test } from './support/fixtures';

/**
 * Sessions kept current and organised: a grown Claude Code transcript read
 * again, a zipped ChatGPT export, a folder kept through the File System
 * Access API, and projects, tags, the archive, pins and bulk actions in the
 * session list, surviving an export and an import into another browser.
 */

const FIXTURES = join(process.cwd(), 'fixtures/real');
const CLAUDE = 'codemie-ai_codemie-code_session-624a4a58.jsonl';
const claudeText = readFileSync(join(FIXTURES, CLAUDE), 'utf8');
/** Cut after the transcript's own compaction, as Claude Code had written it while still at work. */
const claudeCut = claudeText.split('\n').slice(0, 180).join('\n') + '\n';

let dir = '';
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'longctx-e2e-organize-'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file in this run's temporary folder (the fixtures are never written to). */
function tempFile(name: string, data: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

const sessions = (page: Page) => page.getByRole('navigation', { name: 'Sessions' });
const sessionItems = (page: Page) => sessions(page).getByRole('listitem');
const count = (page: Page) => page.locator('.session-count');

/** The text of the last reply on the file's own path, which the session shows at its end. */
function lastReplyOf(text: string): string {
  const s = importText(text, { fileName: CLAUDE }).sessions[0]!;
  const path = new SessionTree(s.entries).pathTo(s.meta.leafId);
  for (const e of path.reverse()) {
    if (e.type === 'message' && e.message.role === 'assistant') {
      const t = e.message.content.find((p) => p.type === 'text' && p.text.trim().length > 20);
      if (t && t.type === 'text') return t.text.trim().split('\n')[0]!.slice(0, 60);
    }
  }
  throw new Error('no reply');
}

test.describe('a file read again', () => {
  test('a real Claude Code transcript cut, then whole: one session with the new messages, its compaction and one made here kept', async ({ page }) => {
    test.setTimeout(120_000);
    await openApp(page);
    const cutPath = tempFile(CLAUDE, claudeCut);
    await page.getByLabel('Import file').setInputFiles(cutPath);
    await expect(page.getByText(/^Imported 1 session from /)).toBeVisible();
    await expect(sessionItems(page)).toHaveCount(1);
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect(log).toContainText(lastReplyOf(claudeCut));

    // Compact here, at the end of what was imported (the scripted model writes the summary).
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const compact = page.getByRole('dialog', { name: 'Compact context' });
    await compact.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(compact).toBeHidden({ timeout: 30_000 });

    // Claude Code went on: the same file, grown.
    writeFileSync(cutPath, claudeText);
    await page.getByLabel('Import file').setInputFiles(cutPath);
    await expect(page.getByText(/^Updated “.+” from .+: \d+ new messages?$/)).toBeVisible();
    await expect(sessionItems(page)).toHaveCount(1);
    await expect(log).toContainText(lastReplyOf(claudeText));
    // Both compactions are on the path: the transcript's own and the one made here.
    await page.getByRole('button', { name: 'Timeline', exact: true }).click();
    await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('article', { name: 'Compaction card' })).toHaveCount(2);
    await page.getByRole('button', { name: 'Close panel' }).click();

    // Once more: nothing new.
    await page.getByLabel('Import file').setInputFiles(cutPath);
    await expect(page.getByText(/Already imported: “.*”\. Nothing was duplicated\./)).toBeVisible();
    await expect(sessionItems(page)).toHaveCount(1);
  });

  test('a zipped ChatGPT export, as downloaded, imports', async ({ page }) => {
    await openApp(page);
    const zip = zipSync({
      'chat.html': strToU8('<html><body>ChatGPT export</body></html>'),
      'conversations.json': strToU8(readFileSync(join(FIXTURES, 'danny-avila_LibreChat_chatgpt-export.json'), 'utf8')),
      'user.json': strToU8('{"id":"user-x"}'),
      'file-Photo1.png': new Uint8Array(300_000).map((_, i) => i % 251),
    });
    await page.getByLabel('Import file').setInputFiles(tempFile('chatgpt-export.zip', zip));
    await expect(page.getByText('Imported 2 sessions from chatgpt-export.zip')).toBeVisible();
    await expect(count(page)).toHaveText('2 sessions');
    await expect(page.getByRole('log', { name: 'Conversation' }).getByRole('article').first()).toBeVisible();
  });
});

test.describe('a folder kept current (File System Access API)', () => {
  test('kept once, then “Check for new sessions” reads what grew: 1 updated, 0 new, 0 unchanged', async ({ page }) => {
    test.setTimeout(120_000);
    await openApp(page);
    // The browser's folder picker is a native dialog: hand it a real directory handle from the
    // origin-private file system instead, written by the page as Claude Code writes ~/.claude/projects.
    await page.evaluate(async (text) => {
      const root = await navigator.storage.getDirectory();
      const projects = await root.getDirectoryHandle('projects', { create: true });
      const app = await projects.getDirectoryHandle('-home-dev-app', { create: true });
      const file = await app.getFileHandle('session.jsonl', { create: true });
      const w = await file.createWritable();
      await w.write(text);
      await w.close();
      (window as unknown as { showDirectoryPicker: () => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker = async () => projects;
    }, claudeCut);
    await page.getByRole('button', { name: 'Keep a folder current' }).click();
    await expect(page.getByText('Sessions from projects: 0 updated, 1 new, 0 unchanged.')).toBeVisible({ timeout: 30_000 });
    await expect(sessionItems(page)).toHaveCount(1);

    await page.getByRole('button', { name: 'Check for new sessions' }).click();
    await expect(page.getByText('Nothing new in projects.')).toBeVisible();

    await page.evaluate(async (text) => {
      const root = await navigator.storage.getDirectory();
      const file = await (await (await root.getDirectoryHandle('projects')).getDirectoryHandle('-home-dev-app')).getFileHandle('session.jsonl');
      const w = await file.createWritable();
      await w.write(text);
      await w.close();
    }, claudeText);
    // The folder is remembered across a reload (its handle is stored).
    await page.reload();
    await page.getByRole('button', { name: 'Check for new sessions' }).click();
    // Read and compared with the stored session in the worker while the page counts the opened session's tokens.
    await expect(page.getByText('Sessions from projects: 1 updated, 0 new, 0 unchanged.')).toBeVisible({ timeout: 30_000 });
    await expect(sessionItems(page)).toHaveCount(1);
    await page.getByText('Kept folders (1)').click();
    await page.getByRole('checkbox', { name: 'Check projects when the app gets the focus' }).check();
    await page.getByRole('button', { name: 'Forget projects' }).click();
    await expect(page.getByRole('button', { name: 'Check for new sessions' })).toHaveCount(0);
  });
});

/** Three sessions: two Claude Code transcripts from one project folder, one from another. */
async function importThree(page: Page) {
  const a = tempFile('a.jsonl', readFileSync(join(FIXTURES, 'marot_spotter_258c7280-ae70-4798-800f-63464d01a85d.jsonl')));
  const b = tempFile('b.jsonl', readFileSync(join(FIXTURES, 'marot_spotter_8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl')));
  const c = tempFile('c.jsonl', readFileSync(join(FIXTURES, 'daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl')));
  await page.getByLabel('Import file').setInputFiles([a, b, c]);
  // Three files one after the other, in the worker.
  await expect(page.getByText('Imported 1 session from c.jsonl')).toBeVisible({ timeout: 60_000 });
  await expect(count(page)).toHaveText('3 sessions');
}

const titles = (page: Page) => sessions(page).locator('.session-title');

test.describe('organising the session list', () => {
  test('projects by working directory, pins, the archive, tags and moves by selection, export and import elsewhere', async ({ page, browser }) => {
    // Three real transcripts imported twice (here and in the other browser): minutes on a busy 2-core machine.
    test.setTimeout(180_000);
    await openApp(page);
    await importThree(page);
    const project = page.getByRole('combobox', { name: 'Project' });
    // Agent sessions are in the project of their working directory, without anyone filing them.
    const options = await project.getByRole('option').allTextContents();
    expect(options.filter((o) => /\(\d+\)$/.test(o))).toHaveLength(3);
    await project.selectOption({ label: options.find((o) => o.startsWith('spotter-gqc'))! });
    await expect(count(page)).toHaveText('1 session');
    await project.selectOption({ label: 'All projects' });

    // Pin one: it leads the list under "Pinned".
    const third = (await titles(page).nth(2).textContent())!;
    await sessions(page).getByRole('button', { name: `Pin ${third}` }).click();
    await expect(sessions(page).getByRole('heading', { name: 'Pinned' })).toBeVisible();
    await expect(titles(page).first()).toHaveText(third);

    // Archive one: out of the list, in the archive, found by a search.
    const archivedTitle = (await titles(page).nth(1).textContent())!;
    await sessions(page).getByRole('button', { name: `Archive ${archivedTitle}` }).click();
    await expect(count(page)).toHaveText('2 sessions');
    await page.getByRole('button', { name: 'Archived sessions' }).click();
    await expect(count(page)).toHaveText('1 archived session');
    await expect(titles(page)).toHaveText([archivedTitle]);
    await page.getByRole('button', { name: 'Archived sessions' }).click();
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill(archivedTitle.slice(0, 12));
    await expect(sessions(page).getByText('Archived', { exact: true })).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');

    // Select two with the keyboard, tag them, move them to a new project.
    await page.getByRole('button', { name: 'Select sessions' }).click();
    const boxes = sessions(page).getByRole('checkbox');
    await expect(boxes).toHaveCount(2);
    await boxes.first().focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    const bar = page.getByRole('toolbar', { name: 'Selected sessions' });
    await expect(bar).toContainText('2 selected');
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    const tags = page.getByRole('dialog', { name: 'Tags of 2 sessions' });
    await tags.getByRole('combobox', { name: 'Add tags' }).fill('review, ui');
    await tags.getByRole('button', { name: 'Save tags' }).click();
    await expect(page.getByText('Tagged 2 sessions review, ui')).toBeVisible();
    await bar.getByRole('button', { name: 'Move', exact: true }).click();
    const move = page.getByRole('dialog', { name: 'Move 2 sessions to a project' });
    await move.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'New project…' });
    await move.getByRole('textbox', { name: 'New project name' }).fill('Research');
    await move.getByRole('button', { name: 'Move', exact: true }).click();
    await expect(page.getByText('Moved 2 sessions to Research')).toBeVisible();
    await bar.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'review (2)' });
    await expect(count(page)).toHaveText('2 sessions');
    await page.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'All tags' });
    await project.selectOption({ label: 'Research (2)' });
    await expect(count(page)).toHaveText('2 sessions');
    await project.selectOption({ label: 'All projects' });

    // Export everything selected (the archived one too, from the archive) as one zip.
    await page.getByRole('button', { name: 'Select sessions' }).click();
    await sessions(page).getByRole('checkbox').first().focus();
    await page.keyboard.press('Control+A');
    await expect(bar).toContainText('2 selected');
    await page.getByRole('button', { name: 'Archived sessions' }).click();
    await bar.getByRole('checkbox', { name: 'Select all shown' }).check();
    await expect(bar).toContainText('3 selected');
    const exported = page.waitForEvent('download');
    await bar.getByRole('button', { name: 'Export', exact: true }).click();
    await expect(page.getByText('Exported 3 sessions')).toBeVisible();
    const download = await exported;
    expect(download.suggestedFilename()).toMatch(/^longctx-3-sessions-\d{4}-\d{2}-\d{2}\.zip$/);
    const zip = tempFile('three.zip', readFileSync(await download.path()));

    // Another browser: the same organisation.
    const other = await (await browser.newContext()).newPage();
    await openApp(other);
    await other.getByLabel('Import file').setInputFiles(zip);
    await expect(other.getByText('Imported 3 sessions from three.zip')).toBeVisible();
    await expect(count(other)).toHaveText('2 sessions');
    await expect(sessions(other).getByRole('heading', { name: 'Pinned' })).toBeVisible();
    await other.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Research (2)' });
    await expect(count(other)).toHaveText('2 sessions');
    await other.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'review (2)' });
    await expect(count(other)).toHaveText('2 sessions');
    await other.getByRole('button', { name: 'Archived sessions' }).click();
    await other.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'All projects' });
    await other.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'All tags' });
    await expect(titles(other)).toHaveText([archivedTitle]);
    await other.context().close();

    // Delete the selection (all three).
    await bar.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete 3 sessions?' }).getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Deleted 3 sessions')).toBeVisible();
    await expect(page.getByText('No sessions yet. Start one, or import a transcript.')).toBeVisible();
  });
});

async function openSync(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Sync', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Sync' });
  await expect(dialog).toBeVisible();
  return dialog;
}

async function closeSync(page: Page) {
  await page.getByRole('dialog', { name: 'Sync' }).getByRole('button', { name: 'Close' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
}

test.describe('organisation and re-imports between two browsers (sync)', () => {
  test('pins, the archive, tags and projects made on A show on B; a grown transcript re-imported on A brings its new messages to B', async ({ page, browser }) => {
    test.setTimeout(180_000);
    await openApp(page);
    await importThree(page);
    const cutPath = tempFile('synced.jsonl', claudeCut);
    await page.getByLabel('Import file').setInputFiles(cutPath);
    await expect(page.getByText('Imported 1 session from synced.jsonl')).toBeVisible({ timeout: 30_000 });
    const dialog = await openSync(page);
    await dialog.getByRole('button', { name: 'Create a sync space' }).click();
    await expect(dialog.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Show sync code' }).click();
    const words = (await dialog.getByRole('list', { name: 'Sync code' }).getByRole('listitem').allTextContents()).join(' ');
    await closeSync(page);

    const b = await (await browser.newContext()).newPage();
    await openApp(b);
    const join = await openSync(b);
    await join.getByRole('textbox', { name: /Sync code/ }).fill(words);
    await join.getByRole('button', { name: 'Join' }).click();
    await expect(join.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 60_000 });
    await closeSync(b);
    await expect(count(b)).toHaveText('4 sessions', { timeout: 60_000 });

    // Organised on A (the three others than the transcript re-imported below).
    const syncedTitle = importText(claudeCut, { fileName: CLAUDE }).sessions[0]!.meta.title;
    const [pinned, archivedTitle] = (await titles(page).allTextContents()).filter((t) => t !== syncedTitle);
    await sessions(page).getByRole('button', { name: `Pin ${pinned}` }).click();
    await sessions(page).getByRole('button', { name: `Archive ${archivedTitle}` }).click();
    await page.getByRole('button', { name: 'Select sessions' }).click();
    await sessions(page).getByRole('checkbox', { name: `Select ${pinned}` }).check();
    const bar = page.getByRole('toolbar', { name: 'Selected sessions' });
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    await page.getByRole('dialog', { name: 'Tags of 1 session' }).getByRole('combobox', { name: 'Add tags' }).fill('synced');
    await page.getByRole('dialog', { name: 'Tags of 1 session' }).getByRole('button', { name: 'Save tags' }).click();
    await bar.getByRole('button', { name: 'Move', exact: true }).click();
    const move = page.getByRole('dialog', { name: 'Move 1 session to a project' });
    await move.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'New project…' });
    await move.getByRole('textbox', { name: 'New project name' }).fill('Shared');
    await move.getByRole('button', { name: 'Move', exact: true }).click();
    await bar.getByRole('button', { name: 'Done' }).click();

    // On B, live.
    await expect(sessions(b).getByRole('heading', { name: 'Pinned' })).toBeVisible({ timeout: 30_000 });
    await expect(titles(b).first()).toHaveText(pinned!);
    await expect(count(b)).toHaveText('3 sessions', { timeout: 30_000 });
    await b.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Shared (1)' });
    await b.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'synced (1)' });
    await expect(titles(b)).toHaveText([pinned!]);
    await b.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'All projects' });
    await b.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'All tags' });
    await b.getByRole('button', { name: 'Archived sessions' }).click();
    await expect(titles(b)).toHaveText([archivedTitle!]);
    await b.getByRole('button', { name: 'Archived sessions' }).click();

    // The transcript grew: re-imported on A, its new messages reach B in the same session.
    writeFileSync(cutPath, claudeText);
    await page.getByLabel('Import file').setInputFiles(cutPath);
    await expect(page.getByText(/^Updated “.+” from synced\.jsonl: \d+ new messages?$/)).toBeVisible({ timeout: 30_000 });
    await sessions(b).locator('.session-open').filter({ hasText: syncedTitle }).click();
    await expect(b.getByRole('log', { name: 'Conversation' })).toContainText(lastReplyOf(claudeText), { timeout: 60_000 });
    await expect(count(b)).toHaveText('3 sessions');
    await b.context().close();
  });
});
