import type { Page } from '@playwright/test';
import { assistantMessages, expect, mock, openApp, test, userMessages, waitIdle } from './support/fixtures';

/** Keyboard only: focus reaches controls with Tab/Shift+Tab or the browser's own focus order; activation is Enter. */
async function press(page: Page, locator: ReturnType<Page['getByRole']>, key = 'Enter') {
  await locator.focus();
  await page.keyboard.press(key);
}

async function typeAndSend(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

test('keyboard only: branch by editing, move in the tree, summarise the branch left, reload, fork', async ({ page }) => {
  await mock.script([
    { for: 'chat', reply: 'Reply one.' },
    { for: 'chat', reply: 'Reply two.' },
    { for: 'chat', reply: 'Reply to the edit.' },
    { for: 'summarizer', chunks: ['## Goal\n', 'Branch summary: ', 'the edited question ', 'was tried and answered.\n'], chunkDelayMs: 100 },
    { for: 'chat', reply: 'Reply three, with the summary in mind.' },
  ]);
  await openApp(page);
  await press(page, page.getByRole('button', { name: 'New session', exact: true }));
  await typeAndSend(page, 'first question');
  await expect(assistantMessages(page).last()).toContainText('Reply one.');
  await waitIdle(page);
  await typeAndSend(page, 'second question');
  await expect(assistantMessages(page).last()).toContainText('Reply two.');
  await waitIdle(page);

  // Edit the first message: a second branch.
  await press(page, userMessages(page).first().getByRole('button', { name: 'Edit' }));
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('first question, edited');
  await page.keyboard.press('Tab'); // to "Save and send"
  await page.keyboard.press('Enter');
  await expect(assistantMessages(page).last()).toContainText('Reply to the edit.');
  await waitIdle(page);

  // Open the tree and move to the end of the original branch ("Reply two.").
  await press(page, page.getByRole('button', { name: 'Tree' }));
  const tree = page.getByRole('tree', { name: 'Session tree' });
  await expect(tree).toBeVisible();
  await expect(tree.getByRole('treeitem')).toHaveCount(6);
  const current = tree.getByRole('treeitem', { selected: true });
  await expect(current).toContainText('Reply to the edit.');
  await current.focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await expect(tree.locator('[role="treeitem"]:focus')).toContainText('Reply two.');
  await page.keyboard.press('Enter');

  // Leaving the edited branch: summarise it.
  const dialog = page.getByRole('dialog', { name: 'Leave this branch?' });
  await expect(dialog).toBeVisible();
  await press(page, dialog.getByRole('button', { name: 'Summarize branch' }));
  await expect(page.getByRole('region', { name: 'Branch summary' })).toBeVisible({ timeout: 20_000 });
  await expect(tree.getByRole('treeitem', { selected: true })).toContainText('branch summary');
  await expect(userMessages(page)).toHaveCount(2);
  await expect(userMessages(page).first()).not.toContainText('edited');

  // The next request on this branch carries the summary.
  await typeAndSend(page, 'third question');
  await expect(assistantMessages(page).last()).toContainText('Reply three');
  await waitIdle(page);
  const last = JSON.stringify((await mock.chatRequests()).at(-1)!.body);
  expect(last).toContain('Branch summary: the edited question was tried and answered.');
  expect(last).toContain('second question');
  expect(last).not.toContain('first question, edited');

  // Reload: the branches, the summary and the position are all there.
  await page.reload();
  await press(page, page.getByRole('button', { name: 'Tree' }));
  await expect(tree.getByRole('treeitem')).toHaveCount(9);
  await expect(tree.getByRole('treeitem').filter({ hasText: 'branch summary' })).toHaveCount(1);
  await expect(tree.getByRole('treeitem', { selected: true })).toContainText('Reply three');
  await expect(page.getByRole('region', { name: 'Branch summary' })).toBeVisible();

  // Fork: a new session with the path to here.
  await press(page, page.getByRole('button', { name: 'Fork from here' }));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Fork of /);
  await expect(userMessages(page)).toHaveCount(3);
  await expect(assistantMessages(page).last()).toContainText('Reply three');
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(2);
});

test('selecting an earlier prompt puts its text in the composer; switching without a summary writes nothing', async ({ page }) => {
  await mock.script([{ for: 'chat', reply: 'A1' }, { for: 'chat', reply: 'A2' }]);
  await openApp(page);
  await press(page, page.getByRole('button', { name: 'New session', exact: true }));
  await typeAndSend(page, 'alpha prompt');
  await expect(assistantMessages(page).last()).toContainText('A1');
  await waitIdle(page);
  await typeAndSend(page, 'beta prompt');
  await expect(assistantMessages(page).last()).toContainText('A2');
  await waitIdle(page);

  await press(page, page.getByRole('button', { name: 'Tree' }));
  const tree = page.getByRole('tree', { name: 'Session tree' });
  await tree.getByRole('treeitem', { selected: true }).focus();
  // Type to filter, then select the match.
  await page.keyboard.type('beta');
  await expect(page.getByRole('searchbox', { name: 'Filter tree text' })).toHaveValue('beta');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(tree.locator('[role="treeitem"]:focus')).toContainText('beta prompt');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Leave this branch?' });
  await press(page, dialog.getByRole('button', { name: 'Switch without summary' }));
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('beta prompt');
  await expect(userMessages(page)).toHaveCount(1);
  await expect(tree.getByRole('treeitem', { selected: true })).toContainText('A1');
  await expect(tree.getByRole('treeitem').filter({ hasText: 'branch summary' })).toHaveCount(0);
  await page.reload();
  await expect(userMessages(page)).toHaveCount(1);
  await expect(assistantMessages(page)).toHaveText([/A1/]);
});

test('tree rows: an F2 label shows on its row and under the Labelled filter; a long row keeps its whole text as a tooltip', async ({ page }) => {
  const question = 'Which of the three cache layouts we discussed keeps the p95 latency under two hundred milliseconds when the hit rate drops to forty percent?';
  await mock.script([{ for: 'chat', reply: 'The content-addressed one.' }, { for: 'chat', reply: 'Yes, with five breakpoints.' }]);
  await openApp(page);
  await press(page, page.getByRole('button', { name: 'New session' }));
  await typeAndSend(page, question);
  await expect(assistantMessages(page).last()).toContainText('The content-addressed one.');
  await waitIdle(page);
  await typeAndSend(page, 'And with breakpoints?');
  await expect(assistantMessages(page).last()).toContainText('Yes, with five breakpoints.');
  await waitIdle(page);

  await press(page, page.getByRole('button', { name: 'Tree' }));
  const tree = page.getByRole('tree', { name: 'Session tree' });
  await tree.getByRole('treeitem', { selected: true }).focus();
  await page.keyboard.press('Home');
  await expect(tree.locator('[role="treeitem"]:focus')).toContainText('Which of the three cache layouts');
  await page.keyboard.press('F2');
  await page.getByRole('textbox', { name: 'Label' }).fill('layout decision');
  await page.keyboard.press('Enter');

  // The label is on the row and fully in view, not cut off after the long preview.
  const row = tree.getByRole('treeitem').filter({ hasText: 'Which of the three cache layouts' });
  await expect(row.getByText('layout decision', { exact: true })).toBeInViewport({ ratio: 1 });
  // The row shows well over 35 characters, and the whole text is its tooltip.
  const preview = row.getByTitle(`user: ${question}`);
  await expect(preview).toBeVisible();
  expect(await preview.evaluate((el) => el.clientWidth)).toBeGreaterThan(300);

  await page.getByRole('combobox', { name: 'Filter' }).selectOption('labelled');
  await expect(tree.getByRole('treeitem')).toHaveCount(1);
  await expect(tree.getByRole('treeitem').first().getByText('layout decision', { exact: true })).toBeInViewport({ ratio: 1 });
});
