import type { Locator, Page } from '@playwright/test';
import { claudeCodeWithCompaction } from '../lib/testing/claudeCodeCompaction';
import { assistantMessages, chatTurn, contextTokens, expect, mock, newSession, openApp, setCompactionDefaults, test, userMessages, waitIdle } from './support/fixtures';

const long = (topic: string) => `${topic}: ${'Notes about the build pipeline, flaky tests and the cache layout. '.repeat(45)}`;
/**
 * A split turn's first part is summarised by a request of its own, which may reach the model before or after the
 * main one: its scripted reply is matched by its instructions (lib/compaction/prompts.ts), and both replies carry
 * a heading, as a summary must (a reply without one is rejected and retried).
 */
const TURN_PART = 'FIRST PART of a single turn';
const fmt = (n: number) => new Intl.NumberFormat('en-US').format(n);

async function compact(page: Page, summary: string) {
  await mock.script([{ for: 'summarizer', match: TURN_PART, reply: `## Original Request\n${summary} (turn part)` }, { for: 'summarizer', reply: summary }]);
  await page.getByRole('button', { name: 'Compact', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Compact context' });
  await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
  await expect(dialog).toBeHidden({ timeout: 20_000 });
}

const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline' });
const compactionCards = (page: Page) => timeline(page).getByRole('article', { name: 'Compaction card' });
const branchCards = (page: Page) => timeline(page).getByRole('article', { name: 'Branch summary card' });

async function openTimeline(page: Page) {
  const btn = page.getByRole('button', { name: 'Timeline', exact: true });
  if ((await btn.getAttribute('aria-pressed')) !== 'true') await btn.click();
  await expect(timeline(page)).toBeVisible();
}

async function factOf(card: Locator, name: string): Promise<string> {
  return (await card.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]').innerText()).trim();
}

test('timeline: two compactions and a branch summary as cards; undo, regenerate, edit; all after reload', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
  await newSession(page);
  for (const t of ['one', 'two', 'three']) await chatTurn(page, long(`topic ${t}`));

  // Compaction 1.
  const before1 = await contextTokens(page);
  await compact(page, '## Goal\nFirst summary: topics one to three.');
  const after1 = await contextTokens(page);
  expect(after1).toBeLessThan(before1);

  // Compaction 2, then undo it: the meter returns to the pre-compaction figure; restoring brings it back.
  for (const t of ['four', 'five']) await chatTurn(page, long(`topic ${t}`));
  const before2 = await contextTokens(page);
  await compact(page, '## Goal\nSecond summary: merged with the first.');
  const after2 = await contextTokens(page);
  expect(after2).toBeLessThan(before2);
  await openTimeline(page);
  await expect(compactionCards(page)).toHaveCount(2);
  const c2 = compactionCards(page).nth(1);
  await c2.getByRole('button', { name: 'Undo compaction' }).click();
  await expect.poll(() => contextTokens(page)).toBe(before2);
  await expect(c2.locator('.card-head').getByText('undone', { exact: true })).toBeVisible();
  await c2.getByRole('button', { name: 'Restore compaction' }).click();
  await expect.poll(() => contextTokens(page)).toBe(after2);

  // A branch summary: edit the last prompt, then go back to the first version's reply in the tree and summarise the edit.
  await chatTurn(page, 'six');
  await userMessages(page).last().getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('textbox', { name: 'Edit message' }).fill('six, rephrased');
  await mock.script([{ for: 'chat', reply: 'Reply to the rephrased six.' }]);
  await page.getByRole('button', { name: 'Save and send' }).click();
  await expect(assistantMessages(page).last()).toContainText('Reply to the rephrased six.');
  await waitIdle(page);
  await page.getByRole('button', { name: 'Tree' }).click();
  const tree = page.getByRole('tree', { name: 'Session tree' });
  await mock.script([{ for: 'summarizer', reply: '## Goal\nBranch summary: six was rephrased and answered.' }]);
  await tree.getByRole('treeitem').filter({ hasText: 'Echo: six' }).click();
  await page.getByRole('dialog', { name: 'Leave this branch?' }).getByRole('button', { name: 'Summarize branch' }).click();
  await expect(page.getByRole('region', { name: 'Branch summary' })).toBeVisible({ timeout: 20_000 });

  // Three cards with the right figures and ranges.
  await openTimeline(page);
  await expect(compactionCards(page)).toHaveCount(2);
  await expect(branchCards(page)).toHaveCount(1);
  const c1 = compactionCards(page).nth(0);
  expect(await factOf(c1, 'Tokens')).toContain(fmt(before1));
  expect(await factOf(c2, 'Tokens')).toContain(fmt(before2));
  // The second compaction summarised from where the first one's kept range began (kept messages get summarised next time).
  const kept1 = (await factOf(c1, 'Kept')).match(/from “(.*)”/)![1]!;
  expect(await factOf(c2, 'Summarised')).toContain(kept1);
  expect(await factOf(branchCards(page), 'Summarised')).toContain('six, rephrased');
  await expect(c1.getByText('Summary', { exact: true })).toBeVisible();
  await expect(c1).toContainText('First summary: topics one to three.');
  await expect(c1.getByText(/Original messages \(\d+\)/)).toBeVisible();
  await expect(branchCards(page)).toContainText('Branch summary: six was rephrased and answered.');

  // Jump to the first kept message of compaction 1.
  await c1.getByRole('button', { name: 'Jump to first kept message' }).click();

  // Regenerate compaction 1 with new instructions: a new version becomes current.
  await mock.script([{ for: 'summarizer', match: TURN_PART, reply: '## Original Request\nturn part again' }, { for: 'summarizer', reply: '## Goal\nRegenerated first summary with the cache focus.' }]);
  await c1.getByRole('button', { name: 'Regenerate' }).click();
  await c1.getByRole('textbox', { name: /New focus instructions/ }).fill('Focus on the cache layout');
  await c1.getByRole('button', { name: 'Regenerate summary' }).click();
  await expect(c1).toContainText('Regenerated first summary with the cache focus.', { timeout: 20_000 });
  await expect(c1.getByText('v2', { exact: true })).toBeVisible();
  const regen = (await mock.requests()).filter((r) => r.kind === 'summarizer').at(-1);
  expect(JSON.stringify(regen!.body)).toContain('Focus on the cache layout');

  // Edit compaction 2's summary.
  await c2.getByRole('button', { name: 'Edit' }).click();
  await c2.getByRole('textbox', { name: 'Summary text' }).fill('## Goal\nHand-edited second summary.');
  await c2.getByRole('button', { name: 'Save edit' }).click();
  await expect(c2).toContainText('Hand-edited second summary.');

  // The next request uses the edited summary.
  await chatTurn(page, 'seven');
  const lastChat = JSON.stringify((await mock.chatRequests()).at(-1)!.body);
  expect(lastChat).toContain('Hand-edited second summary.');
  expect(lastChat).toContain('Branch summary: six was rephrased and answered.');

  // Everything survives a reload.
  await page.reload();
  await openTimeline(page);
  await expect(compactionCards(page)).toHaveCount(2);
  await expect(branchCards(page)).toHaveCount(1);
  await expect(compactionCards(page).nth(0)).toContainText('Regenerated first summary with the cache focus.');
  await expect(compactionCards(page).nth(0).getByText('History (2 versions)')).toBeVisible();
  await expect(compactionCards(page).nth(1)).toContainText('Hand-edited second summary.');
  await expect(compactionCards(page).nth(1).getByText(/History \(2 versions\)/)).toBeVisible();
  const breakdown = page.getByRole('region', { name: 'Context breakdown' });
  await expect(breakdown).toContainText('Summaries');
  await expect(breakdown).toContainText('Free space');
});

test.describe('an imported Claude Code compaction on the timeline', () => {
  const importClaudeCode = async (page: Page, text: string) => {
    await openApp(page);
    await page.getByLabel('Import file').setInputFiles({ name: 'compacted-session.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    await openTimeline(page);
    await expect(compactionCards(page)).toHaveCount(1);
    return compactionCards(page).first();
  };

  test('is regenerated from the conversation before the boundary: a new version becomes current', async ({ page }) => {
    const built = claudeCodeWithCompaction('claudeLog');
    const card = await importClaudeCode(page, built.text);
    await expect(card).toContainText('This session is being continued from a previous conversation');
    // Claude Code's summary replaced the whole history: everything before it was summarised, nothing kept.
    expect(await factOf(card, 'Summarised')).toMatch(/^\d+ entries from “user: Hey Claude, I'd like your help with refactoring the timeline filtering/);
    expect(await factOf(card, 'Kept')).toBe('nothing before it (only what came after)');

    await mock.script([{ for: 'summarizer', match: TURN_PART, reply: '## Original Request\nturn part' }, { for: 'summarizer', reply: '## Goal\nRegenerated: hide the vis-group and match its header colour.' }]);
    await card.getByRole('button', { name: 'Regenerate' }).click();
    await card.getByRole('button', { name: 'Regenerate summary' }).click();
    await expect(page.getByText('Summary regenerated; the earlier version stays in its history.')).toBeVisible({ timeout: 20_000 });
    await expect(card.getByText('v2', { exact: true })).toBeVisible();
    await expect(card.getByText('History (2 versions)')).toBeVisible();
    await expect(card).toContainText('Regenerated: hide the vis-group and match its header colour.');
    // The summarizer was given the history before the boundary.
    const asked = JSON.stringify((await mock.requests()).filter((r) => r.kind === 'summarizer').at(-1)!.body);
    expect(asked).toContain('refactoring the timeline filtering');
    await expect(page.getByText(/Regeneration failed/)).toHaveCount(0);
  });

  test('whose history is not in the file says so, and cannot be regenerated', async ({ page }) => {
    const card = await importClaudeCode(page, claudeCodeWithCompaction('claudeLog', { atStart: true }).text);
    const why = 'The history this summary replaced is not in this session, so it cannot be regenerated.';
    expect(await factOf(card, 'Summarised')).toBe(why);
    const regenerate = card.getByRole('button', { name: 'Regenerate' });
    await expect(regenerate).toBeDisabled();
    await expect(regenerate).toHaveAccessibleDescription(why);
  });
});
