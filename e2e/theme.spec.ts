import type { Page } from '@playwright/test';
import { expect, openApp, test } from './support/fixtures';

/** The page background the user sees, as the browser computed it. */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const LIGHT = 'rgb(255, 255, 255)';
const DARK = 'rgb(22, 22, 24)';

test('theme: System follows the OS, Light and Dark pin it at once, the choice survives a reload and is in the first paint', async ({ page, browser, baseURL }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openApp(page);
  const theme = page.getByRole('group', { name: 'Theme' });
  await expect(theme.getByRole('radio', { name: 'System' })).toBeChecked();
  expect(await background(page)).toBe(DARK);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background(page)).toBe(LIGHT);

  // Dark while the OS says light: the explicit choice wins, without a reload.
  await theme.getByRole('radio', { name: 'Dark' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await background(page)).toBe(DARK);

  await page.reload();
  await expect(page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'Dark' })).toBeChecked();
  expect(await background(page)).toBe(DARK);

  // No flash: the server renders the theme into the page, so even with no script at all it is dark from the start.
  const html = await (await page.request.get('/')).text();
  expect(html).toMatch(/<html[^>]* data-theme="dark"/);
  const cookies = await page.context().cookies();
  const noScript = await browser.newContext({ baseURL, javaScriptEnabled: false, colorScheme: 'light' });
  await noScript.addCookies(cookies);
  const bare = await noScript.newPage();
  await bare.goto('/');
  expect(await background(bare)).toBe(DARK);
  await noScript.close();

  // Light, then back to System, which follows the OS again.
  await page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'Light' }).check();
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background(page)).toBe(LIGHT);
  await page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'System' }).check();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  expect(await background(page)).toBe(DARK);
  await page.reload();
  await expect(page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'System' })).toBeChecked();
});
