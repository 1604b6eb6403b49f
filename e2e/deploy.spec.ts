import type { Browser, BrowserContext, BrowserType, LaunchOptions, Page } from '@playwright/test';
import { postgresBinDir } from '../lib/testing/postgresServer';
import { freePort } from '../lib/testing/freePort';
import { caddyBinary, httpsRequest, startCaddy, type Caddy } from './support/caddy';
import { assistantMessages, chatTurn, expect, mock, newSession, test, userMessages } from './support/fixtures';
import { launchServer, type LaunchedServer } from './support/launchedServer';
import { startSyncDatabase } from './support/syncServers';
import { closeSync, createSpace, joinSpace, sessions } from './support/syncUi';

/**
 * The setup docs/deploy.md describes, end to end: Caddy (Debian's) terminating
 * TLS with its internal CA in front of two app servers run as `npm start`
 * runs them, on one Postgres, with the access secret. Caddy serves three
 * sites under one name: the load-balanced one the page documents, and one
 * per app server, so each browser is pinned to a server of its own and the
 * sync between them can only have gone through the database.
 */

const NAME = 'longctx.test';
const SECRET = 'e2e deploy passphrase, long enough';

test.describe.configure({ mode: 'serial' });
test.skip(caddyBinary() === null, 'needs Debian’s caddy package (.ci/run installs it)');
test.skip(postgresBinDir() === null, 'needs Debian’s postgresql package (.ci/run installs it)');

let db: Awaited<ReturnType<typeof startSyncDatabase>> | undefined;
let one: LaunchedServer | undefined;
let two: LaunchedServer | undefined;
let caddy: Caddy | undefined;
/** The test's own browser (launched with the flags that trust Caddy's CA), closed in afterAll too if the test times out. */
let browser: Browser | undefined;
/** The load-balanced site, and the sites that reach only server one or only server two. */
let both = '';
let viaOne = '';
let viaTwo = '';

test.beforeAll(async () => {
  test.setTimeout(180_000);
  db = await startSyncDatabase();
  const env = {
    DATABASE_URL: db.pg.url,
    LONGCTX_ACCESS_SECRET: SECRET,
    ALLOWED_HOSTS: NAME,
    LONGCTX_TRUST_PROXY: '1',
    SYNC_FORWARDED_HOPS: '1',
  };
  [one, two] = await Promise.all([launchServer(env), launchServer(env)]);
  const [p, p1, p2] = [await freePort(), await freePort(), await freePort()];
  caddy = await startCaddy(NAME, [
    { port: p, upstreams: [one.upstream, two.upstream] },
    { port: p1, upstreams: [one.upstream] },
    { port: p2, upstreams: [two.upstream] },
  ]);
  const site = (port: number) => `https://${NAME}:${port}`;
  [both, viaOne, viaTwo] = [site(p), site(p1), site(p2)];
});

test.afterAll(async () => {
  // Each in turn, every one attempted: a failure to stop one must not leave the others running.
  const stops = [() => browser?.close(), () => caddy?.stop(), () => one?.stop(), () => two?.stop(), () => db?.stop()];
  const failed: unknown[] = [];
  for (const stop of stops) await Promise.resolve(stop()).catch((e: unknown) => failed.push(e));
  if (failed.length) throw failed[0];
});

const requestsTo = (server: LaunchedServer | undefined, method: string, route: string) => server!.requests().filter((r) => r.method === method && r.route === route);

test('over https, only the health check and the sign-in answer without the secret; the requests are spread over both servers', async () => {
  test.setTimeout(180_000);
  const ca = caddy!.rootPem;
  const health = await httpsRequest(`${both}/api/health`, { ca });
  expect(health.status).toBe(200);
  expect(health.headers['content-type']).toContain('application/json');
  expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', syncDatabase: { status: 'ok', kind: 'postgres' } });

  const chat = await httpsRequest(`${both}/api/chat`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'compat:mock-large', context: [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'spend the keys' }] } }] }),
  });
  expect(chat.status).toBe(401);
  expect(JSON.parse(chat.body)).toMatchObject({ code: 'sign_in_required' });
  expect(await mock.chatRequests()).toEqual([]);

  const page = await httpsRequest(`${both}/`, { ca });
  expect(page.status).toBe(303);
  expect(page.headers.location).toBe('/signin');

  // Round robin: four refused requests, two on each server. (Caddy's own health checks call /api/health, not this.)
  for (let i = 0; i < 4; i++) expect((await httpsRequest(`${both}/api/models`, { ca })).status).toBe(401);
  // (A server logs a request once its response has closed, a moment after the client has it.)
  await expect.poll(() => [one, two].map((s) => requestsTo(s, 'GET', '/api/models').length)).toEqual([2, 2]);
  // The client each server logs is the one Caddy reports in X-Forwarded-For (LONGCTX_TRUST_PROXY), here this machine.
  expect(requestsTo(one, 'GET', '/api/models').map((r) => r.client)).toEqual(['127.0.0.1', '127.0.0.1']);
});

async function secureBrowser(browserType: BrowserType, launchOptions: LaunchOptions): Promise<Browser> {
  return browserType.launch({
    ...launchOptions,
    args: [
      ...(launchOptions.args ?? []),
      // The name resolves to this machine, and the internal CA's certificates count as valid (a secure context), not as errors to click through.
      `--host-resolver-rules=MAP ${NAME} 127.0.0.1`,
      `--ignore-certificate-errors-spki-list=${caddy!.spkiHashes.join(',')}`,
    ],
  });
}

/** A browser of its own through one site: signs in with the passphrase and checks what needs a secure context. */
async function signedIn(browser: Browser, origin: string, consoleErrors: string[]): Promise<Page> {
  // The service worker is the point here (the suite blocks it elsewhere, playwright.config.ts).
  const context: BrowserContext = await browser.newContext({ serviceWorkers: 'allow' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  // The suite's console check covers its own page only; these pages are checked alike (a certificate or mixed-content error would show here).
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${origin}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`${origin}: pageerror: ${err.message}`));
  await page.goto(`${origin}/`);
  await expect(page).toHaveURL(`${origin}/signin`);
  await expect(page.getByRole('heading', { name: 'Sign in to Longctx' })).toBeVisible();
  await page.getByLabel('Access passphrase').fill(SECRET);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`^${origin}/(#.*)?$`));
  await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
  // Reached over https through the proxy, the sign-in's cookie is Secure.
  expect((await context.cookies(origin)).find((c) => c.name === 'longctx_access')).toMatchObject({ secure: true, httpOnly: true });

  expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  // WebCrypto: what the sync keys are made with.
  expect(await page.evaluate(async () => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('x'))).length)).toBe(32);
  // The service worker registers and takes the page over (it refuses origins with certificate errors).
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  await page.reload();
  await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.state)).toBe('activated');
  return page;
}

test('two browsers, each through its own app server, sign in over https and sync through the shared Postgres', async ({ playwright, launchOptions }) => {
  test.setTimeout(180_000);
  browser = await secureBrowser(playwright.chromium, launchOptions);
  const errors: string[] = [];
  try {
    const a = await signedIn(browser, viaOne, errors);
    await newSession(a);
    await chatTurn(a, 'written through server one');
    await expect(assistantMessages(a).last()).toContainText('Echo: written through server one');
    const words = await createSpace(a);

    const b = await signedIn(browser, viaTwo, errors);
    await joinSpace(b, words);
    await expect(b.getByRole('dialog', { name: 'Sync' }).getByRole('status', { name: 'Sync status' })).toHaveText('Synced', { timeout: 30_000 });
    await closeSync(b);
    // On its title, as a person would: the row's tools cover its right half while the pointer is over it.
    await sessions(b).getByRole('button', { name: /^written through server one/ }).click({ position: { x: 20, y: 10 } });
    await expect(userMessages(b)).toHaveText([/written through server one/]);
    await expect(assistantMessages(b)).toHaveText([/Echo: written through server one/]);

    // Live, both ways: a live stream through Caddy on each server, the news carried by Postgres between them.
    await sessions(a).getByRole('button', { name: /^written through server one/ }).click({ position: { x: 20, y: 10 } });
    await chatTurn(a, 'second turn from A');
    await expect(userMessages(b).last()).toContainText('second turn from A', { timeout: 15_000 });
    await chatTurn(b, 'answer from B');
    await expect(userMessages(a).last()).toContainText('answer from B', { timeout: 15_000 });

    // The clipboard, which only a secure context may write: the message's own Copy button. (Last: its toast covers Settings a while.)
    await assistantMessages(a).first().hover();
    await assistantMessages(a).first().getByRole('button', { name: 'Copy' }).click();
    await expect(a.getByText('Copied')).toBeVisible();
    expect(await a.evaluate(() => navigator.clipboard.readText())).toContain('Echo: written through server one');

    // Which server answered what, from their own request logs: A's space and chats on one, B's join and chat on two.
    expect(requestsTo(one, 'POST', '/api/sync/space').map((r) => r.status)).toEqual([200]);
    expect(requestsTo(two, 'POST', '/api/sync/space')).toEqual([]);
    expect(requestsTo(two, 'POST', '/api/sync/join').map((r) => r.status)).toEqual([200]);
    expect(requestsTo(one, 'POST', '/api/sync/join')).toEqual([]);
    // (The refused chat of the first test went to either.)
    const answered = (s: LaunchedServer | undefined) => requestsTo(s, 'POST', '/api/chat').filter((r) => r.status === 200);
    expect(answered(one)).toHaveLength(2);
    expect(answered(two)).toHaveLength(1);
    for (const s of [one, two]) {
      const signIns = requestsTo(s, 'POST', '/api/access');
      expect(signIns).toHaveLength(1);
      expect(signIns[0]!.status).toBeLessThan(400);
      expect(requestsTo(s, 'POST', '/api/sync/push').length).toBeGreaterThan(0);
    }
    // One space in the database, with both devices in it.
    const { rows } = await db!.sql.query<{ devices: number }>('SELECT count(*)::int AS devices FROM sync_devices GROUP BY space_id');
    expect(rows).toEqual([{ devices: 2 }]);
    expect(errors, 'console errors').toEqual([]);
  } finally {
    await browser.close();
    browser = undefined;
  }
});
