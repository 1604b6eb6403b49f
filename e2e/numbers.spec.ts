import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { contextTokens, expect, mock, openApp, setCompactionDefaults, test } from './support/fixtures';

/**
 * Issue 17, item 6, as a user sees it on an imported Claude Code session: the
 * meter and the Timeline's breakdown show the same number or say why not, and
 * a compaction's card shows the meter's figures, also after Regenerate.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/real/', import.meta.url));
const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);
const numberIn = (text: string, re: RegExp) => Number(text.match(re)![1]!.replace(/,/g, ''));

const breakdown = (page: Page) => page.getByRole('region', { name: 'Context breakdown' });
const cards = (page: Page) => page.getByRole('list', { name: 'Timeline' }).getByRole('article', { name: 'Compaction card' });

async function openTimeline(page: Page) {
  const btn = page.getByRole('button', { name: 'Timeline', exact: true });
  if ((await btn.getAttribute('aria-pressed')) !== 'true') await btn.click();
  await expect(breakdown(page)).toBeVisible();
}

async function cardTokens(card: Locator): Promise<{ before: number; after: number }> {
  const text = (await card.locator('dt', { hasText: 'Tokens' }).locator('xpath=following-sibling::dd[1]').innerText()).trim();
  const m = text.match(/^([\d,]+) → ([\d,]+) tokens$/);
  expect(m, text).not.toBeNull();
  return { before: Number(m![1]!.replace(/,/g, '')), after: Number(m![2]!.replace(/,/g, '')) };
}

/** Every summarizer request of a (possibly chunked) summary gets this reply. */
async function summarizerSays(text: string) {
  // Steps a shorter summary left unused would answer the next one.
  await mock.reset();
  await mock.script(Array.from({ length: 12 }, () => ({ for: 'summarizer' as const, reply: text })));
}

test('imported Claude Code session: meter, breakdown, preview and card agree or say why; Regenerate updates the card', async ({ page }) => {
  test.setTimeout(90_000);
  await openApp(page);
  await setCompactionDefaults(page, { keepRecent: 2000, enabled: false });
  await page.getByLabel('Import file').setInputFiles(join(FIXTURES, 'daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl'));
  await expect(page.getByText(/Imported 1 session/)).toBeVisible();

  // Meter and breakdown: the breakdown counts; the meter rests on Claude Code's reported usage, and the breakdown says so with the meter's number.
  await openTimeline(page);
  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toHaveAttribute('aria-valuetext', /reported by the provider/);
  const reported = await contextTokens(page);
  await expect(breakdown(page)).toContainText(`The meter shows ${fmt(reported)} tokens, reported by the provider`);
  const counted = numberIn(await breakdown(page).innerText(), /In context \(counted\): ([\d,]+)/);
  expect(counted).toBeLessThan(reported);
  await expect(breakdown(page)).toContainText(`${fmt(reported - counted)} more than counted here`);

  // The Compact preview: "Context now" is the meter; "After (at most)" is a bound the card then keeps.
  await page.getByRole('button', { name: 'Compact', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Compact context' });
  const fact = async (term: string) => numberIn(await dialog.getByRole('term').filter({ hasText: term }).locator('xpath=following-sibling::dd[1]').innerText(), /^([\d,]+) tokens/);
  await expect(dialog.getByRole('term').filter({ hasText: 'After (at most)' })).toBeVisible();
  expect(await fact('Context now')).toBe(reported);
  const bound = await fact('After (at most)');
  await summarizerSays('## Goal\nFirst summary of the timeline work.');
  await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
  await expect(dialog).toBeHidden({ timeout: 20_000 });

  // The card: before is the meter before, after is the meter now (counted: a compaction drops the provider's report), and within the bound.
  await expect(cards(page)).toHaveCount(1);
  await expect(meter).toHaveAttribute('aria-valuetext', /counted/);
  const first = await cardTokens(cards(page).first());
  expect(first.before).toBe(reported);
  await expect.poll(() => contextTokens(page)).toBe(first.after);
  expect(first.after).toBeLessThanOrEqual(bound);
  // Now both count: the breakdown's total is the meter's number, with nothing to explain.
  await expect(breakdown(page)).toContainText(`In context (counted): ${fmt(first.after)}`);
  await expect(breakdown(page)).not.toContainText('The meter shows');

  // Regenerate with a much longer summary: the card's "after" follows, and is still the meter's figure.
  const card = cards(page).first();
  await summarizerSays(`## Goal\n${'The regenerated summary keeps every file name and decision of the timeline work. '.repeat(12)}`);
  await card.getByRole('button', { name: 'Regenerate' }).click();
  await card.getByRole('button', { name: 'Regenerate summary' }).click();
  await expect(card.getByText('v2', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect.poll(async () => (await cardTokens(card)).after).toBeGreaterThan(first.after);
  const regenerated = await cardTokens(card);
  expect(regenerated.before).toBe(first.before);
  await expect.poll(() => contextTokens(page)).toBe(regenerated.after);
  // The compaction's note in the conversation shows the same figures.
  await expect(page.getByRole('region', { name: 'Compaction summary' })).toContainText(`${fmt(regenerated.before)} → ${fmt(regenerated.after)} tokens`);
});
