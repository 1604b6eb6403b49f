import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chatGptExportChunks, emptyShape } from '../lib/testing/generateChatGpt';
import { zipBomb } from '../lib/testing/zips';
import { chatTurn, expect, newSession, openApp, test, assistantMessages, userMessages } from './support/fixtures';

const FIXTURES = fileURLToPath(new URL('../fixtures/real/', import.meta.url));

/** branchPoints: what the tree panel reports for the session that opens (null: not checked). */
const CASES = [
  { file: 'badlogic_pi-mono_compact.jsonl', sessions: 1, summaries: 2, branchPoints: 0 },
  { file: 'd-kimuson_claude-code-viewer_fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl', sessions: 1, summaries: 0, branchPoints: null },
  { file: 'daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl', sessions: 1, summaries: 0, branchPoints: 1 },
  { file: 'danny-avila_LibreChat_chatgpt-tree.json', sessions: 1, summaries: 0, branchPoints: 2 },
  { file: 'danny-avila_LibreChat_chatgpt-export.json', sessions: 2, summaries: 0, branchPoints: null },
  { file: 'danny-avila_LibreChat_librechat-tree.json', sessions: 1, summaries: 0, branchPoints: null },
  { file: 'SWE-agent_SWE-agent_pydicom__pydicom-1458.traj', sessions: 1, summaries: 0, branchPoints: 0 },
];

test.describe('import and export', () => {
  for (const c of CASES) {
    test(`imports ${c.file}`, async ({ page }) => {
      await openApp(page);
      await page.getByLabel('Import file').setInputFiles(join(FIXTURES, c.file));
      await expect(page.getByText(/Imported \d+ session/)).toBeVisible();
      const list = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');
      await expect(list).toHaveCount(c.sessions);
      // The imported session opens, with its messages (and the pi compactions as summaries).
      await expect(userMessages(page).or(assistantMessages(page)).first()).toBeVisible();
      // The list is virtualised: the latest compaction (at the end of the pi session) is on screen.
      if (c.summaries > 0) await expect(page.getByRole('region', { name: 'Compaction summary' }).last()).toBeVisible();
      else await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
      // Its tree: every entry is a tree item, branch points as in the file.
      await page.getByRole('button', { name: 'Tree' }).click();
      const tree = page.getByRole('tree', { name: 'Session tree' });
      await expect(tree.getByRole('treeitem').first()).toBeVisible();
      await expect(tree.getByRole('treeitem', { selected: true })).toHaveCount(1);
      // The count in words, singular for one: "1 branch point", "2 branch points".
      if (c.branchPoints !== null) await expect(page.getByText(new RegExp(`\\d+ entries · ${c.branchPoints} branch point${c.branchPoints === 1 ? '' : 's'}$`))).toBeVisible();
      if (c.summaries > 0) {
        await page.getByRole('button', { name: 'Timeline' }).click();
        await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('article', { name: 'Compaction card' })).toHaveCount(c.summaries);
      }
      // Importing the same file again does not duplicate it.
      await page.getByLabel('Import file').setInputFiles(join(FIXTURES, c.file));
      await expect(page.getByText(/Already imported/)).toBeVisible();
      await expect(list).toHaveCount(c.sessions);
    });
  }

  test('a malformed file gives a clear error naming the line, and writes nothing', async ({ page }) => {
    await openApp(page);
    const good = readFileSync(join(FIXTURES, 'badlogic_pi-mono_compact.jsonl'), 'utf8').split('\n');
    const broken = [...good.slice(0, 40), good[40]!.slice(0, 80), ...good.slice(41)].join('\n');
    await page.getByLabel('Import file').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(broken) });
    const alert = page.getByRole('alert').filter({ hasText: 'Could not import broken.jsonl' });
    await expect(alert).toContainText('Line 41');
    await expect(alert).toContainText('Nothing was saved');
    await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(0);
  });

  test('exports JSONL, Markdown and HTML; the JSONL re-imports; the HTML renders offline and escapes content', async ({ page, context }) => {
    await openApp(page);
    await page.getByLabel('Import file').setInputFiles(join(FIXTURES, 'badlogic_pi-mono_compact.jsonl'));
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();

    const download = async (label: string) => {
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('dialog', { name: 'Export session' }).getByRole('button', { name: label, exact: true }).click()]);
      const path = await d.path();
      return { name: d.suggestedFilename(), text: readFileSync(path, 'utf8') };
    };
    const jsonl = await download('JSONL');
    expect(jsonl.name).toMatch(/\.jsonl$/);
    expect(jsonl.text.split('\n')[0]).toContain('"format":"longctx-session"');
    const md = await download('Markdown');
    expect(md.text).toContain('Compaction summary');
    const html = await download('HTML');
    expect(html.text).toMatch(/^<!DOCTYPE html>/i);

    // Re-import the JSONL: a second session with the same number of entries.
    await page.getByLabel('Import file').setInputFiles({ name: 'roundtrip.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl.text) });
    await expect(page.getByText(/Imported 1 session|Already imported/)).toBeVisible();

    // Open the exported HTML offline: it renders, and nothing in it runs.
    const viewer = await context.newPage();
    const errors: string[] = [];
    viewer.on('pageerror', (e) => errors.push(e.message));
    await viewer.setContent(html.text);
    await expect(viewer.locator('details').first()).toBeVisible();
    await expect(viewer.getByText('Context Checkpoint Summary').first()).toBeAttached();
    expect(await viewer.locator('script').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('exported HTML of a hostile transcript shows the payloads as text', async ({ page, context }) => {
    await openApp(page);
    const header = { type: 'session', format: 'longctx-session', version: 1, id: 'evil', title: 'Hostile <script>alert(1)</script>', createdAt: 1, updatedAt: 1, leafId: 'b' };
    const payload = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> [click](javascript:window.__pwned=3)';
    const lines = [
      header,
      { id: 'a', parentId: null, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: payload }] } },
      { id: 'b', parentId: 'a', timestamp: 2, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: `Here: ${payload}` }] } },
    ];
    await page.getByLabel('Import file').setInputFiles({ name: 'evil.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')) });
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    // In the app: shown as text, nothing executed.
    await expect(userMessages(page).first()).toContainText('<script>window.__pwned=1</script>');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main a[href^="javascript:"], .shell a[href^="javascript:"]').count()).toBe(0);

    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('dialog', { name: 'Export session' }).getByRole('button', { name: 'HTML', exact: true }).click()]);
    const html = readFileSync(await d.path(), 'utf8');
    const viewer = await context.newPage();
    await viewer.setContent(html);
    await expect(viewer.getByText('<script>window.__pwned=1</script>').first()).toBeAttached();
    expect(await viewer.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await viewer.locator('img[onerror], a[href^="javascript:"]').count()).toBe(0);
  });
});

test('back up all sessions as one zip and restore it into an empty browser', async ({ page, browser }) => {
  await openApp(page);
  await page.getByLabel('Import file').setInputFiles(join(FIXTURES, 'danny-avila_LibreChat_chatgpt-export.json'));
  await expect(page.getByText(/Imported 2 sessions/)).toBeVisible();
  await page.getByLabel('Import file').setInputFiles(join(FIXTURES, 'danny-avila_LibreChat_chatgpt-tree.json'));
  await expect(page.getByText(/Imported 1 session/)).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Back up all sessions' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^longctx-backup-\d{4}-\d{2}-\d{2}\.zip$/);
  const zipPath = await download.path();

  // A fresh browser profile: nothing stored yet.
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await openApp(other);
  await expect(other.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(0);
  await other.getByLabel('Import file').setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: readFileSync(zipPath) });
  await expect(other.getByText(/Imported 3 sessions/)).toBeVisible();
  await expect(other.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(3);
  // Restoring the same backup again duplicates nothing.
  await other.getByLabel('Import file').setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: readFileSync(zipPath) });
  await expect(other.getByText(/Already imported/)).toBeVisible();
  await expect(other.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(3);
  await fresh.close();
});

test.describe('importing sessions made here again', () => {
  test('a JSONL export imported into the browser it came from, twice: it is the session already here, and adds nothing', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'a conversation made in this app');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('dialog', { name: 'Export session' }).getByRole('button', { name: 'JSONL', exact: true }).click()]);
    const file = { name: 'made-here.jsonl', mimeType: 'application/x-ndjson', buffer: readFileSync(await d.path()) };
    await page.keyboard.press('Escape');
    const list = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');

    // The export names the session it came from, which is here: nothing to add.
    await page.getByLabel('Import file').setInputFiles(file);
    await expect(page.getByText(/Already imported: “.*”\. Nothing was duplicated\./)).toBeVisible();
    await expect(list).toHaveCount(1);
    // The user can still ask for a copy.
    await page.getByRole('button', { name: 'Import a copy' }).click();
    await expect(list).toHaveCount(2);
    await page.getByLabel('Import file').setInputFiles(file);
    await expect(page.getByText(/Already imported: “.*”\. Nothing was duplicated\./).last()).toBeVisible();
    await expect(list).toHaveCount(2);
  });

  test('a backup zip of sessions made here, restored twice: the second time says Already imported and adds nothing', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'the first session made here');
    await newSession(page);
    await chatTurn(page, 'the second session made here');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Back up all sessions' }).click()]);
    const backup = { name: 'backup.zip', mimeType: 'application/zip', buffer: readFileSync(await download.path()) };

    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await openApp(other);
    const list = other.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');
    await other.getByLabel('Import file').setInputFiles(backup);
    await expect(other.getByText('Imported 2 sessions from backup.zip')).toBeVisible();
    await expect(list).toHaveCount(2);
    await other.getByLabel('Import file').setInputFiles(backup);
    await expect(other.getByText(/Already imported: .*Nothing was duplicated\./)).toBeVisible();
    await expect(list).toHaveCount(2);
    await fresh.close();
  });
});

test('a zip bomb is refused, saying how large it unpacks and what the limit is', async ({ page }) => {
  await openApp(page);
  // Three 1 MiB files of zeros declared at 512 MiB each: a few KB on disk, 1.5 GB unpacked.
  const bomb = zipBomb(3, 512);
  await page.getByLabel('Import file').setInputFiles({ name: 'bomb.zip', mimeType: 'application/zip', buffer: Buffer.from(bomb) });
  const alert = page.getByRole('alert').filter({ hasText: 'Could not import bomb.zip' });
  await expect(alert).toContainText('too large when unpacked: 1.5 GB, more than the 1 GB limit');
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(0);
});

test('a large export shows how far it is, and Cancel import keeps nothing of it, also after a reload', async ({ page }, info) => {
  test.setTimeout(180_000);
  // A generated ChatGPT export of ~30 MB: long enough to be seen in progress on any machine.
  const file = info.outputPath('conversations.json');
  const out = openSync(file, 'w');
  for (const chunk of chatGptExportChunks({ seed: 11, targetBytes: 30_000_000 }, emptyShape())) writeSync(out, chunk);
  closeSync(out);
  await openApp(page);
  await page.getByLabel('Import file').setInputFiles(file);
  const progress = page.getByRole('group', { name: 'Importing conversations.json' });
  // The label says what is done: the part of the file read and the sessions stored so far.
  await expect(progress).toContainText(/Read \d+%, stored [\d,]+ sessions?|Stored [\d,]+ of [\d,]+ sessions/);
  await progress.getByRole('button', { name: 'Cancel import' }).click();
  await expect(page.getByText('Import of conversations.json cancelled; nothing from it was saved.')).toBeVisible();
  await expect(progress).toBeHidden();
  const nav = page.getByRole('navigation', { name: 'Sessions' });
  await expect(nav).toContainText('No sessions yet');
  await page.reload();
  await expect(nav).toContainText('No sessions yet');
});
