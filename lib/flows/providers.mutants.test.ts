import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrowserProvider } from '@/lib/providers/browserProviders';
import type { ModelInfo, ModelsResponse, ProviderListingResponse, ProviderStatus } from '@/lib/providers/listing';
import { testModel, testPorts } from '@/lib/testing/flowPorts';
import { addProvider, listProvider, mergeModels, providerRows } from './providers';

/**
 * The Providers panel's edges the other provider tests leave open: a new
 * instance id that collides with a stored one, the state a failed listing
 * reports in full, the picker's list with no server list yet or nothing at
 * all, and the panel's rows: instances never counted as the server's, each
 * server row counting only its own models, and a browser provider's key,
 * state and count before and after its listing arrives.
 */

afterEach(() => vi.restoreAllMocks());

const status = (id: ProviderStatus['id'], label: string, state: ProviderStatus['state'], instance?: string): ProviderStatus => ({
  id,
  label,
  configured: state !== 'not_configured',
  reachable: state === 'connected',
  state,
  ...(instance ? { instance } : {}),
});

/** A model of a browser-entered provider: its id carries the instance. */
const instanceModel = (provider: ModelInfo['provider'], name: string, instance: string, contextWindow: number): ModelInfo => ({
  ...testModel(`${provider}:${name}@${instance}`, contextWindow),
  instance,
});

const browserProvider = (id: string, provider: BrowserProvider['provider'], label: string): BrowserProvider => ({ id, provider, label, baseUrl: 'http://127.0.0.1:9/v1', addedAt: 1 });

describe('adding a provider: its instance id', () => {
  it('a new id that is already taken is drawn again: the stored provider keeps its id, the new one gets another', async () => {
    const ports = testPorts();
    const existing = browserProvider('00000000', 'compat', 'First server');
    await ports.store.saveBrowserProvider(existing);
    const load = ports.store.loadBrowserProviders.bind(ports.store);
    ports.store.loadBrowserProviders = async () => {
      const out = await load();
      // The next id drawn is the stored one (eight draws of 0 give "00000000"), the one after is not.
      const random = vi.spyOn(Math, 'random');
      for (let i = 0; i < 8; i++) random.mockReturnValueOnce(0);
      for (let i = 0; i < 8; i++) random.mockReturnValueOnce(0.5);
      return out;
    };
    const added = await addProvider(ports, { provider: 'compat', label: 'Second server', baseUrl: 'http://127.0.0.1:8/v1' });
    if (!added.ok) throw new Error(added.error);
    expect(added.provider.id).toBe('i'.repeat(8)); // 0.5 × 36 = 18, "i" in base 36
    const stored = await ports.store.loadBrowserProviders();
    expect(stored.map((p) => [p.id, p.label]).sort()).toEqual([
      ['00000000', 'First server'],
      ['iiiiiiii', 'Second server'],
    ]);
  });
});

describe('listing a provider when the app’s server cannot be asked', () => {
  it('the state is complete: configured, not reachable, named by the instance, and no models', async () => {
    const ports = testPorts();
    ports.transport.listProvider = () => Promise.reject(new TypeError('Failed to fetch'));
    const p = browserProvider('k3x9abcd', 'ollama', 'Desk GPU');
    expect(await listProvider(ports, p)).toEqual({
      provider: { id: 'ollama', instance: 'k3x9abcd', label: 'Desk GPU', configured: true, reachable: false, state: 'unreachable', error: 'This app’s server could not be asked: Failed to fetch' },
      models: [],
    });
  });
});

describe('the picker’s list (mergeModels)', () => {
  it('nothing from the server and no browser providers: undefined, as before anything arrived', () => {
    expect(mergeModels(undefined, [], {})).toBeUndefined();
  });

  it('no server list yet: the browser providers alone, their statuses and models, the first model the default, their warnings only', () => {
    const a = instanceModel('compat', 'llama-3.1-8b', 'aaaa1111', 8_192);
    const b = instanceModel('compat', 'qwen-2.5-7b', 'aaaa1111', 32_768);
    const listing: ProviderListingResponse = { provider: status('compat', 'Desk GPU', 'connected', 'aaaa1111'), models: [a, b] };
    expect(mergeModels(undefined, [listing], {})).toEqual({ providers: [listing.provider], models: [a, b], defaultModel: a.id });
    const warned: ProviderListingResponse = { ...listing, warnings: ['Desk GPU lists no context windows.'] };
    expect(mergeModels(undefined, [warned], {})!.warnings).toEqual(['Desk GPU lists no context windows.']);
  });

  it('a browser provider with no models and no server list: no default model', () => {
    const listing: ProviderListingResponse = { provider: status('compat', 'Empty box', 'connected', 'bbbb2222'), models: [] };
    expect(mergeModels(undefined, [listing], {})).toEqual({ providers: [listing.provider], models: [] });
  });
});

describe('the panel’s rows (providerRows)', () => {
  it('the server’s instances (a merged list) are not server rows; each server row counts its own models, not instances’ nor other providers’', () => {
    const own = [testModel('openai:gpt-4o', 128_000), testModel('openai:gpt-4o-mini', 128_000)];
    const other = testModel('anthropic:claude-sonnet-4-5', 200_000);
    const inst = instanceModel('openai', 'gpt-4o', 'cccc3333', 128_000);
    const server: ModelsResponse = {
      providers: [status('openai', 'OpenAI', 'connected'), status('anthropic', 'Anthropic', 'connected'), status('openai', 'Work account', 'connected', 'cccc3333'), status('google', 'Google', 'not_configured')],
      models: [...own, other, inst],
    };
    const { rows, notConfigured } = providerRows(server, [], new Map());
    expect(rows).toEqual([
      { key: 'openai', label: 'OpenAI', origin: 'server', state: 'connected', text: 'Connected (2 models)' },
      { key: 'anthropic', label: 'Anthropic', origin: 'server', state: 'connected', text: 'Connected (1 model)' },
    ]);
    expect(notConfigured).toEqual(['Google']);
  });

  it('no server list yet: only this browser’s providers, “checking” until their listing arrives, then its state and model count', () => {
    const p = browserProvider('dddd4444', 'compat', 'Desk GPU');
    const before = providerRows(undefined, [p], new Map());
    expect(before).toEqual({ rows: [{ key: 'compat@dddd4444', label: 'Desk GPU', origin: 'browser', state: 'checking', text: 'Checking…', provider: p }], notConfigured: [] });
    const models = [instanceModel('compat', 'llama-3.1-8b', p.id, 8_192), instanceModel('compat', 'qwen-2.5-7b', p.id, 32_768), instanceModel('compat', 'phi-4', p.id, 16_384)];
    const after = providerRows(undefined, [p], new Map([[p.id, { provider: status('compat', 'Desk GPU', 'connected', p.id), models }]]));
    expect(after.rows).toEqual([{ key: 'compat@dddd4444', label: 'Desk GPU', origin: 'browser', state: 'connected', text: 'Connected (3 models)', provider: p }]);
  });
});
