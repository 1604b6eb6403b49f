import { describe, expect, it } from 'vitest';
import type { ModelsResponse, ProviderListingResponse, ProviderStatus } from '@/lib/providers/listing';
import { testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { mergeModels, providerStateText, withContextWindow } from './providers';

/**
 * Settings → Providers without a server behind it: what the panel says about
 * a provider in each state, how the picker's list is merged, and what adding
 * or removing does when storage fails.
 */

const status = (over: Partial<ProviderStatus>): ProviderStatus => ({ id: 'openai', label: 'OpenAI', configured: true, reachable: true, state: 'connected', ...over });
const quotaFull = () => Object.assign(new Error('The storage quota is exhausted.'), { name: 'QuotaExceededError' });

describe('a provider’s state in words', () => {
  it('each state reads as what there is to fix, with the reason when there is one', () => {
    expect(providerStateText(undefined, 0)).toBe('Checking…');
    expect(providerStateText(status({}), 1)).toBe('Connected (1 model)');
    expect(providerStateText(status({}), 0)).toBe('Connected (0 models)');
    expect(providerStateText(status({ state: 'key_rejected' }), 0)).toBe('Key rejected');
    expect(providerStateText(status({ state: 'refused', error: 'only loopback hosts' }), 0)).toBe('Not allowed: only loopback hosts');
    expect(providerStateText(status({ state: 'unreachable' }), 0)).toBe('Unreachable');
  });

  it('“not configured” is the server’s missing set-up for its own providers, and the reason for one entered here', () => {
    expect(providerStateText(status({ state: 'not_configured', configured: false, error: 'no key' }), 0)).toBe('Not configured on this server');
    expect(providerStateText(status({ state: 'not_configured', configured: false, instance: 'k3x9', error: 'The API key is missing.' }), 0)).toBe('Not configured: The API key is missing.');
    expect(providerStateText(status({ state: 'not_configured', configured: false, instance: 'k3x9' }), 0)).toBe('Not configured');
  });
});

describe('the picker’s models', () => {
  const small = testModel('compat:mock-small', 8_000, 4_096);
  const large = testModel('compat:mock-large', 128_000);

  it('a window the user set caps the reply length the model claims, and a model without one keeps it unset', () => {
    expect(withContextWindow(small, { [small.id]: 2_048 })).toEqual({ ...small, contextWindow: 2_048, contextWindowSource: 'user', maxOutputTokens: 2_048 });
    expect(withContextWindow(small, { [small.id]: 16_000 })).toEqual({ ...small, contextWindow: 16_000, contextWindowSource: 'user', maxOutputTokens: 4_096 });
    expect(withContextWindow(large, { [large.id]: 64_000 })).toEqual({ ...large, contextWindow: 64_000, contextWindowSource: 'user' });
    expect(withContextWindow(large, { [small.id]: 64_000 })).toBe(large);
  });

  it('the server’s summarizer and warnings are kept; none are invented', () => {
    const server: ModelsResponse = { providers: [], models: [large], defaultModel: large.id, summarizerModel: small.id, warnings: ['OPENAI_API_KEY is empty.'] };
    const listing: ProviderListingResponse = { provider: status({ instance: 'k3x9' }), models: [small], warnings: ['A model has no window.'] };
    expect(mergeModels(server, [listing], {})).toMatchObject({ defaultModel: large.id, summarizerModel: small.id, warnings: ['OPENAI_API_KEY is empty.', 'A model has no window.'] });
    const bare = mergeModels({ providers: [], models: [large] }, [], {})!;
    expect(bare).toEqual({ providers: [], models: [large], defaultModel: large.id });
  });
});

describe('adding and removing when storage fails', () => {
  it('adding resolves with the reason and the form keeps the draft; removing says why and keeps the provider', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const added = await flows.addProvider({ provider: 'openai', apiKey: 'sk-proj-kept' });
    if (!added.ok) throw new Error(added.error);
    ports.store.saveBrowserProvider = async () => Promise.reject(quotaFull());
    ports.store.removeBrowserProvider = async () => Promise.reject(quotaFull());
    expect(await flows.addProvider({ provider: 'anthropic', apiKey: 'sk-ant-new' })).toEqual({ ok: false, error: 'The storage quota is exhausted.' });
    expect(await flows.removeProvider(added.provider)).toBe(false);
    expect(ports.notices).toEqual([{ level: 'error', message: 'The storage quota is exhausted.' }]);
    expect((await ports.store.loadBrowserProviders()).map((p) => p.id)).toEqual([added.provider.id]);
  });
});
