import type { Page } from '@playwright/test';
import { chatTurn, expect, isPhone, mock, newSession, openApp, openDrawer, sendMessage, test, type RecordedRequest } from './support/fixtures';

/**
 * A small local model (mock-small: an 8,192-token window) with the default
 * settings, made for 100k windows: the reserve and keep-recent scale with the
 * window (lib/compaction/policy.ts windowBudget), the settings and the meter
 * say so. Then, as a local server run with a 3,000-token context, a
 * compaction leaves room for the next turns instead of firing after every
 * one (with the settings as written it fired on four turns in a row here).
 * The summarizer is scripted to write as long as each request allows, as a
 * model told it may use 13k tokens would.
 */

const SCALED_RESERVE = 'Reserve 16,384 is more than a quarter of this model’s 8,192-token window: 2,048 is used.';
const SCALED_KEEP = 'Keep recent 20,000 is more than a fifth of this model’s 8,192-token window: 1,638 is used.';

const turnText = (i: number) => `Turn ${i}: ${'Notes on the cache layout, the flaky integration tests and the build pipeline. '.repeat(12)}`;

/** For each chat request in order: whether a summary was written before the next one (a compaction after or before that turn). */
function compactionsByTurn(requests: RecordedRequest[]): boolean[] {
  const out: boolean[] = [];
  for (const r of requests) {
    if (r.kind === 'chat') out.push(false);
    else if (r.kind === 'summarizer' && out.length) out[out.length - 1] = true;
  }
  return out;
}

/**
 * One turn, waiting as long as a compaction before the send may take (the
 * message stays in the composer until it is stored), then for any
 * compaction after the reply.
 */
async function turn(page: Page, text: string) {
  await sendMessage(page, text);
  await expect(page.getByRole('article', { name: 'User message' }).last()).toContainText(text.slice(0, 40), { timeout: 60_000 });
  const articles = page.getByRole('log', { name: 'Conversation' }).getByRole('article');
  await expect(articles.last()).toHaveAttribute('aria-label', 'Assistant message', { timeout: 30_000 });
  await expect(articles.last()).not.toHaveAttribute('aria-busy', 'true', { timeout: 30_000 });
  await waitForQuiet(page);
}

async function waitForQuiet(page: Page) {
  await expect(page.getByRole('region', { name: 'Compaction in progress' })).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 30_000 });
}

// A dozen turns and several summaries: on a loaded two-core machine this takes longer than the default minute.
test.describe.configure({ timeout: 240_000 });

test('a small-window model: the settings and the meter explain the scaling, and compactions leave room for more than one turn', async ({ page }) => {
  await openApp(page);
  await newSession(page);
  await chatTurn(page, 'hello');
  await page.getByRole('combobox', { name: 'Model' }).selectOption('compat:mock-small');
  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toHaveAttribute('aria-valuemax', '8192');

  // The meter's tooltip names what the window scaled down.
  await expect(meter).toHaveAttribute('title', new RegExp(SCALED_RESERVE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await expect(meter).toHaveAttribute('title', /auto-compaction above 6,144/);

  // So do the settings, next to the fields, for the model in use.
  await openDrawer(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const note = dialog.getByRole('group', { name: 'Compaction defaults' }).getByRole('note', { name: 'Scaled to compat:mock-small’s window' });
  await expect(note).toContainText(SCALED_RESERVE);
  await expect(note).toContainText(SCALED_KEEP);
  // A value that fits says nothing about itself.
  await dialog.getByRole('group', { name: 'Compaction defaults' }).getByRole('spinbutton', { name: /Reserve tokens/ }).fill('1000');
  await expect(note).not.toContainText('Reserve');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  if (isPhone(page)) await page.getByRole('button', { name: 'Close sessions' }).click();

  // A local server run with a 3,000-token context (Ollama's num_ctx, say): the user says so in Session options.
  await page.getByRole('button', { name: 'Session options' }).click();
  const options = page.getByRole('dialog', { name: 'Session options' });
  await options.getByRole('spinbutton', { name: /^Context window of mock-small/ }).fill('3000');
  await options.getByRole('button', { name: 'Save' }).click();
  await expect(meter).toHaveAttribute('aria-valuemax', '3000');
  await expect(meter).toHaveAttribute('title', /Reserve 16,384 is more than a quarter of this model’s 3,000-token window: 750 is used\./);

  await mock.script(Array.from({ length: 60 }, () => ({ for: 'summarizer' as const, fillMaxTokens: 0.6 })));
  for (let i = 1; i <= 14; i++) await turn(page, turnText(i));
  const byTurn = compactionsByTurn(await mock.requests()).slice(1);
  const turns = byTurn.flatMap((c, i) => (c ? [i] : []));
  expect(turns.length, `compacted after turns ${turns.join(', ')}`).toBeGreaterThanOrEqual(2);
  // Never two turns in a row: after a compaction there is room for the next turn.
  for (let i = 1; i < turns.length; i++) expect(turns[i]! - turns[i - 1]!, `compacted after turns ${turns.join(', ')}`).toBeGreaterThan(1);
  await expect(page.getByText(/was not used/)).toHaveCount(0);
});
