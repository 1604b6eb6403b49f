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

/** WCAG contrast of two computed `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

test('primary and secondary buttons stay readable under the pointer, and keyboard focus shows a ring', async ({ page }) => {
  // Transitions off, so what is read is the hover style itself.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await openApp(page);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    for (const name of ['New session', 'Start a conversation', 'Import']) {
      const button = page.getByRole('button', { name, exact: true });
      await button.hover();
      const { fg, bg } = await button.evaluate((el) => ({ fg: getComputedStyle(el).color, bg: getComputedStyle(el).backgroundColor }));
      // A transparent background shows the page behind it.
      const behind = bg === 'rgba(0, 0, 0, 0)' ? await page.evaluate(() => getComputedStyle(document.querySelector('.sidebar')!).backgroundColor) : bg;
      expect(contrast(fg, behind), `${name} on hover (${scheme}): ${fg} on ${behind}`).toBeGreaterThanOrEqual(4.5);
    }
  }
  await page.mouse.move(700, 400);
  await page.locator('body').click({ position: { x: 700, y: 5 } });
  await page.keyboard.press('Tab');
  const focused = page.getByRole('button', { name: 'New session' });
  await expect(focused).toBeFocused();
  const ring = await focused.evaluate((el) => ({ style: getComputedStyle(el).outlineStyle, width: parseFloat(getComputedStyle(el).outlineWidth) }));
  expect(ring.style).toBe('solid');
  expect(ring.width).toBeGreaterThanOrEqual(2);
});
