import type { Page } from '@playwright/test';
import { assistantMessages, chatTurn, expect, mock, newSession, openApp, sendMessage, test, waitIdle } from './support/fixtures';

/** Rows of the app's sessions store, read from IndexedDB itself. */
async function storedSessions(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('longctx');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('sessions')) {
            db.close();
            return resolve(0);
          }
          const count = db.transaction('sessions').objectStore('sessions').count();
          count.onsuccess = () => {
            db.close();
            resolve(count.result);
          };
          count.onerror = () => reject(count.error);
        };
      }),
  );
}

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const sessionList = (page: Page) => page.getByRole('navigation', { name: 'Sessions' });
// The tests run Chromium on Linux: Ctrl, not ⌘.
const MOD = 'Control';

test.describe('focus', () => {
  test('New session focuses the message box, and an empty new session is not stored, not even across a reload', async ({ page }) => {
    await openApp(page);
    await page.getByRole('button', { name: 'New session' }).click();
    await expect(composer(page)).toBeFocused();
    await expect(page.getByRole('heading', { name: 'New session', level: 1 })).toBeVisible();
    await expect(sessionList(page)).toContainText('No sessions yet.');
    expect(await storedSessions(page)).toBe(0);

    // Pressed again, and reloaded: still one unsent new session, still nothing stored.
    await page.getByRole('button', { name: 'New session' }).click();
    await page.reload();
    await expect(composer(page)).toBeFocused();
    await expect(sessionList(page)).toContainText('No sessions yet.');
    expect(await storedSessions(page)).toBe(0);

    // The first message stores it, under the name it gets from the message.
    await chatTurn(page, 'A first message stores the session');
    await expect(sessionList(page).getByRole('button', { name: /^A first message stores the session/ })).toBeVisible();
    expect(await storedSessions(page)).toBe(1);
    expect(new URL(page.url()).hash).toMatch(/^#\/s\//);
    await page.reload();
    await expect(assistantMessages(page)).toHaveCount(1);
  });

  test('opening a session focuses the message box', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'first session');
    await newSession(page);
    await chatTurn(page, 'second session');
    await sessionList(page).getByRole('button', { name: /^first session/ }).click();
    await expect(page.getByRole('heading', { name: 'first session', level: 1 })).toBeVisible();
    await expect(composer(page)).toBeFocused();
  });

  test('Esc closes the Tree and the Timeline and puts focus back where it was', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'a message for the panels');
    for (const name of ['Tree', 'Timeline']) {
      const toggle = page.getByRole('button', { name, exact: true });
      await toggle.click();
      const panel = page.getByRole('complementary', { name: `${name} panel` });
      await expect(panel).toBeVisible();
      // Focus inside the panel, then Esc.
      await panel.getByRole('button', { name: 'Close panel' }).focus();
      await page.keyboard.press('Escape');
      await expect(panel).toBeHidden();
      await expect(toggle).toBeFocused();
    }
    // Opened from the message box by its shortcut: Esc goes back to the message box.
    await composer(page).focus();
    await page.keyboard.press(`${MOD}+Shift+Digit1`);
    await expect(page.getByRole('complementary', { name: 'Tree panel' })).toBeVisible();
    await page.getByRole('tree').focus();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('complementary', { name: 'Tree panel' })).toBeHidden();
    await expect(composer(page)).toBeFocused();
  });

  test('Esc closes dialogs and puts focus back on what opened them', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'a message so Compact is possible');
    const dialogs: [string, string][] = [
      ['Compact', 'Compact context'],
      ['Export', 'Export session'],
      ['Settings', 'Settings'],
      ['Keyboard shortcuts', 'Keyboard shortcuts'],
      ['Search messages', 'Search'],
    ];
    for (const [button, title] of dialogs) {
      const opener = page.getByRole('button', { name: button, exact: true });
      await opener.click();
      const dialog = page.getByRole('dialog', { name: title });
      await expect(dialog).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
      await expect(opener, button).toBeFocused();
    }
  });
});

test.describe('shortcuts', () => {
  test('"?" and the button open the list of shortcuts, written for this platform; in the message box "?" is typed', async ({ page }) => {
    await openApp(page);
    await page.locator('body').press('Shift+Slash');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    const row = (action: string) => dialog.getByRole('row', { name: new RegExp(`^${action}`) });
    await expect(row('New session')).toContainText('Ctrl+Shift+O');
    await expect(row('Search messages')).toContainText('Ctrl+K');
    await expect(row('Focus the message box')).toContainText('Shift+Esc');
    await expect(row('Stop the reply')).toContainText('Esc');
    await expect(row('Show or hide the Tree')).toContainText('Ctrl+Shift+1');
    await expect(row('Show or hide the Timeline')).toContainText('Ctrl+Shift+2');
    await expect(row('Compact the session')).toContainText('Ctrl+Shift+E');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await newSession(page);
    await composer(page).pressSequentially('why?');
    await expect(composer(page)).toHaveValue('why?');
    await expect(dialog).toBeHidden();
  });

  test('a Mac is shown ⌘ and answers to it', async ({ browser }) => {
    const context = await browser.newContext({ userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36' });
    const page = await context.newPage();
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'MacIntel' }));
    await openApp(page);
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog.getByRole('row', { name: /^New session/ })).toContainText('⌘⇧O');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Meta+Shift+KeyO');
    await expect(composer(page)).toBeFocused();
    // Ctrl is not ⌘ there.
    await page.keyboard.press('Control+KeyK');
    await expect(page.getByRole('dialog', { name: 'Search' })).toBeHidden();
    await page.keyboard.press('Meta+KeyK');
    await expect(page.getByRole('dialog', { name: 'Search' })).toBeVisible();
    await context.close();
  });

  test('new session, search, message box, panels, compact and stop, all from the keyboard', async ({ page }) => {
    await openApp(page);
    await page.keyboard.press(`${MOD}+Shift+KeyO`);
    await expect(composer(page)).toBeFocused();
    expect(new URL(page.url()).hash).toMatch(/^#\/new\//);
    await chatTurn(page, 'keyboard only');

    await page.keyboard.press(`${MOD}+KeyK`);
    const search = page.getByRole('dialog', { name: 'Search' });
    await expect(search).toBeVisible();
    await expect(search.getByRole('combobox', { name: 'Search messages' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(search).toBeHidden();

    await page.getByRole('button', { name: 'Settings' }).focus();
    await page.keyboard.press('Shift+Escape');
    await expect(composer(page)).toBeFocused();

    await page.keyboard.press(`${MOD}+Shift+Digit1`);
    await expect(page.getByRole('complementary', { name: 'Tree panel' })).toBeVisible();
    await page.keyboard.press(`${MOD}+Shift+Digit2`);
    await expect(page.getByRole('complementary', { name: 'Timeline panel' })).toBeVisible();
    await page.keyboard.press(`${MOD}+Shift+Digit2`);
    await expect(page.getByRole('complementary', { name: 'Timeline panel' })).toBeHidden();

    await page.keyboard.press(`${MOD}+Shift+KeyE`);
    await expect(page.getByRole('dialog', { name: 'Compact context' })).toBeVisible();
    await page.keyboard.press('Escape');

    const words = Array.from({ length: 60 }, (_, i) => `word${i} `);
    await mock.script([{ for: 'chat', chunks: words, chunkDelayMs: 120 }]);
    await sendMessage(page, 'Tell me a long story');
    await expect(assistantMessages(page).last()).toContainText('word3');
    await composer(page).press('Escape');
    await waitIdle(page);
    await expect(assistantMessages(page).last()).toContainText('Stopped');
    expect(await assistantMessages(page).last().innerText()).not.toContain('word59');
  });
});
