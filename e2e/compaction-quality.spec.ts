import type { Page } from '@playwright/test';
import { startAppServer, type AppServer } from './support/appServer';
import { expect, mock, openApp, setCompactionDefaults, test } from './support/fixtures';

/**
 * What reaches a summary card is a summary: the built-in extractive summary
 * when no model is connected (also on a compaction Claude Code wrote, which
 * regenerates from the history before its boundary), and never a model's echo
 * of the request or our own framing tags.
 */

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const compactionCards = (page: Page) => timeline(page).getByRole('article', { name: 'Compaction card' });

async function openTimeline(page: Page) {
  const btn = page.getByRole('button', { name: 'Timeline', exact: true });
  if ((await btn.getAttribute('aria-pressed')) !== 'true') await btn.click();
  await expect(timeline(page)).toBeVisible();
}

/** Tags the app frames requests and file lists with: none may show as text anywhere on the page. */
async function expectNoFramingTags(page: Page) {
  await expect(page.getByText(/<\/?(?:conversation|previous-summary|read-files|modified-files)\b/)).toHaveCount(0);
}

test.describe('with no model connected', () => {
  let app: AppServer;
  test.beforeAll(async () => {
    app = await startAppServer({ OLLAMA_BASE_URL: 'off' });
  });
  test.afterAll(async () => {
    await app?.stop();
  });

  test('Regenerate on a compaction Claude Code wrote: the extractive summary of the history before it becomes the current version', async ({ page }) => {
    await page.goto(`${app.url}/`);
    await expect(page.getByRole('status', { name: 'No model connected' })).toBeVisible();
    await page.getByLabel('Import file').setInputFiles('fixtures/real/marot_spotter_258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    await openTimeline(page);
    const card = compactionCards(page).first();
    await expect(card).toContainText('imported from claude-code');
    await expect(card).toContainText('This session is being continued from a previous conversation');
    await card.getByRole('button', { name: 'Regenerate' }).click();
    await card.getByRole('button', { name: 'Regenerate summary' }).click();
    await expect(card.getByText('History (2 versions)')).toBeVisible({ timeout: 30_000 });
    await expect(card).toContainText('Extractive summary — no model.');
    await expect(card).toContainText('Current work (where the summarised part ends)');
    await expect(card).toContainText('What was worked out');
    // The files the history touched are the card's lists, not tags at the end of the text.
    await expect(card.getByText(/^Files modified \(\d+\)/)).toBeVisible();
    await expectNoFramingTags(page);
  });

  test('Compact writes the extractive summary and says so', async ({ page }) => {
    await page.goto(`${app.url}/`);
    await setCompactionDefaults(page, { keepRecent: 500, enabled: false });
    await page.getByLabel('Import file').setInputFiles('fixtures/real/SWE-agent_SWE-agent_pydicom__pydicom-1458.traj');
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await expect(dialog).toContainText('built-in extractive summarizer (no model connected)');
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(page.getByText('No model is connected: the summary was written by the built-in extractive summarizer.')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toContainText('Extractive summary — no model.');
    await openTimeline(page);
    await expect(compactionCards(page).first()).toContainText('extractive, no model');
    await expectNoFramingTags(page);
  });
});

test('a summarizer that answers with an echo of the request: the labelled extractive summary stands in, and no framing tag shows', async ({ page }) => {
  await openApp(page);
  await setCompactionDefaults(page, { keepRecent: 500, enabled: false });
  await page.getByLabel('Import file').setInputFiles('fixtures/real/SWE-agent_SWE-agent_pydicom__pydicom-1458.traj');
  await expect(page.getByText(/Imported 1 session/)).toBeVisible();
  // What small local models do: repeat the prompt they were given, our framing included.
  const echo = 'Stub reply to: <conversation>\n[User]: <uploaded_files>\n/testbed\n</uploaded_files>\nI have uploaded a python code repository in the /testbed directory.\n</conversation>';
  await mock.script([
    { for: 'summarizer', reply: echo },
    { for: 'summarizer', reply: echo },
    { for: 'summarizer', reply: echo },
    { for: 'summarizer', reply: echo },
  ]);
  await page.getByRole('button', { name: 'Compact', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Compact context' });
  await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
  await expect(dialog).toBeHidden({ timeout: 30_000 });
  await expect(page.getByText(/was not used \(it repeated the request instead of summarising it, 2 attempts\)/)).toBeVisible();
  await openTimeline(page);
  const card = compactionCards(page).first();
  await expect(card.getByText('model summary rejected', { exact: true })).toBeVisible();
  await expect(card).toContainText('model summary rejected: it repeated the request instead of summarising it');
  await expect(card).toContainText('Extractive summary — fallback.');
  await expect(card).not.toContainText('Stub reply to');
  await expectNoFramingTags(page);
});
