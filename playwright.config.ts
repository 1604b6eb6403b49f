import { defineConfig, devices } from '@playwright/test';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

/**
 * E2E runs the production build against the scripted OpenAI-compatible server
 * (e2e/mock-llm), both started here. The browser is Playwright's own Chromium
 * where it is installed, else Debian's (/usr/bin/chromium), or CHROMIUM_PATH.
 */
const APP_PORT = Number(process.env.E2E_APP_PORT ?? 3100);
const MOCK_PORT = Number(process.env.E2E_MOCK_PORT ?? 4010);

function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    if (existsSync(chromium.executablePath())) return undefined; // Playwright's own browser
  } catch {
    /* not installed */
  }
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) if (existsSync(p)) return p;
  return undefined;
}

export const MOCK_URL = `http://127.0.0.1:${MOCK_PORT}`;

export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  testIgnore: '**/scratch/**',
  fullyParallel: false,
  // One worker: the scripted model is shared state (each test scripts it, then resets it).
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // A stray .only would skip every other spec; a test that passes only on retry is a failure, not a pass.
  forbidOnly: true,
  failOnFlakyTests: true,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${APP_PORT}`,
    trace: 'retain-on-failure',
    // Installing the service worker precaches the whole app (about 7 MB) in every fresh context: a quarter
    // of a test's time for nothing it checks. The specs about offline use and installing allow it.
    serviceWorkers: 'block',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  // Every spec on a desktop browser; on a phone (390×844, touch) the main flows and the accessibility audit,
  // not everything twice (CI time on 2 cores). Compaction under the user's control (review before apply, the
  // kept/lost list) and small-window scaling are main flows on a phone too: a small local model is what phones
  // and laptops reach, and the cards sit where the phone layout is tightest.
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'] }, testIgnore: '**/mobile.spec.ts' },
    {
      name: 'mobile',
      use: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, userAgent: devices['Pixel 7'].userAgent },
      testMatch: ['**/mobile.spec.ts', '**/a11y.spec.ts', '**/compaction-review.spec.ts', '**/small-window.spec.ts'],
    },
  ],
  webServer: [
    {
      // exec: Playwright runs the command through a shell; without exec the server's parent would be that shell,
      // which outlives a test runner killed outright, and the server's stop-with-parent check would never fire.
      command: `exec node node_modules/.bin/tsx e2e/mock-llm/cli.ts --port ${MOCK_PORT}`,
      url: `${MOCK_URL}/__control/health`,
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
    },
    {
      command: `exec node scripts/e2e-app.mjs`,
      url: `http://127.0.0.1:${APP_PORT}/api/models`,
      reuseExistingServer: !process.env.CI,
      timeout: 180_000,
      env: {
        PORT: String(APP_PORT),
        NEXT_TELEMETRY_DISABLED: '1',
        OPENAI_COMPATIBLE_BASE_URL: `${MOCK_URL}/v1`,
        OPENAI_COMPATIBLE_NAME: 'Scripted test model',
        OLLAMA_BASE_URL: 'off',
        DEFAULT_MODEL: 'compat:mock-large',
        // Every sync test creates and joins spaces from this one address, and the embedded database (with
        // its rate-limit buckets) outlives a run: the per-address allowances of a real server would run
        // out after a run or two. e2e/sync-limits.spec.ts tests the limits on servers of its own.
        SYNC_RATE_CREATE: '1000/h',
        SYNC_RATE_CREATE_TOTAL: '1000/h',
        SYNC_RATE_JOIN: '1000/h',
      },
    },
  ],
});
