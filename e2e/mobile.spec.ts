import type { Locator, Page } from '@playwright/test';
import { join } from 'node:path';
import { assistantMessages, chatTurn, expect, mock, newSession, openApp, openDrawer, setCompactionDefaults, test } from './support/fixtures';

/**
 * The main flows on a phone (the "mobile" project: 390×844, touch). Desktop
 * runs every other spec; this one checks what is different here: the drawer,
 * the full-height chat, panels and big dialogs as full-screen sheets, and
 * touch targets.
 */

const VIEW = { width: 390, height: 844 };

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b, 'element has a box').not.toBeNull();
  return b!;
}

/** Covers the whole screen (a sheet), give or take a pixel of rounding. */
async function expectFullScreen(l: Locator) {
  const b = await box(l);
  expect(b.x).toBeLessThanOrEqual(1);
  expect(b.y).toBeLessThanOrEqual(1);
  expect(b.width).toBeGreaterThanOrEqual(VIEW.width - 1);
  expect(b.height).toBeGreaterThanOrEqual(VIEW.height - 1);
}

async function expectTouchTarget(l: Locator) {
  const b = await box(l);
  expect(b.width, 'touch target width').toBeGreaterThanOrEqual(44);
  expect(b.height, 'touch target height').toBeGreaterThanOrEqual(44);
}

const long = (topic: string) => `${topic}: ${'Notes about the build pipeline, flaky tests and the cache layout. '.repeat(45)}`;

async function expectNoSideways(page: Page, l: Locator) {
  const { scroll, client } = await l.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(scroll, 'no horizontal overflow').toBeLessThanOrEqual(client);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEW.width);
}

test('phone: the first screen is the app, the chat fills the screen with the composer at the bottom, and "Sessions" opens the drawer', async ({ page }) => {
  await openApp(page);
  // Not blank: the welcome screen is in view, the session list is closed.
  await expect(page.getByRole('button', { name: 'Start a conversation' })).toBeInViewport();
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeHidden();

  await page.getByRole('button', { name: 'Start a conversation' }).click();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeInViewport();
  await chatTurn(page, 'Hello from a phone');
  const send = page.getByRole('button', { name: 'Send' });
  // The composer sits at the bottom, the conversation takes the height above it.
  const sendBox = await box(send);
  expect(sendBox.y + sendBox.height).toBeGreaterThan(VIEW.height - 80);
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log).toBeVisible();
  const scroller = await box(page.locator('.message-scroll'));
  expect(scroller.height).toBeGreaterThan(VIEW.height * 0.55);
  await expect(assistantMessages(page).last()).toBeInViewport();

  // Header actions are reachable and big enough to tap; so are the composer's.
  for (const name of ['Sessions', 'Compact', 'Tree', 'Timeline', 'Export', 'Attach', 'Send']) {
    const b = page.getByRole('button', { name, exact: true });
    await expect(b).toBeInViewport();
    await expectTouchTarget(b);
  }

  // The drawer: opened by "Sessions", lists the session, closes on choosing one.
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await expect(nav).toBeInViewport();
  await expect(nav.getByRole('listitem')).toHaveCount(1);
  await expectTouchTarget(page.getByRole('button', { name: 'New session', exact: true }));
  await expect(page.getByRole('button', { name: 'Settings' })).toBeInViewport();
  await nav.getByRole('button', { name: /^Hello from a phone/ }).click();
  await expect(nav).toBeHidden();
  // Escape closes it too, and gives focus back to the button that opened it.
  await page.getByRole('button', { name: 'Sessions', exact: true }).click();
  await expect(nav).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(nav).toBeHidden();
  await expect(page.getByRole('button', { name: 'Sessions', exact: true })).toBeFocused();
});

test('phone: send, compact, tree, timeline and export, each panel a full-screen sheet with a close button', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
  await newSession(page);
  for (const t of ['one', 'two', 'three']) await chatTurn(page, long(`topic ${t}`));

  // Compact: the dialog is a sheet; the summary lands in the conversation.
  await mock.script([{ for: 'summarizer', reply: '## Goal\nPhone summary: topics one to three.' }, { for: 'summarizer', reply: '## Goal\nPhone summary (turn part).' }]);
  await page.getByRole('button', { name: 'Compact', exact: true }).click();
  const compact = page.getByRole('dialog', { name: 'Compact context' });
  await expect(compact.getByRole('definition').first()).toBeVisible();
  await expectFullScreen(compact);
  await compact.getByRole('button', { name: 'Summarize and compact' }).click();
  await expect(compact).toBeHidden({ timeout: 20_000 });
  await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible();

  // Tree: a sheet over everything, closed by its button, focus back where it was.
  const treeButton = page.getByRole('button', { name: 'Tree', exact: true });
  await treeButton.click();
  const treePanel = page.getByRole('complementary', { name: 'Tree panel' });
  await expectFullScreen(treePanel);
  await expect(treePanel.getByRole('tree', { name: 'Session tree' }).getByRole('treeitem', { selected: true })).toBeVisible();
  await expectTouchTarget(treePanel.getByRole('treeitem').first());
  await expectTouchTarget(treePanel.getByRole('button', { name: 'Close panel' }));
  await treePanel.getByRole('button', { name: 'Close panel' }).click();
  await expect(treePanel).toBeHidden();
  await expect(treeButton).toBeFocused();

  // Timeline: the card fits the width; nothing scrolls sideways.
  await page.getByRole('button', { name: 'Timeline', exact: true }).click();
  const timelinePanel = page.getByRole('complementary', { name: 'Timeline panel' });
  await expectFullScreen(timelinePanel);
  const card = timelinePanel.getByRole('article', { name: 'Compaction card' });
  await expect(card).toContainText('Phone summary: topics one to three.');
  await expectNoSideways(page, timelinePanel.locator('.side-body'));
  // The summary's "## Goal" is a small section label in the card, not a page-sized heading.
  const heading = card.getByRole('heading', { name: 'Goal' }).first();
  const sizes = await heading.evaluate((el) => ({ heading: parseFloat(getComputedStyle(el).fontSize), body: parseFloat(getComputedStyle(document.body).fontSize) }));
  expect(sizes.heading).toBeLessThanOrEqual(sizes.body);
  await timelinePanel.getByRole('button', { name: 'Close panel' }).click();

  // Export: a sheet too; the HTML file downloads.
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export session' });
  await expectFullScreen(exportDialog);
  const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'HTML', exact: true }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.html$/);

  // Settings, from the drawer: a sheet with a close button.
  await openDrawer(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await expectFullScreen(settings);
  await settings.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(settings).toBeHidden();
});

test('phone: in the drawer, pin and archive a session, select two by touch, tag and move them, filter by project and tag', async ({ page }) => {
  await openApp(page);
  await openDrawer(page);
  const fixtures = join(process.cwd(), 'fixtures/real');
  await page.getByLabel('Import file').setInputFiles([
    join(fixtures, 'marot_spotter_258c7280-ae70-4798-800f-63464d01a85d.jsonl'),
    join(fixtures, 'marot_spotter_8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl'),
    join(fixtures, 'daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl'),
  ]);
  // Opening an imported session closes the drawer; the last file's notice says the three are in.
  await expect(page.getByText(/^Imported 1 session from daaain_/)).toBeVisible({ timeout: 60_000 });
  await openDrawer(page);
  const list = page.getByRole('navigation', { name: 'Sessions' });
  const count = page.locator('.session-count');
  await expect(count).toHaveText('3 sessions');
  const titles = list.locator('.session-title');
  const first = (await titles.first().textContent())!;
  const pin = list.getByRole('button', { name: `Pin ${first}` });
  await expectTouchTarget(pin);
  await pin.tap();
  await expect(list.getByRole('heading', { name: 'Pinned' })).toBeVisible();
  const last = (await titles.last().textContent())!;
  await list.getByRole('button', { name: `Archive ${last}` }).tap();
  await expect(count).toHaveText('2 sessions');
  await expectNoSideways(page, list);

  await page.getByRole('button', { name: 'Select sessions' }).tap();
  const boxes = list.getByRole('checkbox');
  await expectTouchTarget(list.locator('.session-check').first());
  await boxes.nth(0).tap();
  await boxes.nth(1).tap();
  const bar = page.getByRole('toolbar', { name: 'Selected sessions' });
  await expect(bar).toContainText('2 selected');
  await bar.getByRole('button', { name: 'Tag', exact: true }).tap();
  const tags = page.getByRole('dialog', { name: 'Tags of 2 sessions' });
  await tags.getByRole('combobox', { name: 'Add tags' }).fill('phone');
  await tags.getByRole('button', { name: 'Save tags' }).tap();
  await bar.getByRole('button', { name: 'Move', exact: true }).tap();
  const move = page.getByRole('dialog', { name: 'Move 2 sessions to a project' });
  await move.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'New project…' });
  await move.getByRole('textbox', { name: 'New project name' }).fill('Pocket');
  await move.getByRole('button', { name: 'Move', exact: true }).tap();
  await expect(page.getByText('Moved 2 sessions to Pocket')).toBeVisible();
  await bar.getByRole('button', { name: 'Done' }).tap();
  await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Pocket (2)' });
  await expect(count).toHaveText('2 sessions');
  await page.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'phone (2)' });
  await expect(count).toHaveText('2 sessions');
  await page.getByRole('button', { name: 'Archived sessions' }).tap();
  await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'All projects' });
  await page.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'All tags' });
  await expect(titles).toHaveText([last]);
  await expectNoSideways(page, list);
});
