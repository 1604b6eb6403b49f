import type { Page } from '@playwright/test';
import { expect, openApp, test } from './support/fixtures';
import { mainThreadSettled, nextFrame } from './support/settle';

/**
 * The session list at the size people who keep every agent session reach:
 * 20,000 sessions (40 projects of 500, one of 3,000), stored straight into
 * IndexedDB as the app stores session rows. Measures, in the page: the list
 * after a reload, opening the 3,000-session project, a title search, and long
 * tasks while scrolling; each with a budget a user would notice, loose enough
 * for a shared 2-core machine. The figures are printed for docs/benchmarks.md.
 */

test.use({ trace: 'off', screenshot: 'off' });

const TOTAL = 20_000;
const BIG = 3_000;

async function seed(page: Page) {
  await page.evaluate(
    async ({ total, big }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('longctx');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const now = Date.now();
      const rows: Record<string, unknown>[] = [];
      for (let i = 0; i < total; i++) {
        const title = `Scale session ${i}`;
        const cwd = i < big ? '/home/dev/big-project' : `/home/dev/project-${i % 40}`;
        rows.push({
          id: `scale-${i}`,
          title,
          titleLower: title.toLowerCase(),
          createdAt: now - i * 60_000,
          updatedAt: now - i * 60_000,
          leafId: null,
          cwd,
          source: { format: 'claude-code', originalId: `scale-${i}` },
          ...(i % 9 === 0 ? { tags: ['review'] } : {}),
          ...(i % 1000 === 0 ? { pinned: true } : {}),
          ...(i % 13 === 0 ? { archived: true } : {}),
          entryCount: 10 + (i % 300),
          rev: 1,
        });
      }
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('sessions', 'readwrite');
        const store = tx.objectStore('sessions');
        for (const r of rows) store.put(r);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    { total: TOTAL, big: BIG },
  );
}

/** Milliseconds from choosing these filter values (label → value, in the page) until the count line reads `text` and a frame has been drawn. */
async function timeUntilCount(page: Page, choose: [label: string, value: string][], text: string): Promise<number> {
  return page.evaluate(
    async ({ choose, text }) => {
      const t0 = performance.now();
      for (const [label, value] of choose) {
        const s = document.querySelector<HTMLSelectElement>(`select[aria-label="${label}"]`)!;
        s.value = value;
        s.dispatchEvent(new Event('change', { bubbles: true }));
      }
      await new Promise<void>((resolve) => {
        const check = () => (document.querySelector('.session-count')?.textContent === text ? resolve() : requestAnimationFrame(check));
        check();
      });
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t0;
    },
    { choose, text },
  );
}

test('20,000 sessions: the list after a reload, a 3,000-session project, a search and scrolling stay fast', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await seed(page);
  await page.reload();
  const shownAt = await page.evaluate(async () => {
    await new Promise<void>((resolve) => {
      const check = () => (/^[\d,]+ sessions$/.test(document.querySelector('.session-count')?.textContent ?? '') ? resolve() : requestAnimationFrame(check));
      check();
    });
    return performance.now();
  });
  const listed = TOTAL - Math.ceil(TOTAL / 13);
  await expect(page.locator('.session-count')).toHaveText(`${listed.toLocaleString('en-US')} sessions`);
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('heading', { name: 'Pinned' })).toBeVisible();
  await mainThreadSettled(page, 500);

  const bigListed = BIG - Math.ceil(BIG / 13);
  const openProject = await timeUntilCount(page, [['Project', '/home/dev/big-project']], `${bigListed.toLocaleString('en-US')} sessions`);
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^Scale session 1\b/ })).toBeVisible();
  await mainThreadSettled(page, 300);
  const byTag = await timeUntilCount(page, [['Tag', 'review']], `${[...Array(BIG).keys()].filter((i) => i % 9 === 0 && i % 13 !== 0).length.toLocaleString('en-US')} sessions`);
  await mainThreadSettled(page, 300);
  const back = await timeUntilCount(page, [['Tag', ''], ['Project', '']], `${listed.toLocaleString('en-US')} sessions`);
  await mainThreadSettled(page, 300);

  // A title search over all 20,000 (archived ones included): typed, then the count of matches.
  const search = page.getByRole('searchbox', { name: 'Search sessions' });
  await search.click();
  const t0 = Date.now();
  // The last title: "session 1999" would also find 19990–19999.
  await page.keyboard.type('session 19999', { delay: 30 });
  await expect(page.locator('.session-count')).toHaveText('1 match');
  const typed = Date.now() - t0;
  await search.fill('');
  await mainThreadSettled(page, 300);

  // Scrolling the whole list: long tasks only.
  await page.evaluate(() => {
    const w = window as unknown as { __long: number[] };
    w.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__long.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: false });
  });
  const nav = await page.getByRole('navigation', { name: 'Sessions' }).boundingBox();
  await page.mouse.move(nav!.x + nav!.width / 2, nav!.y + nav!.height / 2);
  for (let i = 0; i < 60; i++) {
    await page.mouse.wheel(0, 2_000);
    await nextFrame(page);
  }
  await mainThreadSettled(page, 300);
  const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);

  console.log(
    `20,000 sessions: list shown ${Math.round(shownAt)} ms after navigation; 3,000-session project opened in ${Math.round(openProject)} ms; tag filter ${Math.round(byTag)} ms; back to all ${Math.round(back)} ms; typing a 12-character search and its result ${typed} ms; long tasks while scrolling: ${JSON.stringify(long)}`,
  );
  expect(openProject).toBeLessThan(500);
  expect(byTag).toBeLessThan(500);
  expect(back).toBeLessThan(800);
  expect(shownAt).toBeLessThan(8_000);
  expect(Math.max(0, ...long)).toBeLessThan(150);
});
