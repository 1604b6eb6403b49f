import type { Page } from '@playwright/test';
import { assistantMessages, chatTurn, expect, mock, newSession, openApp, sendMessage, setCompactionDefaults, test, userMessages } from './support/fixtures';

const sessionUrl = (page: Page) => page.url();

test.describe('durability', () => {
  test('two tabs on one session see each other live, and concurrent sends become siblings', async ({ page, context }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'hello from tab A');
    const other = await context.newPage();
    await other.goto(sessionUrl(page));
    await expect(userMessages(other)).toHaveText([/hello from tab A/]);

    // A sends, B sees it without reloading.
    await chatTurn(page, 'second message from A');
    await expect(userMessages(other).last()).toContainText('second message from A');
    await expect(assistantMessages(other).last()).toContainText('Echo: second message from A');

    // Both send at once from the same leaf: two siblings, both kept.
    await mock.script([
      { for: 'chat', match: 'race A', chunks: ['reply ', 'to A'], chunkDelayMs: 150 },
      { for: 'chat', match: 'race B', chunks: ['reply ', 'to B'], chunkDelayMs: 150 },
    ]);
    // Typed first, then Enter in both at the same moment: clicks wait for actionability one page after the
    // other, long enough for A's message to reach B first, and a send follows the leaf its tab showed.
    await page.getByRole('textbox', { name: 'Message' }).fill('race A');
    await other.getByRole('textbox', { name: 'Message' }).fill('race B');
    await Promise.all([page.keyboard.press('Enter'), other.keyboard.press('Enter')]);
    await expect(assistantMessages(page).last()).toContainText('reply to A');
    await expect(assistantMessages(other).last()).toContainText('reply to B');
    // Each tab stays on its own branch; the prompt shows it has a sibling.
    await expect(userMessages(page).last().getByText('1/2').or(userMessages(page).last().getByText('2/2'))).toBeVisible();
    await page.reload();
    await page.getByRole('button', { name: 'Tree' }).click();
    const tree = page.getByRole('tree', { name: 'Session tree' });
    await expect(tree.getByRole('treeitem').filter({ hasText: 'race A' })).toHaveCount(1);
    await expect(tree.getByRole('treeitem').filter({ hasText: 'race B' })).toHaveCount(1);
    await expect(page.getByRole('navigation', { name: 'Sessions' }).getByText(/^8 entries/)).toBeVisible();
    await other.close();
  });

  test('closing the tab mid-reply keeps what arrived, marked interrupted', async ({ page, context }) => {
    await openApp(page);
    await newSession(page);
    const url = sessionUrl(page);
    // 30 s of reply: opening the second tab below can take seconds on a busy machine, and the tab must close mid-reply.
    await mock.script([{ for: 'chat', chunks: Array.from({ length: 200 }, (_, i) => `w${i} `), chunkDelayMs: 150 }]);
    await sendMessage(page, 'a long answer please');
    await expect(assistantMessages(page).last()).toContainText('w12');
    // What a tab closed now keeps is what was stored: another tab shows only stored entries, so once it shows
    // part of the reply at least one throttled write of the streamed text happened.
    const watcher = await context.newPage();
    await watcher.goto(url);
    await expect(assistantMessages(watcher).last()).toContainText('w5');
    await watcher.close();
    await page.close();

    const again = await context.newPage();
    await again.goto(url);
    const reply = assistantMessages(again).last();
    await expect(reply).toContainText('w5');
    await expect(reply).toContainText('Interrupted', { timeout: 15_000 });
    await expect(reply).not.toContainText('w199');
    await again.reload();
    await expect(assistantMessages(again).last()).toContainText('Interrupted');
  });

  test('closing the tab mid-summary leaves no compaction behind', async ({ page, context }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 100, enabled: false });
    await newSession(page);
    const url = sessionUrl(page);
    await chatTurn(page, `first ${'filler words for the summary '.repeat(60)}`);
    await chatTurn(page, `second ${'more filler for the summary '.repeat(60)}`);
    await mock.script([{ for: 'summarizer', chunks: Array.from({ length: 60 }, (_, i) => `s${i} `), chunkDelayMs: 150 }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    await page.getByRole('dialog', { name: 'Compact context' }).getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(page.getByRole('region', { name: 'Summary in progress' })).toContainText('s3');
    await page.close();

    const again = await context.newPage();
    await again.goto(url);
    await expect(userMessages(again)).toHaveCount(2);
    await expect(again.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
    await again.getByRole('button', { name: 'Timeline' }).click();
    await expect(again.getByRole('list', { name: 'Timeline' }).getByRole('article')).toHaveCount(0);
  });

  test('a database written by schema v1 opens, migrates, and loses nothing', async ({ page }) => {
    // Same origin, no app code: write the v1 database by hand, as an old version of the app left it.
    await page.goto('/icon.svg');
    await page.evaluate(async () => {
      await new Promise<void>((resolve, reject) => {
        // Dexie stores version n as IndexedDB version n * 10.
        const req = indexedDB.open('longctx', 10);
        req.onupgradeneeded = () => {
          const db = req.result;
          db.createObjectStore('sessions', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
          const entries = db.createObjectStore('entries', { keyPath: 'seq', autoIncrement: true });
          entries.createIndex('[sessionId+id]', ['sessionId', 'id'], { unique: true });
          entries.createIndex('[sessionId+seq]', ['sessionId', 'seq']);
          db.createObjectStore('settings', { keyPath: 'key' });
        };
        req.onsuccess = () => {
          const db = req.result;
          const tx = db.transaction(['sessions', 'entries'], 'readwrite');
          tx.objectStore('sessions').put({ id: 'legacy', title: 'Written by schema v1', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000, leafId: 'b' });
          tx.objectStore('entries').put({ sessionId: 'legacy', id: 'a', parentId: null, timestamp: 1_700_000_000_000, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'a question from the old days' }] } });
          tx.objectStore('entries').put({ sessionId: 'legacy', id: 'b', parentId: 'a', timestamp: 1_700_000_001_000, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'an answer from the old days' }] } });
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
        req.onerror = () => reject(req.error);
      });
    });
    await openApp(page);
    const item = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');
    await expect(item).toHaveCount(1);
    await expect(item).toContainText('Written by schema v1');
    await expect(item).toContainText('2 entries');
    // Sessions from 2023 that were never exported: the app reminds to back them up.
    await expect(page.getByText('Your sessions have never been backed up.')).toBeVisible();
    await item.getByRole('button', { name: /^Written by schema v1 \d/ }).click();
    await expect(userMessages(page)).toHaveText([/a question from the old days/]);
    await expect(assistantMessages(page)).toHaveText([/an answer from the old days/]);
    await chatTurn(page, 'still works after the upgrade');
    await page.reload();
    await expect(userMessages(page)).toHaveCount(2);
  });

  test('a database an imported "seq" left unable to save (schema v2) recovers on load: entries kept in order, and sending works', async ({ page }) => {
    // The state the v2 app left after importing a crafted file whose last entry carried "seq": 1e300:
    // v2 stored the file's seq as the key, which exhausted the entries' key generator. Written by hand, as in the v1 test.
    await page.goto('/icon.svg');
    await page.evaluate(async () => {
      await new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('longctx', 20);
        req.onupgradeneeded = () => {
          const db = req.result;
          const sessions = db.createObjectStore('sessions', { keyPath: 'id' });
          for (const index of ['updatedAt', 'titleLower', 'source.hash']) sessions.createIndex(index, index);
          const entries = db.createObjectStore('entries', { keyPath: 'seq', autoIncrement: true });
          entries.createIndex('[sessionId+id]', ['sessionId', 'id'], { unique: true });
          entries.createIndex('[sessionId+seq]', ['sessionId', 'seq']);
          entries.createIndex('[sessionId+rev]', ['sessionId', 'rev']);
          db.createObjectStore('settings', { keyPath: 'key' });
          db.createObjectStore('calibration', { keyPath: 'model' });
          db.createObjectStore('meta', { keyPath: 'key' });
        };
        req.onsuccess = () => {
          const db = req.result;
          const tx = db.transaction(['sessions', 'entries', 'meta'], 'readwrite');
          const title = 'Imported with a seq';
          tx.objectStore('meta').put({ key: 'rev', value: 1 });
          tx.objectStore('sessions').put({ id: 'crafted', title, titleLower: title.toLowerCase(), createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000, leafId: 'a2', entryCount: 4, rev: 1 });
          const turns: [string, 'user' | 'assistant', string][] = [
            ['u1', 'user', 'the first question'],
            ['a1', 'assistant', 'the first answer'],
            ['u2', 'user', 'the second question'],
            ['a2', 'assistant', 'the second answer'],
          ];
          turns.forEach(([id, role, text], i) => {
            const entry = { sessionId: 'crafted', rev: 1, id, parentId: i ? turns[i - 1]![0] : null, timestamp: 1_700_000_000_000 + i, type: 'message', message: { role, content: [{ type: 'text', text }] } };
            tx.objectStore('entries').put(i === turns.length - 1 ? { ...entry, seq: 1e300 } : entry);
          });
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
        req.onerror = () => reject(req.error);
      });
    });
    // The seed is really stuck: a plain add fails as every send did.
    const stuck = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const req = indexedDB.open('longctx', 20);
          req.onsuccess = () => {
            const tx = req.result.transaction('entries', 'readwrite');
            const add = tx.objectStore('entries').add({ sessionId: 'crafted', id: 'probe', rev: 1 });
            add.onsuccess = () => resolve('added');
            add.onerror = (e) => {
              e.preventDefault();
              resolve(add.error?.name ?? 'error');
            };
            tx.oncomplete = tx.onabort = () => req.result.close();
          };
        }),
    );
    expect(stuck).toBe('ConstraintError');

    await openApp(page);
    const item = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');
    await expect(item).toContainText('4 entries');
    await item.getByRole('button', { name: /^Imported with a seq \d/ }).click();
    await expect(userMessages(page)).toHaveText([/the first question/, /the second question/]);
    await expect(assistantMessages(page)).toHaveText([/the first answer/, /the second answer/]);
    await chatTurn(page, 'sending works again');
    await page.reload();
    await expect(userMessages(page)).toHaveText([/the first question/, /the second question/, /sending works again/]);
    await expect(assistantMessages(page)).toHaveText([/the first answer/, /the second answer/, /Echo: sending works again/]);
  });

  test('without IndexedDB (private mode, disabled site data) the page explains, instead of going blank', async ({ page }) => {
    await page.addInitScript(() => {
      Object.defineProperty(window, 'indexedDB', { configurable: true, get: () => undefined });
    });
    await page.goto('/');
    const alert = page.getByRole('alert').filter({ hasText: 'Storage is not available' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText(/IndexedDB/);
  });

  test.describe('quota', () => {
    // The service worker's precache counts against the same quota and would take most of it before the first message.
    test.use({ serviceWorkers: 'block' });
    test('a quota error while writing shows a clear message and loses no earlier data', async ({ page, context, baseURL }) => {
      // Chromium applies an overridden quota to databases opened after the override, and checks it
      // reliably for large values (stored outside its LevelDB): set it first, then write a big import.
      const cdp = await context.newCDPSession(page);
      const origin = new URL(baseURL!).origin;
      await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 500_000 });
      await openApp(page);
      await newSession(page);
      await chatTurn(page, 'this must survive the quota error');
      // The Claude Code transcript holds a ~1 MB screenshot: more than the quota allows.
      await page.getByLabel('Import file').setInputFiles('fixtures/real/daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl');
      const alert = page.getByRole('alert').filter({ hasText: 'Could not import' });
      await expect(alert).toContainText(/storage is full/i);
      await expect(alert).toContainText('Nothing saved earlier was lost');
      await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(1);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      await page.reload();
      await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(1);
      await expect(userMessages(page)).toHaveText([/this must survive the quota error/]);
      await expect(assistantMessages(page)).toHaveText([/Echo: this must survive the quota error/]);
    });
  });
});

test.describe('security', () => {
  test('pages carry a nonce CSP and refuse framing; the app runs under it without violations', async ({ page }) => {
    const res = await page.goto('/');
    const csp = res!.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res!.headers()['x-frame-options']).toBe('DENY');
    // The page works under it: a chat round trip (the console-error check runs after every test).
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
    await newSession(page);
    await chatTurn(page, 'hello under a strict policy');
    // Two loads get two different nonces.
    const second = await page.request.get('/');
    expect(second.headers()['content-security-policy']).not.toBe(csp);
  });

  test('the models API exposes no secrets and bad route input gets a 400 with a message', async ({ request }) => {
    const models = await request.get('/api/models');
    expect(models.ok()).toBe(true);
    const text = await models.text();
    expect(text).not.toMatch(/apiKey|api_key|sk-[A-Za-z0-9]/);
    const bad = await request.post('/api/chat', { data: { model: 'compat:mock-large', context: 'not a list' } });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).message).toMatch(/context/);
    const ssrf = await request.post('/api/chat', {
      data: { model: 'compat:mock-large', context: [{ kind: 'message', entryId: 'a', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }], client: { baseUrl: 'http://169.254.169.254/latest' } },
    });
    expect(ssrf.status()).toBe(400);
  });
});
