import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { importText } from '@/lib/formats';
import { searchableText } from '@/lib/search/documents';
import type { SessionEntry } from '@/lib/session/types';
import { chatGptExportChunks, emptyShape } from '@/lib/testing/generateChatGpt';
import { chatTurn, expect, mock, newSession, openApp, test } from './support/fixtures';

const FIXTURES = fileURLToPath(new URL('../fixtures/real/', import.meta.url));
const PI = 'badlogic_pi-mono_compact.jsonl';
const CHATGPT = 'danny-avila_LibreChat_chatgpt-export.json';

const words = (text: string) => new Set(text.toLowerCase().match(/\p{L}{3,}/gu) ?? []);

/**
 * A word that occurs in one message of the files and nowhere else (not in a
 * title either), from a message in the first half of its session, so the
 * conversation has to scroll to show it.
 */
function uniqueWordIn(files: string[]): { word: string; entry: SessionEntry; title: string } {
  const sessions = files.flatMap((f) => importText(readFileSync(join(FIXTURES, f), 'utf8'), { fileName: f }).sessions);
  const seen = new Map<string, number>();
  for (const s of sessions) {
    for (const w of words(s.meta.title)) seen.set(w, 99);
    for (const e of s.entries) for (const w of words(searchableText(e))) seen.set(w, (seen.get(w) ?? 0) + 1);
  }
  const pi = sessions[0]!;
  const early = pi.entries.slice(0, Math.floor(pi.entries.length / 2)).filter((e) => e.type === 'message' && e.message.role === 'assistant');
  for (const entry of early) for (const w of words(searchableText(entry))) if (w.length >= 9 && seen.get(w) === 1) return { word: w, entry, title: pi.meta.title };
  throw new Error('no unique word in the fixtures');
}

const importFile = async (page: Page, file: string) => {
  await page.getByLabel('Import file').setInputFiles(join(FIXTURES, file));
  await expect(page.getByText(new RegExp(`Imported \\d+ sessions? from ${file.replace(/\./g, '\\.')}`))).toBeVisible({ timeout: 30_000 });
};

/** Sessions in the search index's stored copy (its own database), 0 before one is written. */
const storedIndexSessions = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open('longctx-search');
        open.onerror = () => resolve(0);
        open.onsuccess = () => {
          const db = open.result;
          const done = (n: number) => {
            db.close();
            resolve(n);
          };
          if (!db.objectStoreNames.contains('index')) return done(0);
          const get = db.transaction('index').objectStore('index').get('sessions');
          get.onsuccess = () => done((get.result as { sessions?: unknown[] } | undefined)?.sessions?.length ?? 0);
          get.onerror = () => done(0);
        };
      }),
  );

const openSearch = async (page: Page) => {
  await page.keyboard.press('Control+KeyK');
  const dialog = page.getByRole('dialog', { name: 'Search' });
  await expect(dialog).toBeVisible();
  const box = dialog.getByRole('combobox', { name: 'Search messages' });
  // Opening puts the caret in the box: the user types at once.
  await expect(box).toBeFocused();
  return { dialog, box, results: dialog.getByRole('listbox', { name: 'Results' }) };
};

test.describe('search', () => {
  test('finds a word from a message body in any session, shows the session and a snippet, and opens the session at that message', async ({ page }) => {
    const target = uniqueWordIn([PI, CHATGPT]);
    await openApp(page);
    await importFile(page, PI);
    await importFile(page, CHATGPT);
    // The ChatGPT file's conversation is open; the word is in the pi session.
    await expect(page.getByRole('heading', { level: 1 })).not.toHaveText(target.title);

    const { dialog, box, results } = await openSearch(page);
    await box.fill(target.word);
    const option = results.getByRole('option').first();
    await expect(option).toContainText(target.title);
    await expect(option.locator('mark')).toHaveText(new RegExp(`^${target.word}$`, 'i'));
    await expect(dialog.getByRole('status')).toHaveText('1 match.');
    await expect(box).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id'))!);
    await box.press('Enter');

    await expect(dialog).toBeHidden();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(target.title);
    const message = page.getByRole('article', { name: 'Assistant message' }).filter({ hasText: new RegExp(target.word, 'i') });
    await expect(message).toBeInViewport();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  });

  test('arrow keys move through the results and a click opens one', async ({ page }) => {
    await openApp(page);
    await importFile(page, CHATGPT);
    const { box, results } = await openSearch(page);
    await page.keyboard.type('the');
    await expect(box).toHaveValue('the');
    const options = results.getByRole('option');
    await expect(options.nth(2)).toBeVisible();
    await expect(options.nth(0)).toHaveAttribute('aria-selected', 'true');
    await box.press('ArrowDown');
    await box.press('ArrowDown');
    await expect(options.nth(2)).toHaveAttribute('aria-selected', 'true');
    await expect(box).toHaveAttribute('aria-activedescendant', (await options.nth(2).getAttribute('id'))!);
    await box.press('ArrowUp');
    await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
    const title = (await options.nth(1).locator('.search-hit-title').innerText()).trim();
    await options.nth(1).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  });

  test('follows new messages, deletions and another tab while it is open', async ({ page, context }) => {
    await mock.script([
      { for: 'chat', chunks: ['In burrows, ', 'mostly.'] },
      { for: 'chat', chunks: ['They dig ', 'too.'] },
    ]);
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'Where do quokkas sleep at night?');
    let { dialog, box, results } = await openSearch(page);
    await box.fill('quokkas');
    // The prompt (which also named the session: listed once, at the message).
    await expect(results.getByRole('option')).toHaveCount(1);
    await expect(results.getByRole('option')).toContainText('Where do quokkas sleep at night?');
    await box.fill('burrows');
    await expect(results.getByRole('option')).toContainText('In burrows, mostly.');

    // Another tab writes; the open dialog's results follow without typing.
    await box.fill('wombats');
    await expect(dialog.getByRole('status')).toHaveText('No messages match.');
    const other = await context.newPage();
    await openApp(other);
    await newSession(other);
    await chatTurn(other, 'And wombats?');
    await expect(results.getByRole('option')).toHaveCount(1);
    await expect(results.getByRole('option')).toContainText('And wombats?');
    await other.close();

    // Deleting the session takes its messages out of the results.
    await dialog.getByRole('button', { name: 'Close' }).click();
    const list = page.getByRole('navigation', { name: 'Sessions' });
    await list.getByRole('button', { name: /^Delete Where do quokkas/ }).click();
    await page.getByRole('dialog', { name: 'Delete session?' }).getByRole('button', { name: 'Delete' }).click();
    await expect(list.getByRole('button', { name: /^Where do quokkas/ })).toHaveCount(0);
    ({ dialog, box, results } = await openSearch(page));
    await box.fill('quokkas');
    await expect(dialog.getByRole('status')).toHaveText('No messages match.');
    await box.fill('wombats');
    await expect(results.getByRole('option')).toHaveCount(1);
  });

  test('a large profile: the index is built in the worker, stored, and read back after a reload; the times are reported', async ({ page }, info) => {
    test.setTimeout(420_000);
    const megabytes = Number(process.env.SEARCH_PROFILE_MB ?? 20);
    const shape = emptyShape();
    // Written to a file: Playwright hands a page at most 50 MB from memory.
    const file = info.outputPath('conversations.json');
    const out = openSync(file, 'w');
    for (const chunk of chatGptExportChunks({ seed: 7, targetBytes: megabytes * 1_000_000 }, shape)) writeSync(out, chunk);
    closeSync(out);
    await openApp(page);
    await page.getByLabel('Import file').setInputFiles(file);
    await expect(page.getByText(/Imported [\d,]+ sessions/)).toBeVisible({ timeout: 240_000 });
    // A fresh page, so the build below is timed on its own.
    await page.reload();
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();

    /** Opens the search and waits until the index is ready; the time that took. */
    const timeToReady = async () => {
      const started = Date.now();
      const { dialog } = await openSearch(page);
      await expect(dialog.getByRole('status')).toHaveText('Type to search every session’s messages.', { timeout: 180_000 });
      return Date.now() - started;
    };
    const buildMs = await timeToReady();
    // The copy is written in the worker a moment after the build.
    await expect.poll(() => storedIndexSessions(page), { timeout: 120_000 }).toBe(shape.conversations);

    await page.reload();
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
    const loadMs = await timeToReady();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    const askedAt = Date.now();
    await dialog.getByRole('combobox', { name: 'Search messages' }).fill('function');
    await expect(dialog.getByRole('option').first()).toBeVisible();
    const queryMs = Date.now() - askedAt;
    expect(loadMs).toBeLessThan(buildMs);
    const figure =
      `${(shape.bytes / 1e6).toFixed(0)} MB ChatGPT export, ${shape.conversations} conversations, ${shape.messages} messages: ` +
      `index built in ${buildMs} ms, read back after a reload in ${loadMs} ms, a common word answered in ${queryMs} ms (120 ms of it the typing pause)`;
    info.annotations.push({ type: 'search index', description: figure });
    console.log(figure);
  });
});
