import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, type ProviderId } from './descriptors';
import { readServerConfig, type EnvLike } from './env';
import { resolveLanguageModel } from './factory';
import type { ClientCredentials } from './requests';

interface Sent {
  url: string;
  headers: Headers;
}

/** Resolves a model and makes it send one request to a fetch that records it and answers 500. */
async function firstRequest(provider: ProviderId, env: EnvLike, client?: ClientCredentials, instance?: string): Promise<{ sent: Sent; secrets: string[]; sdk: string }> {
  let sent: Sent | undefined;
  const record = async (input: RequestInfo | URL, init?: RequestInit) => {
    sent = { url: String(input instanceof Request ? input.url : input), headers: new Headers(init?.headers) };
    return Response.json({ error: { message: 'recorded' } }, { status: 500 });
  };
  const r = resolveLanguageModel({ provider, model: 'some-model', ...(instance ? { instance } : {}) }, readServerConfig(env), client, record);
  if (!r.ok) throw new Error(r.message);
  const model = r.model as unknown as { provider: string; doGenerate(o: unknown): Promise<unknown> };
  await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }).catch(() => undefined);
  if (!sent) throw new Error('nothing sent');
  return { sent, secrets: r.secrets, sdk: model.provider };
}

const KEYS = { OPENAI_API_KEY: 'sk-env-openai', ANTHROPIC_API_KEY: 'sk-ant-env', GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-env', OPENAI_COMPATIBLE_API_KEY: 'compat-env' };

describe('resolveLanguageModel: each provider through its SDK adapter', () => {
  const cases: { provider: ProviderId; env: EnvLike; client?: ClientCredentials; url: string; sdk: string; key?: string }[] = [
    { provider: 'openai', env: KEYS, url: 'https://api.openai.com/v1/responses', sdk: 'openai.responses', key: 'sk-env-openai' },
    // A gateway in front of OpenAI speaks Chat Completions.
    { provider: 'openai', env: { ...KEYS, OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1' }, url: 'http://127.0.0.1:4010/v1/chat/completions', sdk: 'openai.chat', key: 'sk-env-openai' },
    { provider: 'anthropic', env: KEYS, url: 'https://api.anthropic.com/v1/messages', sdk: 'anthropic.messages', key: 'sk-ant-env' },
    { provider: 'google', env: KEYS, url: 'https://generativelanguage.googleapis.com/v1beta/models/some-model:generateContent', sdk: 'google.generative-ai', key: 'AIza-env' },
    { provider: 'compat', env: { ...KEYS, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' }, url: 'http://127.0.0.1:4010/v1/chat/completions', sdk: 'compat.chat', key: 'compat-env' },
    { provider: 'compat', env: { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' }, url: 'http://127.0.0.1:4010/v1/chat/completions', sdk: 'compat.chat' },
    // Ollama is configured by its root and spoken to on its OpenAI endpoint below it.
    { provider: 'ollama', env: {}, url: 'http://127.0.0.1:11434/v1/chat/completions', sdk: 'ollama.chat' },
    { provider: 'ollama', env: { OLLAMA_BASE_URL: 'http://127.0.0.1:11500/v1' }, url: 'http://127.0.0.1:11500/v1/chat/completions', sdk: 'ollama.chat' },
    // A browser base URL: the server's key stays home, the browser's key goes along.
    { provider: 'ollama', env: {}, client: { baseUrl: 'http://localhost:11600/v1/', apiKey: 'browser-key' }, url: 'http://127.0.0.1:11600/v1/chat/completions', sdk: 'ollama.chat', key: 'browser-key' },
    { provider: 'compat', env: { ...KEYS, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' }, client: { baseUrl: 'http://127.0.0.1:4011/v1' }, url: 'http://127.0.0.1:4011/v1/chat/completions', sdk: 'compat.chat' },
    { provider: 'openai', env: KEYS, client: { baseUrl: 'http://127.0.0.1:4012/v1', apiKey: 'sk-browser' }, url: 'http://127.0.0.1:4012/v1/chat/completions', sdk: 'openai.chat', key: 'sk-browser' },
  ];

  for (const c of cases) {
    it(`${c.provider}${c.client ? ' with a browser base URL' : ''} → ${c.url}`, async () => {
      const { sent, secrets, sdk } = await firstRequest(c.provider, c.env, c.client);
      expect(sent.url).toBe(c.url);
      expect(sdk).toBe(c.sdk);
      expect(secrets).toEqual(c.key ? [c.key] : []);
      const headers = [...sent.headers.values()].join('\n');
      if (c.key) expect(headers).toContain(c.key);
      for (const k of Object.values(KEYS)) if (k !== c.key) expect(headers).not.toContain(k);
    });
  }

  it('covers every provider', () => {
    expect(new Set(cases.map((c) => c.provider))).toEqual(new Set(PROVIDER_IDS));
  });
});

describe('resolveLanguageModel: what a provider without its configuration says', () => {
  // Nothing is sent: resolution fails before a model exists.
  const unused = () => Promise.reject(new Error('no request expected'));
  const nothing = readServerConfig({ OLLAMA_BASE_URL: 'off' });
  const messages: Record<ProviderId, string> = {
    openai: 'No OpenAI API key: set OPENAI_API_KEY on the server or add OpenAI with a key in Settings → Providers.',
    anthropic: 'No Anthropic API key: set ANTHROPIC_API_KEY on the server or add Anthropic with a key in Settings → Providers.',
    google: 'No Google API key: set GOOGLE_GENERATIVE_AI_API_KEY on the server or add Google Gemini with a key in Settings → Providers.',
    compat: 'No OpenAI-compatible server: set OPENAI_COMPATIBLE_BASE_URL on the server or add one in Settings → Providers.',
    ollama: 'Ollama is disabled on this server (OLLAMA_BASE_URL=off); add one in Settings → Providers to use it.',
  };
  for (const provider of PROVIDER_IDS) {
    it(provider, () => {
      expect(resolveLanguageModel({ provider, model: 'm' }, nothing, undefined, unused)).toMatchObject({ ok: false, reason: 'not_configured', message: messages[provider] });
    });
  }

  it('a browser base URL never carries the server’s key', () => {
    const r = resolveLanguageModel({ provider: 'openai', model: 'gpt-4o' }, readServerConfig(KEYS), { baseUrl: 'http://127.0.0.1:4010/v1' }, unused);
    expect(r).toMatchObject({ ok: false, reason: 'not_configured', message: messages.openai, providerLabel: 'OpenAI' });
  });

  it('a refused browser base URL is a 400, named by the instance’s label', () => {
    const r = resolveLanguageModel({ provider: 'compat', model: 'm' }, readServerConfig({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1', OPENAI_COMPATIBLE_NAME: 'Gateway' }), { baseUrl: 'http://169.254.169.254/v1' }, unused);
    expect(r).toMatchObject({ ok: false, reason: 'base_url_refused', providerLabel: 'Gateway' });
  });
});

describe('resolveLanguageModel: providers entered in the browser', () => {
  const unused = () => Promise.reject(new Error('no request expected'));

  it('an OpenAI key from the browser goes to OpenAI’s own API; the server’s key stays home', async () => {
    const { sent, secrets, sdk } = await firstRequest('openai', KEYS, { instance: 'k3x9', label: 'My OpenAI', apiKey: 'sk-browser-own' }, 'k3x9');
    expect(sent.url).toBe('https://api.openai.com/v1/responses');
    expect(sdk).toBe('openai.responses');
    expect(secrets).toEqual(['sk-browser-own']);
    expect(sent.headers.get('authorization')).toBe('Bearer sk-browser-own');
  });

  it('an OpenAI-compatible server by its base URL, with or without a key, never with the server’s', async () => {
    const withKey = await firstRequest('compat', { ...KEYS, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' }, { instance: 'a1', baseUrl: 'http://127.0.0.1:4099/v1', apiKey: 'b-key' }, 'a1');
    expect(withKey.sent.url).toBe('http://127.0.0.1:4099/v1/chat/completions');
    expect(withKey.sent.headers.get('authorization')).toBe('Bearer b-key');
    const without = await firstRequest('compat', { ...KEYS, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' }, { instance: 'a1', baseUrl: 'http://127.0.0.1:4099/v1' }, 'a1');
    expect(without.sent.headers.get('authorization')).toBeNull();
    expect(without.secrets).toEqual([]);
  });

  it('Ollama by the address the browser gave, spoken to under /v1', async () => {
    const { sent } = await firstRequest('ollama', {}, { instance: 'o1', baseUrl: 'http://127.0.0.1:11434' }, 'o1');
    expect(sent.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
  });

  it('without the instance’s own settings nothing is used: not the server’s, not another instance’s', () => {
    const config = readServerConfig({ ...KEYS, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1' });
    expect(resolveLanguageModel({ provider: 'compat', instance: 'a1', model: 'm' }, config, undefined, unused)).toMatchObject({ ok: false, reason: 'not_configured' });
    expect(resolveLanguageModel({ provider: 'compat', instance: 'a1', model: 'm' }, config, { instance: 'b2', baseUrl: 'http://127.0.0.1:4099/v1' }, unused)).toMatchObject({
      ok: false,
      reason: 'not_configured',
      message: expect.stringMatching(/entered in a browser/),
    });
    expect(resolveLanguageModel({ provider: 'openai', instance: 'a1', model: 'gpt-4o' }, config, { instance: 'a1', label: 'Mine' }, unused)).toMatchObject({
      ok: false,
      message: 'No OpenAI API key for Mine: enter one in Settings → Providers.',
    });
    expect(resolveLanguageModel({ provider: 'compat', instance: 'a1', model: 'm' }, config, { instance: 'a1', label: 'Mine' }, unused)).toMatchObject({
      ok: false,
      message: 'Mine has no base URL: enter its address in Settings → Providers.',
    });
  });

  it('a browser base URL outside the policy is refused with the policy’s reason', () => {
    const r = resolveLanguageModel({ provider: 'compat', instance: 'a1', model: 'm' }, readServerConfig({}), { instance: 'a1', label: 'LAN box', baseUrl: 'http://10.0.0.5:8000/v1' }, unused);
    expect(r).toMatchObject({ ok: false, reason: 'base_url_refused', providerLabel: 'LAN box', message: expect.stringMatching(/10\.0\.0\.5 is not one \(see ALLOW_CLIENT_BASE_URLS\)/) });
  });

  it('settings of a browser-entered provider never reach the server’s own provider', async () => {
    const { sent } = await firstRequest('openai', KEYS, { instance: 'a1', apiKey: 'sk-browser-own', baseUrl: 'http://127.0.0.1:4099/v1' });
    expect(sent.url).toBe('https://api.openai.com/v1/responses');
    expect(sent.headers.get('authorization')).toBe('Bearer sk-env-openai');
  });
});
