import type { Page } from '@playwright/test';
import { chatTurn, expect, mock, newSession, openApp, test, userMessages } from './support/fixtures';

/** Long enough that a summary of the earlier turns is shorter than they are. */
const question = (topic: string) => `${topic}: ${'Explain how the animal hunts, where it lives and what it eats in winter. '.repeat(20)}`;

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });

async function openTimeline(page: Page) {
  const btn = page.getByRole('button', { name: 'Timeline' });
  if ((await btn.getAttribute('aria-pressed')) !== 'true') await btn.click();
  await expect(timeline(page)).toBeVisible();
}

test.describe('pins', () => {
  test('Keep verbatim pins a message; after a compaction it is still in context and the Timeline shows it pinned, also after a reload', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    for (const t of ['first question about foxes', 'second question about dogs', 'third question about cats']) await chatTurn(page, question(t));

    const first = userMessages(page).filter({ hasText: 'first question about foxes' });
    const pin = first.getByRole('button', { name: 'Keep verbatim' });
    await expect(pin).toHaveAttribute('aria-pressed', 'false');
    await first.hover();
    await pin.click();
    await expect(pin).toHaveAttribute('aria-pressed', 'true');
    await expect(first).toContainText('Pinned: kept verbatim');

    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await dialog.getByRole('combobox', { name: 'Keep recent unit' }).selectOption('turns');
    // The pinned prompt is summarised with its turn, and carried verbatim after the summary.
    await expect(dialog.getByRole('term').filter({ hasText: 'Pinned' })).toBeVisible();
    await mock.script([{ for: 'summarizer', reply: '## Goal\nAnswer questions about foxes, dogs and cats.' }]);
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog).toBeHidden({ timeout: 20_000 });
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible();

    // The second prompt was summarised away; the pinned first one still reaches the model.
    const second = userMessages(page).filter({ hasText: 'second question about dogs' });
    await expect(second).toHaveClass(/outside-context/);
    await expect(first).not.toHaveClass(/outside-context/);

    await openTimeline(page);
    await expect(timeline(page).getByText(/1 pinned/)).toBeVisible();

    await page.reload();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible();
    await expect(first.getByRole('button', { name: 'Keep verbatim' })).toHaveAttribute('aria-pressed', 'true');
    await openTimeline(page);
    await expect(timeline(page).getByText(/1 pinned/)).toBeVisible();

    // Toggling again unpins.
    await first.hover();
    await first.getByRole('button', { name: 'Keep verbatim' }).click();
    await expect(first.getByRole('button', { name: 'Keep verbatim' })).toHaveAttribute('aria-pressed', 'false');
    await expect(first).toHaveClass(/outside-context/);
    await expect(timeline(page).getByText(/1 pinned/)).toHaveCount(0);
  });
});
