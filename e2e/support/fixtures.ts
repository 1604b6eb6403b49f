import { test as base, expect, type Page } from '@playwright/test';
import type { RecordedRequest, Step } from '../mock-llm/server';

export const MOCK_URL = `http://127.0.0.1:${process.env.E2E_MOCK_PORT ?? 4010}`;

export type MockStep = Step;
export type { RecordedRequest };

/** The scripted model (e2e/mock-llm), reached over loopback like the app server reaches it. */
export const mock = {
  async reset() {
    const r = await fetch(`${MOCK_URL}/__control/reset`, { method: 'POST' });
    expect(r.ok).toBe(true);
  },
  async script(steps: MockStep[]) {
    const r = await fetch(`${MOCK_URL}/__control/script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ steps }) });
    expect(r.ok).toBe(true);
  },
  async requests(): Promise<RecordedRequest[]> {
    const r = await fetch(`${MOCK_URL}/__control/requests`);
    return (await r.json()) as RecordedRequest[];
  },
  async chatRequests() {
    return (await this.requests()).filter((r) => r.kind === 'chat');
  },
};

/**
 * Every test starts from a fresh browser context (empty IndexedDB) and a reset
 * scripted model, and fails if the page logged an error it did not expect.
 */
export const test = base.extend<{ consoleErrors: string[]; allowConsoleErrors: RegExp[] }>({
  allowConsoleErrors: [[], { option: true }],
  // auto: every test gets the reset and the console check, whether or not it names the fixture.
  consoleErrors: [
    async ({ page, allowConsoleErrors }, use) => {
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      await mock.reset();
      await use(errors);
      const unexpected = errors.filter((e) => !allowConsoleErrors.some((re) => re.test(e)));
      expect(unexpected, 'console errors').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The phone layout (the CSS breakpoint): the session list is a drawer behind the "Sessions" button. */
export function isPhone(page: Page): boolean {
  return (page.viewportSize()?.width ?? 1280) <= 768;
}

export async function openApp(page: Page) {
  await page.goto('/');
  await expect(page.getByRole('button', { name: isPhone(page) ? 'Sessions' : 'New session', exact: true })).toBeVisible();
}

/** On a phone, opens the session drawer (where New session, Import and Settings are); elsewhere nothing to do. */
export async function openDrawer(page: Page) {
  if (!isPhone(page)) return;
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible();
}

export async function newSession(page: Page) {
  await openDrawer(page);
  await page.getByRole('button', { name: 'New session', exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

export async function sendMessage(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

export const assistantMessages = (page: Page) => page.getByRole('article', { name: 'Assistant message' });
export const userMessages = (page: Page) => page.getByRole('article', { name: 'User message' });

/** Waits until no reply is streaming (the Stop button is gone). */
export async function waitIdle(page: Page) {
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 20_000 });
}

/** Sets the global compaction defaults through the Settings dialog, as a user would. */
export async function setCompactionDefaults(page: Page, values: { keepRecent?: number; reserve?: number; threshold?: number | ''; enabled?: boolean; review?: boolean }) {
  await openDrawer(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const group = dialog.getByRole('group', { name: 'Compaction defaults' });
  if (values.keepRecent !== undefined) await group.getByRole('spinbutton', { name: /Keep recent tokens/ }).fill(String(values.keepRecent));
  if (values.reserve !== undefined) await group.getByRole('spinbutton', { name: /Reserve tokens/ }).fill(String(values.reserve));
  if (values.threshold !== undefined) await group.getByRole('spinbutton', { name: /Threshold/ }).fill(String(values.threshold));
  if (values.enabled !== undefined) await group.getByRole('checkbox', { name: 'Auto-compaction' }).setChecked(values.enabled);
  if (values.review !== undefined) await group.getByRole('checkbox', { name: /^Review summaries before they apply/ }).setChecked(values.review);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(dialog).toBeHidden();
  if (isPhone(page)) await page.getByRole('button', { name: 'Close sessions' }).click();
}

/** The context meter's current value in tokens. */
export async function contextTokens(page: Page): Promise<number> {
  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toHaveAttribute('aria-valuenow', /\d+/);
  return Number(await meter.getAttribute('aria-valuenow'));
}

/**
 * Sends a message and waits for its reply to finish: the newest article in the
 * conversation is a completed assistant message after our prompt. (Counting
 * articles would not work: the list is virtualised.)
 */
export async function chatTurn(page: Page, text: string) {
  await sendMessage(page, text);
  const articles = page.getByRole('log', { name: 'Conversation' }).getByRole('article');
  await expect(page.getByRole('article', { name: 'User message' }).last()).toContainText(text.slice(0, 40));
  await expect(articles.last()).toHaveAttribute('aria-label', 'Assistant message', { timeout: 20_000 });
  await expect(articles.last()).not.toHaveAttribute('aria-busy', 'true', { timeout: 20_000 });
  await waitIdle(page);
}
