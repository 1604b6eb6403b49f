import AxeBuilder from '@axe-core/playwright';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { freePort } from '../lib/testing/freePort';
import { MOCK_URL, chatTurn, expect, mock, newSession, test } from './support/fixtures';

/**
 * The outside check of an exposed server: `npm start` (scripts/start.mjs) as an
 * operator runs it with HOST=0.0.0.0, probed the way the attacker did,
 * from the machine's LAN address where it has one: no route answers without
 * the secret (every route file under app/api, found on disk), the health check
 * does, a phone signs in through the page and then chats, a browser-entered
 * provider cannot read a local service, and SIGTERM stops everything.
 *
 * Each server here is a process of its own with its own data directory; the
 * suite's shared server stays on loopback, untouched.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'e2e correct horse battery staple';

/** Where another machine on the network would reach this one; loopback where there is no network. */
function outsideAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

interface Launched {
  port: number;
  /** As another machine would address it. */
  outside: string;
  /** As a browser on this machine would: a secure context, so the service worker runs. */
  local: string;
  child: ChildProcess;
  mark: string;
  dataDir: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the app as `node scripts/start.mjs` or `npm start`, exposed, and waits until it is healthy (or has exited). */
async function launch(env: Record<string, string>, via: 'script' | 'npm' | 'next start' = 'script', waitHealthy = true): Promise<Launched> {
  const port = await freePort();
  const mark = randomUUID();
  const dataDir = mkdtempSync(join(tmpdir(), 'longctx-exposed-'));
  const fullEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production' as const,
    HOST: '0.0.0.0',
    PORT: String(port),
    LONGCTX_DATA_DIR: dataDir,
    LONGCTX_SHUTDOWN_GRACE_MS: '5000',
    OLLAMA_BASE_URL: 'off',
    OPENAI_COMPATIBLE_BASE_URL: `${MOCK_URL}/v1`,
    OPENAI_COMPATIBLE_NAME: 'Scripted test model',
    DEFAULT_MODEL: 'compat:mock-large',
    // Found again in /proc/*/environ: every process this launch started carries it.
    LONGCTX_E2E_MARK: mark,
    ...env,
  };
  const options = { cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };
  const child =
    via === 'npm'
      ? spawn('npm', ['start'], options)
      : via === 'next start'
        ? spawn(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-p', String(port), '-H', '0.0.0.0'], options)
        : spawn(process.execPath, ['scripts/start.mjs'], options);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const launched: Launched = { port, outside: `http://${outsideAddress()}:${port}`, local: `http://127.0.0.1:${port}`, child, mark, dataDir, stdout: () => out, stderr: () => err, exited };
  if (!waitHealthy) return launched;
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${err.slice(-800)}`);
        return (await fetch(`${launched.local}/api/health`).catch(() => null))?.status ?? 0;
      },
      { timeout: 90_000, intervals: [250] },
    )
    .toBe(200);
  return launched;
}

/** Processes still alive that this launch started (or that started from them). */
function survivors(mark: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`LONGCTX_E2E_MARK=${mark}`)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

/** Every route file under app/api, and the HTTP methods it exports. */
function apiRoutes(): { path: string; methods: string[] }[] {
  const api = join(ROOT, 'app', 'api');
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name === 'route.ts' ? [join(dir, d.name)] : []));
  return walk(api).map((file) => ({
    path: `/api/${relative(api, file).replace(/\/?route\.ts$/, '')}`.replace(/\[[^\]]+\]/g, 'sample'),
    methods: [...readFileSync(file, 'utf8').matchAll(/export (?:async )?function (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)].map((m) => m[1]!),
  }));
}

const chatBody = JSON.stringify({ model: 'compat:mock-large', context: [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'spend the operator’s keys' }] } }] });

async function signIn(page: Page, passphrase: string) {
  await page.getByLabel('Access passphrase').fill(passphrase);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test.describe.configure({ mode: 'serial', timeout: 180_000 });

test.describe('an exposed server', () => {
  test('does not start without an access secret, and says what to set', async () => {
    const s = await launch({}, 'script', false);
    const { code } = await s.exited;
    expect(code).toBe(1);
    expect(s.stderr()).toContain('LONGCTX_ACCESS_SECRET is not set');
    expect(s.stderr()).toContain('LONGCTX_INSECURE_NO_ACCESS_SECRET=1');
    expect(await answers(s.local)).toBe(false);
    expect(survivors(s.mark)).toEqual([]);
  });

  test('started with `next start` instead of npm start, it does not run at all: nothing would check access', async () => {
    const s = await launch({ LONGCTX_ACCESS_SECRET: SECRET }, 'next start', false);
    const { code } = await s.exited;
    expect(code).toBe(1);
    expect(s.stderr()).toContain('it was not started with npm start');
    expect(await answers(s.local)).toBe(false);
    expect(survivors(s.mark)).toEqual([]);
  });

  test.describe('with a secret', () => {
    let server: Launched;

    test.beforeAll(async () => {
      server = await launch({ LONGCTX_ACCESS_SECRET: SECRET });
    });

    test.afterAll(async () => {
      if (server?.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });

    test('answers nothing without the secret: every API route, every method; the health check answers', async () => {
      const routes = apiRoutes();
      expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/api/chat', '/api/summarize', '/api/models', '/api/sync/push', '/api/sync/live', '/api/health']));
      let refused = 0;
      for (const r of routes) {
        for (const method of r.methods) {
          const res = await fetch(`${server.outside}${r.path}`, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}), redirect: 'manual' });
          if (r.path === '/api/health') {
            expect(res.status).toBe(200);
            expect(await res.json()).toMatchObject({ status: 'ok', syncDatabase: { status: 'ok', kind: 'pglite' } });
          } else if (r.path === '/api/access') {
            expect(res.status, `${method} ${r.path}`).not.toBe(401);
          } else {
            expect(res.status, `${method} ${r.path}`).toBe(401);
            expect(((await res.json()) as { code: string }).code).toBe('sign_in_required');
            refused++;
          }
        }
      }
      expect(refused).toBeGreaterThanOrEqual(10);
      // The curl: a chat request streams no reply, and the model is never asked.
      const chat = await fetch(`${server.outside}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody });
      expect(chat.status).toBe(401);
      const wrong = await fetch(`${server.outside}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer not the secret at all' }, body: chatBody });
      expect(wrong.status).toBe(401);
      expect(await mock.chatRequests()).toEqual([]);
      // The page itself sends the browser to the sign-in.
      const page = await fetch(`${server.outside}/`, { redirect: 'manual' });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/signin');
      // A script with the secret gets through.
      const models = await fetch(`${server.outside}/api/models`, { headers: { authorization: `Bearer ${SECRET}` } });
      expect(models.status).toBe(200);
    });

    test.describe('on a phone', () => {
      test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

      test('signs in with the passphrase, then chats; the sign-in page is accessible and the cookie holds no secret', async ({ page, context }) => {
        await page.goto(`${server.local}/`);
        await expect(page).toHaveURL(`${server.local}/signin`);
        await expect(page.getByRole('heading', { name: 'Sign in to Longctx' })).toBeVisible();
        const audit = await new AxeBuilder({ page }).analyze();
        expect(audit.violations.map((v) => v.id)).toEqual([]);
        // It fits the phone: nothing wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

        await signIn(page, 'not the passphrase');
        // (Next's route announcer is an alert too, empty.)
        await expect(page.getByRole('alert').filter({ hasText: 'That passphrase is not right.' })).toBeVisible();
        await expect(page.getByLabel('Access passphrase')).toHaveAttribute('aria-invalid', 'true');

        await signIn(page, SECRET);
        // The app page (it keeps its own place in the #fragment).
        await expect(page).toHaveURL(new RegExp(`^${server.local}/(#.*)?$`));
        await expect(page.getByRole('button', { name: 'Sessions', exact: true })).toBeVisible();
        const cookie = (await context.cookies(server.local)).find((c) => c.name === 'longctx_access')!;
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
        expect(cookie.value).not.toContain(SECRET);
        expect(cookie.value).toMatch(/^v1\.\d+\.[\w-]{43}$/);

        await mock.script([{ reply: 'Hello from behind the sign-in.' }]);
        await newSession(page);
        await chatTurn(page, 'hello through the gate');
        await expect(page.getByRole('article', { name: 'Assistant message' }).last()).toContainText('Hello from behind the sign-in.');
      });

      test.describe('offline', () => {
        // Offline, the page's own requests to the server fail, and the browser logs each.
        test.use({ allowConsoleErrors: [/^Failed to load resource/], serviceWorkers: 'allow' });

        test('after signing in, the app still opens offline from the service worker', async ({ page, context }) => {
          await page.goto(`${server.local}/signin`);
          await signIn(page, SECRET);
          await expect(page.getByRole('button', { name: 'Sessions', exact: true })).toBeVisible();
          await page.evaluate(async () => {
            await navigator.serviceWorker.ready;
            if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
          });
          // The worker keeps the app's page, not the sign-in page it was first registered from.
          const shell = () => page.evaluate(async () => (await (await caches.open('longctx-shell')).match('/', { ignoreVary: true }))?.text() ?? '');
          await expect.poll(shell, { timeout: 20_000 }).toContain('<html');
          expect(await shell()).not.toContain('Access passphrase');
          await context.setOffline(true);
          const response = await page.reload();
          expect(response?.fromServiceWorker()).toBe(true);
          await expect(page.getByRole('button', { name: 'Sessions', exact: true })).toBeVisible();
          await context.setOffline(false);
        });
      });
    });

    test('a base URL typed in a browser may not point it at this machine (the exposed default)', async () => {
      const local = createHttpServer((_q, r) => r.writeHead(500).end('db_password=hunter2'));
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', () => r()));
      let called = false;
      local.on('request', () => (called = true));
      try {
        const res = await fetch(`${server.outside}/api/models`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
          body: JSON.stringify({ provider: 'compat', instance: 'x1', label: 'Probe', baseUrl: `http://127.0.0.1:${(local.address() as AddressInfo).port}/v1` }),
        });
        const text = await res.text();
        expect(text).not.toContain('hunter2');
        expect(JSON.parse(text)).toMatchObject({ provider: { state: 'refused', error: expect.stringMatching(/ALLOW_CLIENT_BASE_URLS=none/) } });
        expect(called).toBe(false);
      } finally {
        await new Promise((r) => local.close(r));
      }
    });

    test('SIGTERM: the reply in flight finishes, then the port closes, the database is released and nothing is left running', async () => {
      await mock.script([{ reply: 'one two three four five six seven eight nine ten', chunkDelayMs: 150 }]);
      const res = await fetch(`${server.local}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, body: chatBody });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let streamed = decoder.decode((await reader.read()).value);
      const pidFile = join(server.dataDir, 'pglite', 'longctx-server.pid');
      expect(existsSync(pidFile)).toBe(true);
      const sent = Date.now();
      server.child.kill('SIGTERM');
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        streamed += decoder.decode(value);
      }
      // Finished within the grace period: the whole reply and its finish, not a cut stream.
      expect(streamed).toContain('"type":"finish"');
      const { code } = await server.exited;
      expect(code).toBe(0);
      expect(Date.now() - sent).toBeLessThan(20_000);
      expect(await answers(server.local)).toBe(false);
      expect(survivors(server.mark)).toEqual([]);
      expect(existsSync(pidFile)).toBe(false);

      // The log: one JSON line per request, with what an operator needs and nothing else.
      const lines = server
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const chat = lines.find((l) => l.msg === 'request' && l.route === '/api/chat' && l.status === 200);
      expect(chat).toMatchObject({ level: 'info', method: 'POST', client: '127.0.0.1' });
      expect(typeof chat!.durationMs).toBe('number');
      expect(lines.some((l) => l.msg === 'request' && l.status === 401 && l.route === '/api/sync/push')).toBe(true);
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', released: ['sync database'] });
      expect(server.stdout()).not.toContain(SECRET);
      expect(server.stdout()).not.toMatch(/longctx_access=|Bearer /);
    });
  });

  test('a test run killed outright leaves no app server holding the embedded database (scripts/e2e-app.mjs)', async () => {
    const port = await freePort();
    const mark = randomUUID();
    const dataDir = mkdtempSync(join(tmpdir(), 'longctx-orphan-'));
    // The runner as a shell that waits for the app server script, like a test runner's child.
    const runner = spawn('sh', ['-c', `"${process.execPath}" scripts/e2e-app.mjs; true`], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', PORT: String(port), LONGCTX_DATA_DIR: dataDir, OLLAMA_BASE_URL: 'off', LONGCTX_E2E_MARK: mark },
      stdio: 'ignore',
    });
    const local = `http://127.0.0.1:${port}`;
    await expect.poll(async () => (await fetch(`${local}/api/health`).catch(() => null))?.status ?? 0, { timeout: 90_000, intervals: [250] }).toBe(200);
    const pidFile = join(dataDir, 'pglite', 'longctx-server.pid');
    expect(existsSync(pidFile)).toBe(true);
    runner.kill('SIGKILL');
    await expect.poll(() => survivors(mark), { timeout: 20_000 }).toEqual([]);
    expect(await answers(local)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  });

  test('run with `npm start`: a browser-entered provider reads nothing from local services, and SIGTERM to npm leaves nothing running', async () => {
    const leaky = createHttpServer((_q, r) => r.writeHead(500, { 'content-type': 'text/plain' }).end('config error: db_password=hunter2'));
    const notHttp = createTcpServer((sock) => {
      sock.once('data', () => sock.end(Buffer.from('E\0\0\0\x50SFATAL\0C08P01\0Minvalid startup packet: db_password=hunter2\0\0', 'latin1')));
      sock.on('error', () => {});
    });
    const gone = createTcpServer();
    for (const s of [leaky, notHttp, gone] as (HttpServer | TcpServer)[]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const portOf = (s: HttpServer | TcpServer) => (s.address() as AddressInfo).port;
    const closedPort = portOf(gone);
    await new Promise((r) => gone.close(r));

    // The operator allows this machine's servers on purpose: the reflection path is then reachable.
    const server = await launch({ LONGCTX_ACCESS_SECRET: SECRET, ALLOW_CLIENT_BASE_URLS: 'loopback' }, 'npm');
    try {
      const probe = async (port: number) => {
        const res = await fetch(`${server.outside}/api/models`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
          body: JSON.stringify({ provider: 'compat', instance: 'x1', label: 'Probe', baseUrl: `http://127.0.0.1:${port}/v1` }),
        });
        const text = await res.text();
        expect(text).not.toContain('hunter2');
        return (JSON.parse(text) as { provider: { error: string } }).provider.error;
      };
      expect(await probe(portOf(leaky))).toBe('The server at this address did not answer like an OpenAI-compatible API (HTTP 500). Check the base URL.');
      const closedError = await probe(closedPort);
      expect(closedError).toBe('Could not reach Probe at this address.');
      expect(await probe(portOf(notHttp))).toBe(closedError);
    } finally {
      for (const s of [leaky, notHttp] as (HttpServer | TcpServer)[]) await new Promise((r) => s.close(r));
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(await answers(server.local)).toBe(false);
    await expect.poll(() => survivors(server.mark), { timeout: 10_000 }).toEqual([]);
  });
});
