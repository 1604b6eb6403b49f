import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlm } from '@/e2e/mock-llm/server';
import type { ModelsResponse } from '@/lib/providers/listing';
import { scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { mergeModels, providerRows, providerStateText } from './providers';

/**
 * Settings → Providers over the real store (fake-indexeddb) and the server's
 * own listing code, talking real HTTP to the scripted mock LLM.
 */

let mock: MockLlm;
let guarded: MockLlm;
const KEY = 'sk-mock-right-0123456789';
beforeAll(async () => {
  mock = await startMockLlm({ chunkDelayMs: 1 });
  guarded = await startMockLlm({ chunkDelayMs: 1, apiKey: KEY });
});
afterAll(async () => {
  await mock.close();
  await guarded.close();
});
beforeEach(() => {
  mock.reset();
  guarded.reset();
});

function setup(serverEnv = { OLLAMA_BASE_URL: 'off' }) {
  const ports = testPorts({ transport: scriptedTransport({ serverEnv }) });
  return { ports, flows: new AppFlows(ports) };
}

describe('adding a provider', () => {
  it('an OpenAI-compatible server is stored in this browser and its models are listed through the server, named by its instance', async () => {
    const { ports, flows } = setup();
    const added = await flows.addProvider({ provider: 'compat', label: 'Local mock', baseUrl: `${mock.baseUrl}/` });
    if (!added.ok) throw new Error(added.error);
    expect(await ports.store.loadBrowserProviders()).toEqual([{ id: added.provider.id, provider: 'compat', label: 'Local mock', baseUrl: mock.baseUrl, addedAt: added.provider.addedAt }]);
    const listing = await flows.listProvider(added.provider);
    expect(listing.provider).toMatchObject({ state: 'connected', instance: added.provider.id, label: 'Local mock' });
    expect(listing.models.map((m) => m.id)).toEqual(['mock-large', 'mock-small', 'mock-summarizer'].map((m) => `compat@${added.provider.id}:${m}`));
    expect(providerStateText(listing.provider, listing.models.length)).toBe('Connected (3 models)');
  });

  it('several at once, each with its own key; a wrong key reads "Key rejected", a right one connects', async () => {
    const { ports, flows } = setup();
    const open = await flows.addProvider({ provider: 'compat', baseUrl: mock.baseUrl });
    const wrong = await flows.addProvider({ provider: 'compat', baseUrl: guarded.baseUrl, apiKey: 'sk-mock-wrong-999999' });
    const right = await flows.addProvider({ provider: 'compat', baseUrl: guarded.baseUrl, apiKey: KEY });
    if (!open.ok || !wrong.ok || !right.ok) throw new Error('not added');
    // Each gets a name of its own.
    expect([open, wrong, right].map((r) => r.provider.label)).toEqual(['OpenAI-compatible', 'OpenAI-compatible 2', 'OpenAI-compatible 3']);
    const [a, b, c] = await Promise.all([open, wrong, right].map((r) => flows.listProvider(r.provider)));
    expect(a!.provider.state).toBe('connected');
    expect(b!.provider.state).toBe('key_rejected');
    expect(providerStateText(b!.provider, b!.models.length)).toMatch(/^Key rejected: OpenAI-compatible 2 rejected the API key \(HTTP 401\)/);
    expect(JSON.stringify(b)).not.toContain('sk-mock-wrong-999999');
    expect(c!.provider.state).toBe('connected');

    // The picker offers the server's models and both connected providers', apart.
    const server: ModelsResponse = { providers: [], models: [testModel('compat:mock-large', 128_000)], defaultModel: 'compat:mock-large' };
    const merged = mergeModels(server, [a!, b!, c!], {})!;
    expect(merged.models.map((m) => m.id)).toEqual(['compat:mock-large', ...a!.models.map((m) => m.id), ...c!.models.map((m) => m.id)]);
    expect(merged.defaultModel).toBe('compat:mock-large');
    expect((await ports.store.loadBrowserProviders()).map((p) => p.label)).toHaveLength(3);
  });

  it('an address nobody answers at is "Unreachable" with the reason; a host outside the policy is "Not allowed"', async () => {
    const { flows } = setup();
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const gone = await flows.addProvider({ provider: 'ollama', baseUrl: `http://127.0.0.1:${port}` });
    const lan = await flows.addProvider({ provider: 'compat', label: 'LAN', baseUrl: 'http://192.168.7.7:8000/v1' });
    if (!gone.ok || !lan.ok) throw new Error('not added');
    const g = await flows.listProvider(gone.provider);
    expect(providerStateText(g.provider, 0)).toBe('Unreachable: Could not reach Ollama at this address.');
    const l = await flows.listProvider(lan.provider);
    expect(providerStateText(l.provider, 0)).toMatch(/^Not allowed: This server may not call that base URL: only loopback hosts .*ALLOW_CLIENT_BASE_URLS/);
  });

  it('an incomplete draft is refused with the reason and nothing is stored', async () => {
    const { ports, flows } = setup();
    expect(await flows.addProvider({ provider: 'openai' })).toEqual({ ok: false, error: 'OpenAI needs an API key.' });
    // A name the server's providers already use is taken too.
    expect(await flows.addProvider({ provider: 'compat', label: 'Scripted test model', baseUrl: mock.baseUrl }, ['Scripted test model'])).toMatchObject({ ok: false });
    expect(await ports.store.loadBrowserProviders()).toEqual([]);
  });

  it('the server not answering is said as such, not blamed on the provider', async () => {
    const { ports, flows } = setup();
    const added = await flows.addProvider({ provider: 'compat', baseUrl: mock.baseUrl });
    if (!added.ok) throw new Error(added.error);
    ports.transport.listProvider = () => Promise.reject(new TypeError('Failed to fetch'));
    const out = await flows.listProvider(added.provider);
    expect(providerStateText(out.provider, 0)).toBe('Unreachable: This app’s server could not be asked: Failed to fetch');
  });

  it('removing forgets the provider and its key', async () => {
    const { ports, flows } = setup();
    const added = await flows.addProvider({ provider: 'openai', apiKey: 'sk-proj-forget-me' });
    if (!added.ok) throw new Error(added.error);
    expect(await flows.removeProvider(added.provider)).toBe(true);
    expect(await ports.store.loadBrowserProviders()).toEqual([]);
    expect(JSON.stringify(await ports.db.settings.toArray())).not.toContain('sk-proj-forget-me');
    expect(ports.notices.at(-1)).toMatchObject({ level: 'success', message: expect.stringMatching(/^Removed “OpenAI”/) });
  });

  it('the single key and base URL of earlier versions shows up as a provider, and is gone from storage once the list is saved', async () => {
    const { ports, flows } = setup();
    await ports.db.settings.put({ key: 'clientCredentials', value: { baseUrl: mock.baseUrl } });
    const [legacy] = await ports.store.loadBrowserProviders();
    expect(legacy).toMatchObject({ id: 'legacy', provider: 'compat', baseUrl: mock.baseUrl });
    expect((await flows.listProvider(legacy!)).provider.state).toBe('connected');
    await flows.addProvider({ provider: 'openai', apiKey: 'sk-proj-x' });
    expect((await ports.store.loadBrowserProviders()).map((p) => p.id)[0]).toBe('legacy');
    expect(await ports.db.settings.get('clientCredentials')).toBeUndefined();
  });

  it('stored rows are validated on read: a damaged one is left out, the others kept', async () => {
    const { ports } = setup();
    await ports.db.settings.put({ key: 'providers', value: [{ id: 'ok1', provider: 'compat', label: 'Fine', baseUrl: mock.baseUrl, addedAt: 1 }, { id: 'bad', provider: 'compat', label: 42 }] });
    expect((await ports.store.loadBrowserProviders()).map((p) => p.id)).toEqual(['ok1']);
  });
});

describe('what the Providers panel says', () => {
  it('the server’s set-up providers as rows, the ones not configured in one line, then this browser’s', async () => {
    const server: ModelsResponse = {
      providers: [
        { id: 'openai', label: 'OpenAI', configured: false, reachable: false, state: 'not_configured' },
        { id: 'compat', label: 'Gateway', configured: true, reachable: false, state: 'unreachable', error: 'Could not reach Gateway. (ECONNREFUSED)' },
        { id: 'ollama', label: 'Ollama', configured: true, reachable: true, state: 'connected' },
      ],
      models: [testModel('ollama:llama3.1:8b', 4096)],
    };
    const mine = { id: 'k3x9', provider: 'compat' as const, label: 'Mine', baseUrl: mock.baseUrl, addedAt: 1 };
    const { rows, notConfigured } = providerRows(server, [mine], new Map());
    expect(notConfigured).toEqual(['OpenAI']);
    expect(rows.map((r) => [r.label, r.origin, r.text])).toEqual([
      // "configured but unreachable" is not "not configured".
      ['Gateway', 'server', 'Unreachable: Could not reach Gateway. (ECONNREFUSED)'],
      ['Ollama', 'server', 'Connected (1 model)'],
      ['Mine', 'browser', 'Checking…'],
    ]);
  });
});

describe('context windows the user sets', () => {
  it('win over what the provider says, for the meter and compaction, until removed', async () => {
    const { ports, flows } = setup();
    const added = await flows.addProvider({ provider: 'compat', baseUrl: mock.baseUrl });
    if (!added.ok) throw new Error(added.error);
    const listing = await flows.listProvider(added.provider);
    const id = `compat@${added.provider.id}:mock-small`;
    expect(await flows.setContextWindow(id, 6000)).toBe(true);
    const windows = (await ports.store.loadAppSettings()).contextWindows;
    expect(mergeModels(undefined, [listing], windows)!.models.find((m) => m.id === id)).toMatchObject({ contextWindow: 6000, contextWindowSource: 'user' });
    expect(await flows.setContextWindow(id, 12.5)).toBe(false);
    expect(ports.notices.at(-1)).toMatchObject({ level: 'error', message: expect.stringMatching(/^A context window is a whole number of tokens/) });
    expect(await flows.setContextWindow(id, null)).toBe(true);
    const back = mergeModels(undefined, [listing], (await ports.store.loadAppSettings()).contextWindows)!;
    expect(back.models.find((m) => m.id === id)).toMatchObject({ contextWindow: 8192, contextWindowSource: 'provider' });
  });
});
