import { type Page } from '@playwright/test';
import { exportJsonl } from '../lib/formats/export/jsonl';
import { codeToWords, newSyncCode } from '../lib/sync/crypto/code';
import { generateSession } from '../lib/testing/generate';
import { postgresBinDir } from '../lib/testing/postgresServer';
import { assistantMessages, chatTurn, contextTokens, expect, newSession, openApp, sendMessage, test, userMessages } from './support/fixtures';
import { startAppServer, startSyncDatabase, type AppServer } from './support/syncServers';
import { closeSync, createSpace, joinSpace, newDevice, openSync, sessions } from './support/syncUi';

/**
 * Sync between devices, each a browser context of its own (its own
 * IndexedDB), against real app servers: the suite's own (embedded PGlite),
 * and app servers this file starts on a real Postgres it starts itself.
 */

/** How many of the session tree's rows hold each text (the tree shows every branch). */
async function expectTreeRows(page: Page, rows: Record<string, number>) {
  await page.getByRole('button', { name: 'Tree' }).click();
  const tree = page.getByRole('tree', { name: 'Session tree' });
  for (const [text, n] of Object.entries(rows)) await expect(tree.getByRole('treeitem').filter({ hasText: text })).toHaveCount(n, { timeout: 20_000 });
  await page.getByRole('button', { name: 'Tree' }).click();
}

test.describe('sync on the embedded database (the suite’s app server)', () => {
  test('create on A, join on B and see A’s sessions; appends on both while B is offline converge as siblings', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'hello from A');
    const words = await createSpace(page);

    const b = await newDevice(browser);
    await joinSpace(b, words);
    await expect(b.getByRole('dialog', { name: 'Sync' }).getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 30_000 });
    await closeSync(b);
    await sessions(b).getByRole('button', { name: /^hello from A/ }).click();
    await expect(userMessages(b)).toHaveText([/hello from A/]);
    await expect(assistantMessages(b)).toHaveText([/Echo: hello from A/]);

    // B goes offline and writes; A writes meanwhile under the same leaf. (B counts tokens first: the
    // tokenizer loads from the server, and a message is sent only once its size is known.)
    await contextTokens(b);
    await b.context().setOffline(true);
    await sendMessage(b, 'B wrote this offline');
    await expect(userMessages(b).last()).toContainText('B wrote this offline');
    // The session list says what has not reached the server yet.
    await expect(sessions(b).getByText('Not synced')).toBeVisible({ timeout: 15_000 });
    await chatTurn(page, 'A wrote this meanwhile');
    await b.context().setOffline(false);

    // Both end with both branches, and the same number of entries.
    // A's prompt and its echoed reply; B's prompt (its reply failed: B was offline).
    const rows = { 'A wrote this meanwhile': 2, 'B wrote this offline': 1, 'hello from A': 2 };
    await expectTreeRows(page, rows);
    await expectTreeRows(b, rows);
    // Siblings under A's first reply, on both: each prompt shows it has one.
    for (const p of [page, b]) await expect(p.getByText(/^[12]\/2$/).first()).toBeVisible();
    await expect(sessions(b).getByText('Not synced')).toHaveCount(0, { timeout: 20_000 });
    const countOn = async (p: Page) => (await sessions(p).getByText(/^\d+ entries/).textContent())!.match(/^(\d+)/)![1];
    await expect.poll(async () => (await countOn(page)) === (await countOn(b)), { timeout: 20_000 }).toBe(true);
    await b.context().close();
  });

  test('a wrong sync code is refused with a reason, and nothing is merged', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'only on A');
    await createSpace(page);

    const b = await newDevice(browser);
    await joinSpace(b, codeToWords(newSyncCode()));
    const dialog = b.getByRole('dialog', { name: 'Sync' });
    await expect(dialog.getByRole('alert')).toContainText('No sync space matches this code');
    await dialog.getByRole('textbox', { name: /Sync code/ }).fill('abandon ability able about above absent absorb abstract absurd abuse access accidentt');
    await dialog.getByRole('button', { name: 'Join' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Not a word of the sync code: “accidentt”');
    await expect(dialog.getByRole('button', { name: 'Create a sync space' })).toBeVisible();
    await closeSync(b);
    await expect(sessions(b).getByRole('listitem')).toHaveCount(0);
    await b.context().close();
  });

  test('deleting a session on A removes it on B', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'short-lived session');
    await newSession(page);
    await chatTurn(page, 'the one that stays');
    const words = await createSpace(page);
    const b = await newDevice(browser);
    await joinSpace(b, words);
    await closeSync(b);
    await expect(sessions(b).getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });

    await sessions(page).getByRole('button', { name: 'Delete short-lived session' }).click();
    await page.getByRole('dialog', { name: 'Delete session?' }).getByRole('button', { name: 'Delete' }).click();
    await expect(sessions(b).getByRole('listitem')).toHaveCount(1, { timeout: 20_000 });
    await expect(sessions(b).getByRole('button', { name: /^the one that stays/ })).toBeVisible();
    await b.context().close();
  });
});

test.describe('sync on the embedded database: devices', () => {
  test('B joins from the QR link; A removes B, and B is told why; A leaves and keeps its sessions', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'kept through everything');
    const words = await createSpace(page);

    // What scanning the QR code does: open the app at the link, words in the fragment.
    const b = await newDevice(browser);
    await b.goto(`/#sync-join=${words.split(' ').join('-')}`);
    const bDialog = b.getByRole('dialog', { name: 'Sync' });
    await expect(bDialog.getByRole('textbox', { name: /Sync code/ })).toHaveValue(words);
    expect(new URL(b.url()).hash).toBe('');
    await bDialog.getByRole('button', { name: 'Join' }).click();
    await expect(bDialog.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 30_000 });

    const aDialog = await openSync(page);
    const devices = aDialog.getByRole('list', { name: 'Devices in this sync space' }).getByRole('listitem');
    await expect(devices).toHaveCount(2);
    await expect(devices.filter({ hasText: '(this device)' })).toHaveCount(1);
    await aDialog.getByRole('button', { name: /^Remove / }).click();
    await page.getByRole('dialog', { name: 'Remove this device?' }).getByRole('button', { name: 'Remove device' }).click();
    await expect(devices.filter({ hasText: 'removed' })).toHaveCount(1);
    await expect(bDialog.getByRole('alert')).toContainText('This device was removed from the sync space', { timeout: 20_000 });
    await expect(bDialog.getByRole('button', { name: 'Create a sync space' })).toBeVisible();
    await expect(sessions(b).getByRole('button', { name: /^kept through everything/ })).toBeVisible();

    await aDialog.getByRole('button', { name: 'Leave this sync space' }).click();
    await page.getByRole('dialog', { name: 'Leave the sync space?' }).getByRole('button', { name: 'Leave' }).click();
    await expect(aDialog.getByRole('button', { name: 'Create a sync space' })).toBeVisible();
    await closeSync(page);
    await expect(sessions(page).getByRole('button', { name: /^kept through everything/ })).toBeVisible();
    await b.context().close();
  });
});

test.describe('sync on Postgres, with two app servers', () => {
  test.skip(postgresBinDir() === null, 'needs Debian’s postgresql package (.ci/run installs it)');
  test.describe.configure({ mode: 'serial' });

  let db: Awaited<ReturnType<typeof startSyncDatabase>>;
  let one: AppServer;
  let two: AppServer;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    db = await startSyncDatabase();
    [one, two] = await Promise.all([startAppServer({ DATABASE_URL: db.pg.url }), startAppServer({ DATABASE_URL: db.pg.url })]);
    // A server opens its database (and migrates it) at its first sync request: an unauthenticated one does it.
    for (const s of [one, two]) expect((await fetch(`${s.url}/api/sync/devices`)).status).toBe(401);
  });
  test.afterAll(async () => {
    await Promise.all([one?.kill(), two?.kill()]);
    await db?.stop();
  });

  test('device A on server 1 and device B on server 2 see each other’s messages live', async ({ browser }) => {
    const a = await newDevice(browser, one.url);
    await newSession(a);
    await chatTurn(a, 'written on server one');
    const words = await createSpace(a);
    const b = await newDevice(browser, two.url);
    await joinSpace(b, words);
    await closeSync(b);
    await sessions(b).getByRole('button', { name: /^written on server one/ }).click();
    await expect(userMessages(b)).toHaveText([/written on server one/]);

    // Both stay on the page; each sees the other's turn arrive without reloading (LISTEN/NOTIFY across the two servers).
    await a.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^written on server one/ }).click();
    await chatTurn(a, 'second turn from A');
    await expect(userMessages(b).last()).toContainText('second turn from A', { timeout: 10_000 });
    await expect(assistantMessages(b).last()).toContainText('Echo: second turn from A');
    await chatTurn(b, 'answer from B');
    await expect(userMessages(a).last()).toContainText('answer from B', { timeout: 10_000 });
    await a.context().close();
    await b.context().close();
  });

  test('a tampered ciphertext row is refused and not shown', async ({ browser }) => {
    const a = await newDevice(browser, one.url);
    await newSession(a);
    await chatTurn(a, 'genuine message');
    const words = await createSpace(a);
    // What a compromised database could do: change bytes inside one stored entry (the newest).
    const { rowCount } = await db.sql.query(
      `UPDATE sync_records SET body = set_byte(body, 39, get_byte(body, 39) # 255)
        WHERE (space_id, seq) = (SELECT space_id, max(seq) FROM sync_records
                                  WHERE kind = 'entry' AND space_id = (SELECT space_id FROM sync_spaces ORDER BY created_at DESC LIMIT 1)
                                  GROUP BY space_id)`,
    );
    expect(rowCount).toBe(1);
    const b = await newDevice(browser, two.url);
    await joinSpace(b, words);
    const dialog = b.getByRole('dialog', { name: 'Sync' });
    await expect(dialog.getByRole('alert')).toContainText('1 record from the server failed the integrity check and was refused', { timeout: 30_000 });
    await closeSync(b);
    await sessions(b).getByRole('button', { name: /^genuine message/ }).click();
    await expect(userMessages(b)).toHaveText([/genuine message/]);
    // The tampered entry (A's reply, the newest) is not shown.
    await expect(assistantMessages(b)).toHaveCount(0);
    await a.context().close();
    await b.context().close();
  });

  test('a 10,000-entry first sync survives the server being killed mid-push: nothing lost, nothing duplicated', async ({ browser }) => {
    test.setTimeout(300_000);
    const gen = generateSession({ seed: 20_261_116, entries: 10_000, compactEvery: 500 });
    const file = exportJsonl({ meta: { id: 'big', title: 'Ten thousand entries', createdAt: Date.UTC(2026, 0, 1), updatedAt: Date.UTC(2026, 0, 2), leafId: gen.leafId }, entries: gen.entries });
    const a = await newDevice(browser, one.url);
    await a.getByLabel('Import file').setInputFiles({ name: 'big.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(file) });
    await expect(sessions(a).getByText(/^10,?000 entries/)).toBeVisible({ timeout: 60_000 });

    const earlier = (await db.sql.query<{ space_id: string }>('SELECT space_id FROM sync_spaces')).rows.map((r) => r.space_id);
    const dialog = await openSync(a);
    await dialog.getByRole('button', { name: 'Create a sync space' }).click();
    /** A's new space: its id and how many entries the server holds for it. */
    const space = async () =>
      (
        await db.sql.query<{ space_id: string; n: number }>(
          "SELECT s.space_id, count(r.seq)::int AS n FROM sync_spaces s LEFT JOIN sync_records r ON r.space_id = s.space_id AND r.kind = 'entry' WHERE NOT (s.space_id = ANY($1)) GROUP BY s.space_id",
          [earlier],
        )
      ).rows[0];
    // Kill server one once part of the history has landed, while the rest is still being pushed.
    await expect.poll(async () => (await space())?.n ?? 0, { timeout: 60_000, intervals: [50] }).toBeGreaterThan(0);
    await one.kill('SIGKILL');
    const landed = (await space())!.n;
    expect(landed).toBeLessThan(10_000);
    await expect(dialog.getByRole('status', { name: 'Sync status' })).toContainText(/Offline/, { timeout: 30_000 });
    await one.restart();
    await expect(dialog.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 120_000 });
    const done = (await db.sql.query<{ n: number; keys: number }>('SELECT count(*)::int AS n, count(DISTINCT record_key)::int AS keys FROM sync_records WHERE space_id = $1 AND kind = $2', [(await space())!.space_id, 'entry'])).rows[0]!;
    expect(done).toEqual({ n: 10_000, keys: 10_000 });

    await dialog.getByRole('button', { name: 'Show sync code' }).click();
    const words = (await dialog.getByRole('list', { name: 'Sync code' }).getByRole('listitem').allTextContents()).join(' ');
    const b = await newDevice(browser, two.url);
    await joinSpace(b, words);
    const bDialog = b.getByRole('dialog', { name: 'Sync' });
    // A large first sync shows how far it got.
    await expect(bDialog.getByRole('progressbar', { name: 'Receiving sessions' })).toBeVisible({ timeout: 30_000 });
    await expect(bDialog.getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 120_000 });
    await closeSync(b);
    await expect(sessions(b).getByText(/^10,?000 entries/)).toBeVisible();
    await a.context().close();
    await b.context().close();
  });
});

