import type { Locator, Page } from '@playwright/test';
import { assistantMessages, chatTurn, contextTokens, expect, isPhone, mock, newSession, openApp, setCompactionDefaults, test } from './support/fixtures';

/**
 * The user in control of compaction: review before apply (an automatic
 * compaction waits as a card until Apply, Edit or Discard, or until the
 * context no longer fits), and what a summary carried and lost, with one
 * click to add a lost item back. Runs on the desktop and the phone project.
 */

const long = (topic: string) => `${topic}: ${'The quick brown fox jumps over the lazy dog while the compiler reports warnings about unused imports. '.repeat(40)}`;

/** mock-large: 128k window, 16,384 reserve. Compaction is due above 111,616; a prepared summary applies on its own above 119,808. */
const OVER_LIMIT = 115_000;
const PAST_WINDOW = 121_000;

const readyCard = (page: Page) => page.getByRole('region', { name: 'Summary ready to apply' });
const inlineCompaction = (page: Page) => page.getByRole('region', { name: 'Compaction summary' });

async function expectTouchTarget(l: Locator) {
  const b = await l.boundingBox();
  expect(b).not.toBeNull();
  expect(b!.height).toBeGreaterThanOrEqual(44);
}

/** Two long turns, then one whose reported prompt passes the limit: the summary is prepared, not applied. */
async function prepareDraft(page: Page, summary = '## Goal\nPrepared summary of the fox topics.') {
  await openApp(page);
  await setCompactionDefaults(page, { keepRecent: 200, review: true });
  await newSession(page);
  // Short replies: the long prompts make the history worth summarising, and streaming an echo of each would only cost time.
  await mock.script([
    { for: 'chat', reply: 'Noted, first.' },
    { for: 'chat', reply: 'Noted, second.' },
  ]);
  await chatTurn(page, long('first'));
  await chatTurn(page, long('second'));
  await mock.script([
    { for: 'chat', reply: 'A reply after a huge prompt.', usage: { prompt_tokens: OVER_LIMIT, completion_tokens: 8 } },
    { for: 'summarizer', reply: summary },
    { for: 'summarizer', reply: summary },
  ]);
  await chatTurn(page, 'third');
  await expect(readyCard(page)).toBeVisible({ timeout: 20_000 });
  await expect(inlineCompaction(page)).toHaveCount(0);
}

// Several turns, a summary and a reload each: on a loaded two-core machine these take longer than the default minute.
test.describe.configure({ timeout: 180_000 });

test.describe('review before apply', () => {
  test('an automatic compaction waits as a card; the chat goes on uncompacted; Edit, then Apply, compacts with the edited text', async ({ page }) => {
    await prepareDraft(page);
    const card = readyCard(page);
    await expect(card).toContainText(/Summarises \d+ messages/);
    expect(await contextTokens(page)).toBeGreaterThan(100_000);
    const summarizerCalls = (await mock.requests()).filter((r) => r.kind === 'summarizer').length;

    // The conversation goes on: no second summary, nothing applied, and the card says the new turn stays verbatim.
    await mock.script([{ for: 'chat', reply: 'Still uncompacted.', usage: { prompt_tokens: OVER_LIMIT + 1_000, completion_tokens: 5 } }]);
    await chatTurn(page, 'fourth');
    await expect(card).toContainText('written since stay verbatim too');
    await expect(inlineCompaction(page)).toHaveCount(0);
    expect((await mock.requests()).filter((r) => r.kind === 'summarizer')).toHaveLength(summarizerCalls);

    // It survives a reload.
    await page.reload();
    await expect(card).toBeVisible();
    if (isPhone(page)) await expectTouchTarget(card.getByRole('button', { name: 'Apply' }));

    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByRole('textbox', { name: 'Summary text' }).fill('## Goal\nMy reviewed summary of the fox topics.');
    await card.getByRole('button', { name: 'Save summary' }).click();
    await expect(card).toContainText('edited by you');

    await card.getByRole('button', { name: 'Apply' }).click();
    await expect(card).toBeHidden();
    await expect(inlineCompaction(page)).toBeVisible();
    await inlineCompaction(page).getByText('Show summary').click();
    await expect(inlineCompaction(page)).toContainText('My reviewed summary of the fox topics.');
    await expect.poll(() => contextTokens(page)).toBeLessThan(20_000);

    // The next request carries the reviewed summary.
    await chatTurn(page, 'fifth');
    expect(JSON.stringify((await mock.chatRequests()).at(-1)!.body)).toContain('My reviewed summary of the fox topics.');
  });

  test('Discard throws the prepared summary away and compacts nothing', async ({ page }) => {
    await prepareDraft(page);
    await readyCard(page).getByRole('button', { name: 'Discard' }).click();
    await expect(readyCard(page)).toBeHidden();
    await expect(page.getByText(/Summary discarded\./)).toBeVisible();
    await expect(inlineCompaction(page)).toHaveCount(0);
    expect(await contextTokens(page)).toBeGreaterThan(100_000);
  });

  test('once the context no longer fits, the prepared summary is applied on its own and the user is told', async ({ page }) => {
    await prepareDraft(page);
    await mock.script([{ for: 'chat', reply: 'That filled it up.', usage: { prompt_tokens: PAST_WINDOW, completion_tokens: 5 } }]);
    await chatTurn(page, 'fourth');
    await expect(page.getByText('The context no longer fit: the prepared summary was applied.')).toBeVisible();
    await expect(readyCard(page)).toBeHidden();
    await expect(inlineCompaction(page)).toBeVisible();
    await inlineCompaction(page).getByText('Show summary').click();
    await expect(inlineCompaction(page)).toContainText('Prepared summary of the fox topics.');
  });
});

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });

test.describe('what a summary carried and lost', () => {
  test('a compaction card shows its health figure and what it did not carry; pin the message, or re-summarise with the item as focus', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await mock.script([
      {
        for: 'chat',
        reply: `I decided to use \`zod/mini\` instead of \`zod\` because the bundle is smaller. The parser lives in \`lib/parse/index.ts\` and reads \`ParseOptions\`. ${'More detail about the parser and its options. '.repeat(30)}`,
      },
      { for: 'chat', reply: 'Noted, tests.' },
      { for: 'chat', reply: 'Noted, release.' },
    ]);
    await chatTurn(page, long('parser'));
    await chatTurn(page, long('tests'));
    await chatTurn(page, long('release'));

    await mock.script([{ for: 'summarizer', reply: '## Goal\nWork on the parser.' }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog).toBeHidden({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Timeline', exact: true }).click();
    const card = timeline(page).getByRole('article', { name: 'Compaction card' });
    await expect(card.getByText(/^Carries \d{1,3} % of what the span had$/)).toBeVisible({ timeout: 20_000 });
    const lost = card.getByRole('list', { name: /^Not carried over/ });
    await expect(lost).toBeVisible();
    const showAll = card.getByRole('button', { name: /^Show all/ });
    if (await showAll.isVisible()) await showAll.click();
    // Names the assistant used, in its own group of the list.
    const item = (label: string) => lost.getByRole('list', { name: 'Names in the replies' }).getByRole('listitem').filter({ has: page.getByText(label, { exact: true }) });
    await expect(item('zod/mini')).toBeVisible();
    const before = await card.getByText(/^Carries/).innerText();

    // Pin the message the name came from: the reply is then kept verbatim.
    await item('zod/mini').getByRole('button', { name: 'Pin the message “zod/mini” came from' }).click();
    await expect(item('zod/mini')).toContainText('pinned: kept verbatim');
    await page.getByRole('button', { name: isPhone(page) ? 'Close panel' : 'Timeline', exact: true }).click();
    await expect(assistantMessages(page).filter({ hasText: 'zod/mini' }).first().getByRole('button', { name: 'Keep verbatim' })).toHaveAttribute('aria-pressed', 'true');

    // Re-summarise with a lost item as focus: the summarizer is asked for it, and the new version carries it.
    await page.getByRole('button', { name: 'Timeline', exact: true }).click();
    if (await showAll.isVisible()) await showAll.click();
    await mock.script([{ for: 'summarizer', reply: '## Goal\nWork on the parser in `lib/parse/index.ts`.' }]);
    await item('lib/parse/index.ts').getByRole('button', { name: 'Re-summarise with “lib/parse/index.ts” as focus' }).click();
    await expect(card.getByText('v2', { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(card.getByText(/^Carries/)).not.toHaveText(before);
    if (await showAll.isVisible()) await showAll.click();
    await expect(lost).toBeVisible();
    await expect(item('lib/parse/index.ts')).toHaveCount(0);
    const last = (await mock.requests()).filter((r) => r.kind === 'summarizer').at(-1)!;
    expect(JSON.stringify(last.body)).toContain('lib/parse/index.ts');
  });
});
