import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { importText } from '@/lib/formats';
import { searchableText } from '@/lib/search/documents';
import { expect, openApp, setCompactionDefaults, test } from './support/fixtures';

// Every other spec runs with the service worker blocked (playwright.config.ts): here it is the subject.
test.use({ serviceWorkers: 'allow' });

const SWE = 'fixtures/real/SWE-agent_SWE-agent_pydicom__pydicom-1458.traj';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Waits until the service worker is active and controls the page (it claims open pages once installed). */
async function controlledBy(page: Page): Promise<string> {
  return page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    return navigator.serviceWorker.controller!.scriptURL;
  });
}

test.describe('installable', () => {
  test('the web app manifest is valid and linked, its icons are real PNGs of their sizes, and Chromium finds the app installable', async ({ playwright, request, baseURL }, info) => {
    // A profile on disk: Chromium never offers to install from an incognito context, which is what test contexts are.
    const profile = mkdtempSync(join(tmpdir(), 'longctx-pwa-'));
    const context = await playwright.chromium.launchPersistentContext(profile, { ...info.project.use.launchOptions, baseURL });
    const page = context.pages()[0] ?? (await context.newPage());
    await openApp(page);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    const res = await request.get(href!);
    expect(res.headers()['content-type']).toContain('application/manifest+json');
    const manifest = (await res.json()) as { name: string; short_name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string; purpose?: string }[] };
    expect(manifest).toMatchObject({ short_name: 'Longctx', start_url: '/', display: 'standalone' });
    const pngs = manifest.icons.filter((i) => i.type === 'image/png');
    expect(pngs.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
    for (const icon of pngs) {
      const [w, h] = icon.sizes.split('x').map(Number);
      expect(pngSize(await (await request.get(icon.src)).body()), icon.src).toEqual({ width: w, height: h });
    }

    // Chromium's own checks: the manifest parses without errors and nothing stands in the way of installing.
    const cdp = await page.context().newCDPSession(page);
    const parsed = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[] };
    expect(parsed.url).toMatch(/\/manifest\.webmanifest$/);
    expect(parsed.errors).toEqual([]);
    await controlledBy(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] };
    expect(installabilityErrors).toEqual([]);
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });

  test('the service worker registers, controls the page, and is served with a policy of its own', async ({ page, request }) => {
    await openApp(page);
    expect(new URL(await controlledBy(page)).pathname).toBe('/serwist/sw.js');
    const sw = await request.get('/serwist/sw.js');
    expect(sw.headers()['content-type']).toContain('javascript');
    expect(sw.headers()['content-security-policy']).toBe("default-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'");
    expect(sw.headers()['cache-control']).toBe('no-cache');
  });
});

test.describe('offline', () => {
  // What the browser logs for the requests that cannot go out (the model list).
  test.use({ allowConsoleErrors: [/net::ERR_INTERNET_DISCONNECTED|^Failed to load resource/] });

  test('after a first visit, with no network: the app loads, opens a session, searches, exports and compacts with the extractive summarizer', async ({ page, context }) => {
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} blocked ${e.blockedURI}`));
    });
    // A word only one message of the session has, for the search.
    const [session] = importText(readFileSync(SWE, 'utf8'), { fileName: SWE.split('/').pop()! }).sessions;
    const counts = new Map<string, number>();
    for (const e of session!.entries) for (const w of new Set(searchableText(e).toLowerCase().match(/\p{L}{9,}/gu) ?? [])) counts.set(w, (counts.get(w) ?? 0) + 1);
    const word = [...counts].find(([w, n]) => n === 1 && !session!.meta.title.toLowerCase().includes(w))![0];

    // The first visit, online: a session arrives, the service worker installs.
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 500, enabled: false });
    await page.getByLabel('Import file').setInputFiles(SWE);
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    await controlledBy(page);

    await context.setOffline(true);
    // Really offline, for the page and for the service worker it goes through.
    expect(await page.evaluate(() => fetch('/api/models').then(() => 'answered', () => 'failed'))).toBe('failed');

    const response = await page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    // The stored page came with its own policy, whose nonce its scripts carry.
    const csp = response!.headers()['content-security-policy'] ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    const scriptNonces = await page.locator('script[nonce]').evaluateAll((els) => els.map((s) => (s as HTMLScriptElement).nonce));
    expect(new Set(scriptNonces)).toEqual(new Set([nonce]));

    // Read: the session opens with its messages.
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
    const list = page.getByRole('navigation', { name: 'Sessions' });
    await list.getByRole('button', { name: new RegExp(`^${session!.meta.title.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }).click();
    await expect(page.getByRole('article').first()).toBeVisible();
    await expect(page.getByRole('meter', { name: 'Context' })).toHaveAttribute('aria-valuenow', /\d+/);

    // Search: the index is built offline in its worker, and the result opens the message.
    await page.keyboard.press('Control+KeyK');
    const search = page.getByRole('dialog', { name: 'Search' });
    await search.getByRole('combobox', { name: 'Search messages' }).fill(word);
    await expect(search.getByRole('option').first().locator('mark')).toHaveText(new RegExp(word, 'i'));
    await search.getByRole('combobox', { name: 'Search messages' }).press('Enter');
    await expect(page.getByRole('article').filter({ hasText: new RegExp(word, 'i') })).toBeInViewport();

    // Export: rendered by the formats worker, saved as a file.
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const exportDialog = page.getByRole('dialog', { name: 'Export session' });
    const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Markdown', exact: true }).click()]);
    const saved = readFileSync((await download.path())!, 'utf8');
    expect(saved).toContain(session!.meta.title);

    // Compact: no model can be reached, so the extractive summarizer writes the summary.
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const compact = page.getByRole('dialog', { name: 'Compact context' });
    await expect(compact.getByText('built-in extractive summarizer (no model connected)')).toBeVisible();
    await compact.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(compact).toBeHidden({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Timeline', exact: true }).click();
    await expect(page.getByRole('complementary', { name: 'Timeline panel' }).getByRole('article', { name: /compaction card/i }).last()).toContainText('extractive, no model');

    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    await context.setOffline(false);
  });
});
