import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { assistantMessages, chatTurn, expect, isPhone, mock, newSession, openApp, openDrawer, setCompactionDefaults, test, userMessages, waitIdle } from './support/fixtures';
import { animationsDone } from './support/settle';
import { SHOWCASE_SUMMARY, SHOWCASE_TURNS } from './support/showcase';

/**
 * An axe-core audit of every main view, in the light and the dark theme; the
 * "mobile" project runs the same walk at 390×844 with touch. Every view must
 * have no serious or critical violation (colour contrast, names, roles,
 * landmarks…); the figures per impact are attached to the test report.
 */

interface Finding {
  view: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

async function audit(page: Page, view: string, found: Finding[], counts: Record<string, number>) {
  // Transitions (drawer, tooltips) finished, so the audit sees the view as it rests.
  await animationsDone(page);
  const result = await new AxeBuilder({ page }).analyze();
  for (const v of result.violations) {
    counts[v.impact ?? 'unknown'] = (counts[v.impact ?? 'unknown'] ?? 0) + v.nodes.length;
    counts[`${v.impact}:${v.id}`] = (counts[`${v.impact}:${v.id}`] ?? 0) + v.nodes.length;
    if (v.impact === 'serious' || v.impact === 'critical') found.push({ view, id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) });
  }
  counts.views = (counts.views ?? 0) + 1;
}

for (const scheme of ['light', 'dark'] as const) {
  test(`accessibility (${scheme}): no serious or critical axe violation in any main view`, async ({ page }, info) => {
    test.setTimeout(150_000);
    const found: Finding[] = [];
    const counts: Record<string, number> = {};
    await page.emulateMedia({ colorScheme: scheme });

    await openApp(page);
    await audit(page, 'empty app', found, counts);
    if (isPhone(page)) {
      await openDrawer(page);
      await audit(page, 'session drawer', found, counts);
      await page.getByRole('button', { name: 'Close sessions' }).click();
    }

    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    for (const turn of SHOWCASE_TURNS) {
      await mock.script([{ for: 'chat', reply: turn.reply }]);
      await chatTurn(page, turn.prompt);
    }
    await expect(assistantMessages(page).last().locator('.katex-display')).toBeVisible();
    await expect(page.locator('.hljs-keyword').first()).toBeAttached();
    await audit(page, 'session with code and math', found, counts);

    await mock.script([{ for: 'summarizer', reply: SHOWCASE_SUMMARY }, { for: 'summarizer', reply: SHOWCASE_SUMMARY }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const compact = page.getByRole('dialog', { name: 'Compact context' });
    await expect(compact.getByRole('definition').first()).toBeVisible();
    await audit(page, 'Compact dialog', found, counts);
    await compact.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(compact).toBeHidden({ timeout: 20_000 });

    // The compaction is on the path now: the timeline has its card.
    await page.getByRole('button', { name: 'Timeline', exact: true }).click();
    await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('article', { name: 'Compaction card' })).toBeVisible();
    await audit(page, 'Timeline with cards', found, counts);
    await page.getByRole('button', { name: 'Close panel' }).click();

    // A branch: edit the last prompt, so the tree has somewhere to go back to.
    await mock.script([{ for: 'chat', reply: 'Another answer.' }]);
    await userMessages(page).last().getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Edit message' }).fill('How much do breakpoints waste, roughly?');
    await page.getByRole('button', { name: 'Save and send' }).click();
    await expect(assistantMessages(page).last()).toContainText('Another answer.');
    await waitIdle(page);

    await page.getByRole('button', { name: 'Tree', exact: true }).click();
    const tree = page.getByRole('tree', { name: 'Session tree' });
    await expect(tree.getByRole('treeitem', { selected: true })).toBeVisible();
    await audit(page, 'Tree', found, counts);
    await tree.getByRole('treeitem').filter({ hasText: 'assistant: With widths spread evenly' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave this branch?' });
    await expect(leave).toBeVisible();
    // It fits: every choice and Cancel fully on screen, each label whole (no text cut off at either end).
    for (const button of await leave.getByRole('button').all()) {
      await expect(button).toBeInViewport({ ratio: 1 });
      expect(await button.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    }
    await audit(page, 'leave-branch dialog', found, counts);
    await leave.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Close panel' }).click();

    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const exportDialog = page.getByRole('dialog', { name: 'Export session' });
    await expect(exportDialog).toBeVisible();
    await audit(page, 'Export dialog', found, counts);
    await exportDialog.getByRole('button', { name: 'Close' }).click();

    await openDrawer(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
    await audit(page, 'Settings', found, counts);

    await info.attach(`axe-${scheme}.json`, { body: JSON.stringify({ counts, seriousOrCritical: found }, null, 2), contentType: 'application/json' });
    console.log(`axe ${info.project.name} ${scheme}: ${JSON.stringify(counts)}`);
    expect(found, 'serious or critical axe violations').toEqual([]);
  });
}
