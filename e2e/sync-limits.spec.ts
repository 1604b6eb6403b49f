import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSpace as createSpaceRaw, MiB, probeCreations, probeLiveStreams, probePull, probeWrongJoins, startProbeServer, type ProbeServer } from '../scripts/syncProbe';
import { chatTurn, expect, newSession, test } from './support/fixtures';
import { startAppServer, type AppServer } from './support/syncServers';
import { newDevice, openSync, sessions } from './support/syncUi';

/**
 * The sync server's limits, from the outside: app servers of this file's own
 * (the production build on the embedded database, each with a fresh data
 * folder and the limits under test), driven as a person would (the app's
 * messages) and as an abusive client would (scripts/syncProbe.ts, the probes
 * scripts/sync-limits.ts prints figures from).
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));

test.describe('sync limits in the app', () => {
  test.describe.configure({ mode: 'serial' });
  let server: AppServer;
  let data: string;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    data = mkdtempSync(join(tmpdir(), 'longctx-e2e-limits-'));
    server = await startAppServer({ LONGCTX_DATA_DIR: data, SYNC_QUOTA_RECORDS: '5', SYNC_RATE_CREATE: '1/h' });
    // A server opens (and migrates) its database at its first sync request: an unauthenticated one does it.
    expect((await fetch(`${server.url}/api/sync/devices`)).status).toBe(401);
  });
  test.afterAll(async () => {
    await server?.kill();
    if (data) rmSync(data, { recursive: true, force: true });
  });
  // The browser reports the refused requests themselves as console errors.
  test.use({ allowConsoleErrors: [/status of (429|507)/] });

  test('a full space: Settings → Sync says so and why, and the session stays marked “Not synced”', async ({ browser }) => {
    test.setTimeout(120_000);
    const a = await newDevice(browser, server.url);
    await newSession(a);
    // Three turns: the session's metadata and six entries, more than the five records this server allows a space.
    for (const text of ['first', 'second', 'third']) await chatTurn(a, `${text} message`);
    const dialog = await openSync(a);
    await dialog.getByRole('button', { name: 'Create a sync space' }).click();
    const status = dialog.getByRole('status', { name: 'Sync status' });
    await expect(status).toHaveText(/^Sync error: This sync space is full: it would hold \d+ records, and the server allows 5 records per space \(SYNC_QUOTA_RECORDS\)\./, { timeout: 60_000 });
    await expect(status).toContainText('This device’s changes stay here and are not sent');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await a.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
    await expect(sessions(a).getByText('Not synced')).toBeVisible();
    await a.context().close();
  });

  test('a second space from the same address within the hour is refused with when to try again', async ({ browser }) => {
    // The first test created this address's one space of the hour.
    const b = await newDevice(browser, server.url);
    const dialog = await openSync(b);
    await dialog.getByRole('button', { name: 'Create a sync space' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(/^Could not create a sync space: Too many sync spaces were created from this address: at most 1 per hour\. Try again in (about 1 hour|\d+ minutes)\.$/);
    await expect(dialog.getByRole('button', { name: 'Create a sync space' })).toBeEnabled();
    await b.context().close();
  });
});

test.describe('sync limits, probed from outside', () => {
  let server: ProbeServer | undefined;
  test.afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  test('pulling 8 records of 8 MB: pages capped by bytes, server memory within 3 × the largest page', async () => {
    test.setTimeout(300_000);
    server = await startProbeServer(ROOT);
    const pull = await probePull(server, { records: 8, recordBytes: 8 * MiB });
    // The one request the issue made: now one page holds what fits the 4 MiB cap (here a record of 8 MB, alone).
    expect(pull.one.records).toBe(1);
    expect(pull.one.more).toBe(true);
    expect(pull.all.records).toBe(8);
    expect(pull.all.pages).toBe(8);
    // A page is one 8 MB record in base64: about 11.2 MB, under the 16 MB a page may be.
    expect(pull.all.largestPage).toBeLessThan(16 * MiB);
    // Memory: the issue measured 1.6 GB for this pull (scripts/sync-limits.ts); the target is less than 3 pages.
    expect(pull.one.peakRss - pull.restingRss).toBeLessThan(3 * pull.one.bytes);
    expect(pull.all.peakRss - pull.restingRss).toBeLessThan(3 * pull.all.largestPage);
  });

  test('space creations, wrong joins and live streams from one client are refused past their limits', async () => {
    test.setTimeout(300_000);
    server = await startProbeServer(ROOT);
    const { device } = await createSpaceRaw(server.url);
    expect(device).not.toBeNull();
    // The defaults: 10 spaces an hour per address (one used above), 30 joins an hour, 4 live streams per device.
    const creations = await probeCreations(server.url, { n: 40, perSecond: 33 });
    expect(creations.statuses).toEqual({ 200: 9, 429: 31 });
    expect(Number(creations.retryAfter[0])).toBeGreaterThan(300);
    const joins = await probeWrongJoins(server.url, device!, { n: 50, concurrency: 5 });
    expect(joins.statuses).toEqual({ 401: 30, 429: 20 });
    const live = await probeLiveStreams(server, device!, { n: 40, concurrency: 10 });
    expect(live.statuses).toEqual({ 200: 4, 429: 36 });
    expect(live.held).toBe(4);
    // Four streams hold four sockets; the refused ones were closed (their keep-alive connections may linger a while).
    expect(live.fdsGrowth).toBeLessThan(40);
  });
});
