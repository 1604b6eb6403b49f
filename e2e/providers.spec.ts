import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { startMockLlm, type MockLlm } from './mock-llm/server';
import { freePort } from '../lib/testing/freePort';
import { startAppServer, type AppServer } from './support/appServer';
import { MOCK_URL, assistantMessages, chatTurn, contextTokens, expect, mock, newSession, openApp, sendMessage, test, waitIdle } from './support/fixtures';

/** Settings → Providers, as the user reaches it: the Settings button, then Providers. */
async function openProviders(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Providers' }).click();
  const dialog = page.getByRole('dialog', { name: 'Providers' });
  await expect(dialog).toBeVisible();
  return dialog;
}

async function addProvider(page: Page, values: { kind: string; name?: string; baseUrl?: string; apiKey?: string }) {
  const form = page.getByRole('dialog', { name: 'Providers' }).getByRole('form', { name: 'Add a provider' });
  await form.getByRole('combobox', { name: 'Kind' }).selectOption({ label: values.kind });
  if (values.name) await form.getByRole('textbox', { name: /^Name/ }).fill(values.name);
  if (values.baseUrl) await form.getByRole('textbox', { name: /^Base URL/ }).fill(values.baseUrl);
  if (values.apiKey) await form.getByLabel(/^API key/).fill(values.apiKey);
  await form.getByRole('button', { name: 'Add provider' }).click();
}

const providerGroup = (page: Page, name: string) => page.getByRole('dialog', { name: 'Providers' }).getByRole('group', { name, exact: true });

test.describe('a new user, on a server with no provider configured', () => {
  let app: AppServer;
  test.beforeAll(async () => {
    app = await startAppServer({ OLLAMA_BASE_URL: 'off' });
  });
  test.afterAll(async () => {
    await app?.stop();
  });

  test('adds an OpenAI-compatible server in Settings → Providers; its models appear in the picker without a reload, and it chats', async ({ page }) => {
    await page.goto(`${app.url}/`);
    await expect(page.getByRole('button', { name: 'New session', exact: true })).toBeVisible();
    await expect(page.getByRole('status', { name: 'No model connected' })).toBeVisible();
    await newSession(page);
    await expect(page.getByRole('combobox', { name: 'Model' })).toBeDisabled();
    // Marks this document: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

    const dialog = await openProviders(page);
    // Nothing is set up on this server, said as such (not as "unreachable").
    await expect(dialog.getByText('Not configured on this server: OpenAI, Anthropic, Google Gemini, OpenAI-compatible, Ollama.')).toBeVisible();
    await addProvider(page, { kind: 'OpenAI-compatible', name: 'Local mock', baseUrl: `${MOCK_URL}/v1` });
    await expect(providerGroup(page, 'Local mock')).toContainText('Connected (3 models)');
    await expect(providerGroup(page, 'Local mock')).toContainText('Entered in this browser');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect(picker).toBeEnabled();
    await expect(picker.getByRole('option')).toHaveText(['mock-large · 128k', 'mock-small · 8.2k', 'mock-summarizer · 4.1k']);
    await expect(page.getByRole('status', { name: 'No model connected' })).toHaveCount(0);

    await mock.script([{ for: 'chat', reply: 'Hello from your own server.' }]);
    await sendMessage(page, 'Are you there?');
    await expect(assistantMessages(page).last()).toContainText('Hello from your own server.');
    await waitIdle(page);
    const [req] = await mock.chatRequests();
    // The model name goes to the server as the provider listed it, not with the app's instance prefix.
    expect((req!.body as { model: string }).model).toBe('mock-large');
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

    // Kept in this browser: still there after a reload.
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue(/^compat@[a-z0-9]+:mock-large$/);
  });
});

test.describe('provider states', () => {
  let guarded: MockLlm;
  test.beforeAll(async () => {
    guarded = await startMockLlm({ port: 0, apiKey: 'sk-e2e-right-key-123456' });
  });
  test.afterAll(async () => {
    await guarded?.close();
  });

  test('a wrong key shows "Key rejected"; removed and added again with the right key, it connects', async ({ page }) => {
    await openApp(page);
    await openProviders(page);
    // The server's own provider is listed too, with its state.
    await expect(providerGroup(page, 'Scripted test model')).toContainText('Connected (3 models)');
    await addProvider(page, { kind: 'OpenAI-compatible', name: 'Keyed', baseUrl: guarded.baseUrl, apiKey: 'sk-e2e-wrong-key-000000' });
    const group = providerGroup(page, 'Keyed');
    await expect(group).toContainText('Key rejected: Keyed rejected the API key (HTTP 401)');
    await expect(page.getByText('sk-e2e-wrong-key-000000')).toHaveCount(0);
    await group.getByRole('button', { name: 'Remove' }).click();
    await expect(group).toHaveCount(0);
    await addProvider(page, { kind: 'OpenAI-compatible', name: 'Keyed', baseUrl: guarded.baseUrl, apiKey: 'sk-e2e-right-key-123456' });
    await expect(providerGroup(page, 'Keyed')).toContainText('Connected (3 models)');
  });

  test('an address nobody answers at shows "Unreachable" with the error; a host the server may not call says which setting allows it', async ({ page }) => {
    const port = await freePort();
    await openApp(page);
    await openProviders(page);
    await addProvider(page, { kind: 'Ollama', name: 'Gone', baseUrl: `http://127.0.0.1:${port}` });
    await expect(providerGroup(page, 'Gone')).toContainText('Unreachable: Could not reach Gone at this address.');
    await addProvider(page, { kind: 'OpenAI-compatible', name: 'LAN box', baseUrl: 'http://192.168.1.50:8000/v1' });
    await expect(providerGroup(page, 'LAN box')).toContainText(/Not allowed: .*only loopback hosts.*ALLOW_CLIENT_BASE_URLS/);
    // A form that cannot work says so and keeps what was typed.
    await addProvider(page, { kind: 'Anthropic', name: 'No key' });
    const form = page.getByRole('form', { name: 'Add a provider' });
    await expect(form.getByRole('alert')).toHaveText('Anthropic needs an API key.');
    await expect(form.getByRole('textbox', { name: /^Name/ })).toHaveValue('No key');
  });
});

test.describe('session settings', () => {
  test('instructions, temperature and reply length reach the request, count in the meter, and survive export and import', async ({ page, browser }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'first words');
    const before = await contextTokens(page);

    const instructions = `Answer like a ship's captain. ${'Keep every answer short and plain, and never use jargon. '.repeat(12)}`.trim();
    await page.getByRole('button', { name: 'Session options' }).click();
    const dialog = page.getByRole('dialog', { name: 'Session options' });
    await dialog.getByRole('textbox', { name: 'Instructions (system prompt)' }).fill(instructions);
    await dialog.getByRole('spinbutton', { name: /^Temperature/ }).fill('0.3');
    await dialog.getByRole('spinbutton', { name: /^Max output tokens/ }).fill('300');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: 'Session options' })).toContainText('instructions · temperature 0.3 · max 300 tokens');
    // The instructions are part of what the model sees: the meter counts them.
    await expect.poll(() => contextTokens(page)).toBeGreaterThan(before + 100);

    await chatTurn(page, 'second words');
    const last = (await mock.chatRequests()).at(-1)!.body as { messages: { role: string; content: unknown }[]; temperature: number; max_tokens: number };
    expect(last.messages[0]).toEqual({ role: 'system', content: instructions });
    expect(last).toMatchObject({ temperature: 0.3, max_tokens: 300 });

    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('dialog', { name: 'Export session' }).getByRole('button', { name: 'JSONL', exact: true }).click()]);
    const jsonl = readFileSync(await download.path(), 'utf8');
    expect(JSON.parse(jsonl.split('\n')[0]!)).toMatchObject({ systemPrompt: instructions, temperature: 0.3, maxOutputTokens: 300 });

    // Another browser profile: empty storage, the file imported.
    const other = await browser.newContext();
    const fresh = await other.newPage();
    await openApp(fresh);
    await fresh.getByLabel('Import file').setInputFiles({ name: 'captain.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl) });
    await expect(fresh.getByText(/Imported 1 session/)).toBeVisible();
    await expect(fresh.getByRole('button', { name: 'Session options' })).toContainText('instructions · temperature 0.3 · max 300 tokens');
    await fresh.getByRole('button', { name: 'Session options' }).click();
    await expect(fresh.getByRole('dialog', { name: 'Session options' }).getByRole('textbox', { name: 'Instructions (system prompt)' })).toHaveValue(instructions);
    await other.close();
  });

  test('default instructions from Settings go with sessions that set none of their own', async ({ page }) => {
    await openApp(page);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('group', { name: 'Chat defaults' }).getByRole('textbox', { name: 'Instructions (system prompt)' }).fill('Always answer in haiku.');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings).toBeHidden();
    await newSession(page);
    await expect(page.getByRole('button', { name: 'Session options' })).toContainText('instructions');
    await chatTurn(page, 'Describe the sea');
    const body = (await mock.chatRequests()).at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Always answer in haiku.' });
  });

  test('a context window set for the model is what the meter measures against', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'how large is the window?');
    const meter = page.getByRole('meter', { name: 'Context' });
    await expect(meter).toHaveAttribute('aria-valuemax', '128000');
    await page.getByRole('button', { name: 'Session options' }).click();
    const dialog = page.getByRole('dialog', { name: 'Session options' });
    await expect(dialog.getByText('Now 128,000 tokens, as the provider reports it.', { exact: false })).toBeVisible();
    await dialog.getByRole('spinbutton', { name: /^Context window of mock-large/ }).fill('32000');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(meter).toHaveAttribute('aria-valuemax', '32000');
    await expect(page.getByRole('combobox', { name: 'Model' }).getByRole('option', { selected: true })).toHaveText('mock-large · 32k');
  });
});

test.describe('auto titles', () => {
  test('after the first reply the model names the session; a name the user gives stays', async ({ page }) => {
    await mock.script([{ for: 'title', reply: '"Pirate greetings."' }]);
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'Say hello the way a pirate would, please');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Pirate greetings');
    const titleCall = (await mock.requests()).find((r) => r.kind === 'title')!;
    expect(JSON.stringify(titleCall.body)).toContain('Say hello the way a pirate would');

    const list = page.getByRole('navigation', { name: 'Sessions' });
    await list.getByRole('button', { name: 'Rename Pirate greetings' }).click();
    await list.getByRole('textbox', { name: 'Session title' }).fill('Ahoy');
    await list.getByRole('textbox', { name: 'Session title' }).press('Enter');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ahoy');
    await chatTurn(page, 'And goodbye?');
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ahoy');
    expect((await mock.requests()).filter((r) => r.kind === 'title')).toHaveLength(1);
  });

  test('when the title call fails, the title is the first prompt’s words', async ({ page }) => {
    await mock.script([{ for: 'title', error: { status: 500, body: { error: { message: 'title model down' } } } }]);
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'Please review the following pull request carefully and tell me whether the locking is right');
    await expect.poll(async () => (await mock.requests()).filter((r) => r.kind === 'title').length).toBe(1);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Please review the following pull request carefully and…');
  });
});
