import { MOCK_URL, chatTurn, expect, mock, newSession, openApp, test } from './support/fixtures';

/** A chat request body as the app sends it, with one user message. */
const chatBody = (text: string) => ({ model: 'compat:mock-large', context: [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text }] } }] });

const lastUserText = (body: unknown) => {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
  const content = messages.at(-1)?.content;
  return typeof content === 'string' ? content : (content as { text: string }[]).map((p) => p.text).join('');
};

test.describe('another site', () => {
  // The blank page has no icon (404), and the browser logs the refusal it received (403).
  test.use({ allowConsoleErrors: [/^Failed to load resource: the server responded with a status of 40[34] /] });

  test('a page on another site cannot make the app call the model', async ({ page, request, baseURL }) => {
    // The mock's blank page under the name localhost: another site than the app on 127.0.0.1,
    // and both on loopback, so the browser's own private-network rules stay out of the way.
    await page.goto(`http://localhost:${new URL(MOCK_URL).port}/__control/page`);
    await expect(page.getByRole('heading', { name: 'Another site' })).toBeVisible();
    const answered = await page.evaluate(
      async ({ url, body }) => (await fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body })).type,
      { url: `${baseURL}/api/chat`, body: JSON.stringify(chatBody('sent from another site')) },
    );
    // The browser sent it and got an (unreadable) answer: only the server can have said no.
    expect(answered).toBe('opaque');

    // The app's own kind of request, sent after it, reaches the model...
    const own = await request.post('/api/chat', { data: chatBody('sent by the app') });
    expect(own.status()).toBe(200);
    await own.body();
    // ...and is the only one the model saw.
    expect((await mock.chatRequests()).map((r) => lastUserText(r.body))).toEqual(['sent by the app']);
  });
});

test.describe('content security policy', () => {
  test('prefetches of a page carry its Content-Security-Policy, with the nonce its scripts carry', async ({ request }) => {
    const asked: Record<string, string>[] = [{ purpose: 'prefetch', 'next-router-prefetch': '1' }, { 'sec-purpose': 'prefetch' }, {}];
    for (const headers of asked) {
      const res = await request.get('/', { headers });
      expect(res.status()).toBe(200);
      const csp = res.headers()['content-security-policy'] ?? '';
      expect(csp, JSON.stringify(headers)).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/]+=*' 'strict-dynamic'/);
      const nonce = /'nonce-([^']+)'/.exec(csp)![1];
      const html = await res.text();
      const scriptNonces = [...html.matchAll(/<script[^>]*\snonce="([^"]*)"/g)].map((m) => m[1]);
      expect(scriptNonces.length).toBeGreaterThan(0);
      expect(new Set(scriptNonces)).toEqual(new Set([nonce]));
    }
  });

  test('loading the app and chatting breaks no rule of its own CSP', async ({ page }) => {
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`));
    });
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'hello');
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });
});
