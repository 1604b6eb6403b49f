import { describe, expect, it } from 'vitest';
import { checkProviderDraft, credentialsOf, newInstanceId, providerFormSpec, providerFromLegacyCredentials, readBrowserProviders, uniqueLabel } from './browserProviders';
import { INSTANCE_ID } from './modelId';

describe('the Providers form, per kind', () => {
  it('asks each kind for what its descriptor needs', () => {
    expect(providerFormSpec('openai')).toMatchObject({ label: 'OpenAI', apiKey: 'required', baseUrl: 'optional', defaultBaseUrl: 'https://api.openai.com/v1' });
    expect(providerFormSpec('anthropic')).toMatchObject({ apiKey: 'required', baseUrl: 'none' });
    expect(providerFormSpec('google')).toMatchObject({ label: 'Google Gemini', apiKey: 'required', baseUrl: 'none' });
    expect(providerFormSpec('compat')).toMatchObject({ apiKey: 'optional', baseUrl: 'required' });
    expect(providerFormSpec('ollama')).toMatchObject({ apiKey: 'none', baseUrl: 'required', suggestedBaseUrl: 'http://127.0.0.1:11434' });
  });
});

describe('checkProviderDraft', () => {
  it('accepts a pasted key (whitespace and line breaks dropped) and names the provider after its kind, numbered when taken', () => {
    expect(checkProviderDraft({ provider: 'openai', apiKey: '  sk-proj-abc\ndef \n' }, [])).toEqual({ ok: true, value: { provider: 'openai', label: 'OpenAI', apiKey: 'sk-proj-abcdef' } });
    expect(checkProviderDraft({ provider: 'openai', apiKey: 'sk-x' }, ['OpenAI', 'openai 2'])).toMatchObject({ ok: true, value: { label: 'OpenAI 3' } });
  });

  it('normalises a base URL and fills in Ollama’s usual address', () => {
    expect(checkProviderDraft({ provider: 'compat', baseUrl: ' http://127.0.0.1:8080/v1/ ', label: ' LM Studio ' }, [])).toEqual({
      ok: true,
      value: { provider: 'compat', label: 'LM Studio', baseUrl: 'http://127.0.0.1:8080/v1' },
    });
    expect(checkProviderDraft({ provider: 'ollama', apiKey: 'ignored' }, [])).toEqual({ ok: true, value: { provider: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434' } });
  });

  it('refuses what cannot work, saying why', () => {
    expect(checkProviderDraft({ provider: 'anthropic' }, [])).toEqual({ ok: false, error: 'Anthropic needs an API key.' });
    expect(checkProviderDraft({ provider: 'compat' }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/^OpenAI-compatible needs a base URL/) });
    expect(checkProviderDraft({ provider: 'compat', baseUrl: '127.0.0.1:8080' }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/http:\/\/ or https:\/\/|not a URL/) });
    expect(checkProviderDraft({ provider: 'compat', baseUrl: 'ftp://host/v1' }, [])).toEqual({ ok: false, error: 'The base URL must start with http:// or https://.' });
    expect(checkProviderDraft({ provider: 'compat', baseUrl: 'http://user:pw@127.0.0.1/v1' }, [])).toEqual({ ok: false, error: 'Put the key in the API key field, not in the URL.' });
    expect(checkProviderDraft({ provider: 'compat', baseUrl: 'http://127.0.0.1/v1', label: 'Mine' }, ['mine'])).toEqual({ ok: false, error: 'Another provider is already called “Mine”.' });
    expect(checkProviderDraft({ provider: 'bogus' as never }, [])).toEqual({ ok: false, error: 'Choose which kind of provider this is.' });
  });
});

describe('readBrowserProviders: what is stored, validated on read', () => {
  const good = { id: 'k3x9', provider: 'compat', label: 'Box', baseUrl: 'http://127.0.0.1:8080/v1', addedAt: 1 };
  it('keeps valid rows and leaves out malformed or repeated ones', () => {
    const rows = [good, { ...good }, { ...good, id: 'BAD:ID' }, { ...good, id: 'a2', provider: 'nope' }, { ...good, id: 'a3', label: '' }, null, 'x', { ...good, id: 'a4', apiKey: '' }];
    expect(readBrowserProviders(rows)).toEqual([good, { id: 'a4', provider: 'compat', label: 'Box', baseUrl: 'http://127.0.0.1:8080/v1', addedAt: 1 }]);
    expect(readBrowserProviders(undefined)).toEqual([]);
    expect(readBrowserProviders({ not: 'a list' })).toEqual([]);
  });
});

describe('the single key / base URL of earlier versions', () => {
  it('becomes the provider it must have meant, or nothing', () => {
    expect(providerFromLegacyCredentials({ baseUrl: 'http://127.0.0.1:11434/v1' }, 5)).toEqual({ id: 'legacy', provider: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434', addedAt: 5 });
    expect(providerFromLegacyCredentials({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'k' }, 5)).toMatchObject({ provider: 'compat', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'k' });
    expect(providerFromLegacyCredentials({ apiKey: 'sk-ant-api03-x' }, 5)?.provider).toBe('anthropic');
    expect(providerFromLegacyCredentials({ apiKey: 'AIzaSyX' }, 5)?.provider).toBe('google');
    expect(providerFromLegacyCredentials({ apiKey: 'sk-proj-x' }, 5)?.provider).toBe('openai');
    expect(providerFromLegacyCredentials({ apiKey: 'gsk_unknown' }, 5)).toBeNull();
    expect(providerFromLegacyCredentials(undefined, 5)).toBeNull();
  });
});

describe('ids and credentials', () => {
  it('instance ids fit the model-id syntax', () => {
    let x = 0;
    const id = newInstanceId(() => ((x += 0.37) % 1));
    expect(id).toMatch(INSTANCE_ID);
    expect(id).toHaveLength(8);
  });
  it('what goes with a request names the instance', () => {
    expect(credentialsOf({ id: 'a1', provider: 'openai', label: 'Work', apiKey: 'sk-1', addedAt: 0 })).toEqual({ instance: 'a1', label: 'Work', apiKey: 'sk-1' });
  });
  it('uniqueLabel numbers from 2', () => {
    expect(uniqueLabel('Ollama', ['Ollama'])).toBe('Ollama 2');
  });
});
