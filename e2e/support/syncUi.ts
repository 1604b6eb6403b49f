import { type Browser, type Page } from '@playwright/test';
import { expect, openApp } from './fixtures';

/** Settings → Sync, as a person reaches it; shared by the sync specs. */

export async function openSync(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Sync', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Sync' });
  await expect(dialog).toBeVisible();
  return dialog;
}

export async function closeSync(page: Page) {
  await page.getByRole('dialog', { name: 'Sync' }).getByRole('button', { name: 'Close' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
}

/** Creates a space on this device; resolves with the code's words as the dialog shows them. */
export async function createSpace(page: Page): Promise<string> {
  const dialog = await openSync(page);
  await dialog.getByRole('button', { name: 'Create a sync space' }).click();
  await expect(dialog.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 60_000 });
  await expect(dialog.getByText('Last synced just now')).toBeVisible();
  await dialog.getByRole('button', { name: 'Show sync code' }).click();
  const words = (await dialog.getByRole('list', { name: 'Sync code' }).getByRole('listitem').allTextContents()).join(' ');
  expect(words.split(' ')).toHaveLength(12);
  await expect(dialog.getByRole('img', { name: /QR code/ })).toBeVisible();
  await closeSync(page);
  return words;
}

export async function joinSpace(page: Page, words: string) {
  const dialog = await openSync(page);
  await dialog.getByRole('textbox', { name: /Sync code/ }).fill(words);
  await dialog.getByRole('button', { name: 'Join' }).click();
}

export const sessions = (page: Page) => page.getByRole('navigation', { name: 'Sessions' });

export async function newDevice(browser: Browser, url?: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (url) {
    await page.goto(url);
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
  } else await openApp(page);
  return page;
}

