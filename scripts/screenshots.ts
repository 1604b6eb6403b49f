/**
 * `npm run screenshots`: PNGs of the main views into docs/screenshots/, at a
 * laptop size (1440×900) and a phone size (390×844, touch), each in the light
 * and the dark theme.
 *
 * The production build (rebuilt first when stale, scripts/lib.mjs) is served by
 * `next start` on a free loopback port, pointed at the scripted model
 * (e2e/mock-llm, started in this process). A browser then uses the app as a
 * person would, by role and name: a few sessions, a conversation with code,
 * math and a table (e2e/support/showcase.ts), a compaction, an edit that
 * branches, then the tree, the timeline, Settings and (on the phone) the
 * session drawer. The theme is the system one, switched with the emulated
 * colour scheme, so each view is taken twice from the same state.
 *
 * Options: --no-build (serve the existing .next), --only desktop|phone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, type Browser, type Page } from '@playwright/test';
import { freePort } from '../lib/testing/freePort';
import { startMockLlm, type MockLlm } from '../e2e/mock-llm/server';
import { SHOWCASE_EDITED, SHOWCASE_FOLLOW_UP, SHOWCASE_SUMMARY, SHOWCASE_TURNS } from '../e2e/support/showcase';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'docs', 'screenshots');
const args = process.argv.slice(2);
const BUILD = !args.includes('--no-build');
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

type Device = { name: 'desktop' | 'phone'; viewport: { width: number; height: number }; scale: number; mobile: boolean };
const DEVICES: Device[] = [
  { name: 'desktop', viewport: { width: 1440, height: 900 }, scale: 1, mobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, scale: 2, mobile: true },
];

// ------------------------------------------------------------------ servers

let app: ChildProcess | null = null;

/** Stops the app server this script started (its own process group, so next's helpers go too). */
function stopApp() {
  if (!app?.pid || app.exitCode !== null || app.signalCode !== null) return;
  try {
    process.kill(-app.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
}
process.on('exit', stopApp);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));

async function startApp(mockBaseUrl: string): Promise<string> {
  const port = await freePort();
  let log = '';
  app = spawn(process.execPath, [join(ROOT, 'node_modules', '.bin', 'next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      OPENAI_COMPATIBLE_BASE_URL: mockBaseUrl,
      OPENAI_COMPATIBLE_NAME: 'Local model',
      OLLAMA_BASE_URL: 'off',
      DEFAULT_MODEL: 'compat:mock-large',
    },
  });
  app.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  app.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error(`next start exited (${app.exitCode}):\n${log}`);
    try {
      if ((await fetch(`${url}/api/models`)).ok) return url;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`next start did not answer within 60 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    if (existsSync(chromium.executablePath())) return undefined;
  } catch {
    /* Playwright's own browser is not installed */
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync);
}

// ------------------------------------------------------------------ the walk through the app

class Walk {
  constructor(
    private page: Page,
    private device: Device,
    private mock: MockLlm,
  ) {}

  get phone() {
    return this.device.name === 'phone';
  }

  /** The view in both themes, from the same state. */
  async shot(view: string) {
    // Toasts come and go with timing, and a tooltip follows the pointer: neither belongs in a reference picture.
    for (const close of await this.page.getByRole('button', { name: 'Close toast' }).all()) await close.click().catch(() => {});
    await expect(this.page.locator('[data-sonner-toast]')).toHaveCount(0);
    await this.page.mouse.move(this.device.viewport.width - 2, this.device.viewport.height / 2);
    for (const theme of ['light', 'dark'] as const) {
      await this.page.emulateMedia({ colorScheme: theme });
      await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const path = join(OUT, `${this.device.name}-${view}-${theme}.png`);
      await this.page.screenshot({ path, animations: 'disabled', caret: 'hide' });
      console.log(`  ${path.slice(ROOT.length)}`);
    }
  }

  async openDrawer() {
    if (this.phone) await this.page.getByRole('button', { name: 'Sessions', exact: true }).click();
  }

  async closeDrawer() {
    if (this.phone) await this.page.getByRole('button', { name: 'Close sessions' }).click();
  }

  async idle() {
    await expect(this.page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 20_000 });
    await expect(this.page.getByRole('article', { name: 'Assistant message' }).last()).not.toHaveAttribute('aria-busy', 'true');
  }

  async turn(prompt: string, reply: string) {
    this.mock.script([{ for: 'chat', reply }]);
    await this.page.getByRole('textbox', { name: 'Message' }).fill(prompt);
    await this.page.getByRole('button', { name: 'Send', exact: true }).click();
    const opening = reply.split('\n')[0]!.replace(/[*`$]/g, '').slice(0, 12);
    await expect(this.page.getByRole('article', { name: 'Assistant message' }).last()).toContainText(opening);
    await this.idle();
  }

  async newSession() {
    await this.openDrawer();
    await this.page.getByRole('button', { name: 'New session', exact: true }).click();
    await expect(this.page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  }

  async run() {
    const { page } = this;
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Start a conversation' })).toBeVisible();
    await this.shot('welcome');

    // Small "keep recent" so a short conversation can be compacted.
    await this.openDrawer();
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('group', { name: 'Compaction defaults' }).getByRole('spinbutton', { name: /Keep recent tokens/ }).fill('200');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings).toBeHidden();
    await this.closeDrawer();

    // A few other sessions, so the list looks like one in use.
    for (const [prompt, reply] of [
      ['Plan three days in Lisbon in May, mostly on foot', 'Day one: Alfama and the castle in the morning, Baixa after lunch, sunset at Miradouro da Senhora do Monte.'],
      ['What is the difference between TCP and QUIC?', 'QUIC runs over UDP and builds reliability, congestion control and TLS 1.3 into one handshake.'],
    ] as const) {
      await this.newSession();
      await this.turn(prompt, reply);
    }

    await this.newSession();
    for (const t of SHOWCASE_TURNS) await this.turn(t.prompt, t.reply);
    await expect(page.locator('.katex').first()).toBeVisible();
    await expect(page.locator('.hljs-keyword').first()).toBeAttached();
    await this.shot('chat');

    // Compact: the preview, then the summary.
    this.mock.script([
      { for: 'summarizer', reply: SHOWCASE_SUMMARY },
      { for: 'summarizer', reply: SHOWCASE_SUMMARY },
    ]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await expect(dialog.getByRole('definition').first()).toBeVisible();
    await this.shot('compact');
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog).toBeHidden({ timeout: 20_000 });

    // One more turn, then an edit of it: a branch in the tree.
    await this.turn(SHOWCASE_FOLLOW_UP.prompt, SHOWCASE_FOLLOW_UP.reply);
    this.mock.script([{ for: 'chat', reply: SHOWCASE_EDITED.reply }]);
    await page.getByRole('article', { name: 'User message' }).last().getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Edit message' }).fill(SHOWCASE_EDITED.prompt);
    await page.getByRole('button', { name: 'Save and send' }).click();
    await expect(page.getByRole('article', { name: 'Assistant message' }).last()).toContainText('For AVIF');
    await this.idle();

    for (const panel of ['Tree', 'Timeline'] as const) {
      await page.getByRole('button', { name: panel, exact: true }).click();
      const region = page.getByRole('complementary', { name: `${panel} panel` });
      await expect(region).toBeVisible();
      if (panel === 'Tree') await expect(region.getByRole('treeitem').first()).toBeVisible();
      else await expect(region.getByRole('article').first()).toBeVisible();
      await this.shot(panel.toLowerCase());
      await region.getByRole('button', { name: 'Close panel' }).click();
    }

    await this.openDrawer();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(settings).toBeVisible();
    await this.shot('settings');
    await settings.getByRole('button', { name: 'Cancel' }).click();
    if (this.phone) await this.shot('sessions');
  }
}

// ------------------------------------------------------------------ main

async function main() {
  if (BUILD) {
    const lib = (await import(new URL('./lib.mjs', import.meta.url).href)) as { buildIfStale: () => Promise<number> };
    const code = await lib.buildIfStale();
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  }
  mkdirSync(OUT, { recursive: true });
  const mock = await startMockLlm({ port: 0, chunkDelayMs: 2 });
  let browser: Browser | null = null;
  try {
    const url = await startApp(mock.baseUrl);
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    for (const device of DEVICES) {
      if (ONLY && ONLY !== device.name) continue;
      console.log(`${device.name} (${device.viewport.width}×${device.viewport.height})`);
      const context = await browser.newContext({ baseURL: url, viewport: device.viewport, deviceScaleFactor: device.scale, isMobile: device.mobile, hasTouch: device.mobile });
      mock.reset();
      await new Walk(await context.newPage(), device, mock).run();
      await context.close();
    }
  } finally {
    await browser?.close();
    await mock.close();
    stopApp();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
