import { describe, expect, it } from 'vitest';
import { FALLBACK_CONTEXT_WINDOW, lookupCatalog } from './catalog';
import { resolveContextWindow } from './contextWindow';
import { isConfigured, parseContextOverrides, readServerConfig } from './env';
import { formatModelId, parseModelId } from './modelId';

describe('model ids', () => {
  it('parses qualified ids, keeping colons and slashes of the model part', () => {
    expect(parseModelId('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(parseModelId('compat:openai/gpt-4o')).toEqual({ provider: 'compat', model: 'openai/gpt-4o' });
    expect(parseModelId(' anthropic:claude-sonnet-4-5 ')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
  });
  it('infers the provider of unambiguous bare ids and refuses the rest', () => {
    expect(parseModelId('gpt-4o')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(parseModelId('o3-mini')).toEqual({ provider: 'openai', model: 'o3-mini' });
    expect(parseModelId('claude-3-5-haiku-latest')?.provider).toBe('anthropic');
    expect(parseModelId('gemini-2.5-pro')?.provider).toBe('google');
    expect(parseModelId('llama3')).toBeNull();
    expect(parseModelId('bogus:model')).toBeNull();
    expect(parseModelId('openai:')).toBeNull();
    expect(parseModelId('')).toBeNull();
  });
  it('round-trips', () => {
    expect(formatModelId(parseModelId('ollama:qwen3:32b')!)).toBe('ollama:qwen3:32b');
    expect(formatModelId(parseModelId('compat@k3x9:openai/gpt-4o')!)).toBe('compat@k3x9:openai/gpt-4o');
  });
  it('names the browser-entered instance a model belongs to after an @, and refuses malformed instances', () => {
    expect(parseModelId('compat@k3x9:llama3.1:8b')).toEqual({ provider: 'compat', instance: 'k3x9', model: 'llama3.1:8b' });
    expect(parseModelId('openai@a1:gpt-4o')).toEqual({ provider: 'openai', instance: 'a1', model: 'gpt-4o' });
    // Existing ids are untouched: no instance means the server's own provider.
    expect(parseModelId('compat:mock-large')).toEqual({ provider: 'compat', model: 'mock-large' });
    expect(parseModelId('compat@:m')).toBeNull();
    expect(parseModelId('compat@K3X9:m')).toBeNull();
    expect(parseModelId('compat@a/b:m')).toBeNull();
    expect(parseModelId('bogus@k3x9:m')).toBeNull();
    expect(parseModelId('compat@k3x9:')).toBeNull();
  });
});

describe('catalog', () => {
  it('matches dated snapshots by the longest prefix', () => {
    expect(lookupCatalog('openai', 'gpt-4o-2024-08-06')?.contextWindow).toBe(128_000);
    expect(lookupCatalog('openai', 'gpt-4o-mini-2024-07-18')?.prefix).toBe('gpt-4o-mini');
    expect(lookupCatalog('openai', 'gpt-4-0613')?.contextWindow).toBe(8_192);
    expect(lookupCatalog('openai', 'gpt-4-turbo-2024-04-09')?.contextWindow).toBe(128_000);
    expect(lookupCatalog('openai', 'gpt-4.1-nano')?.contextWindow).toBe(1_047_576);
    expect(lookupCatalog('openai', 'o1-mini')?.maxOutputTokens).toBe(65_536);
    expect(lookupCatalog('openai', 'o3-pro')?.contextWindow).toBe(200_000);
    expect(lookupCatalog('anthropic', 'claude-3-5-sonnet-20241022')?.maxOutputTokens).toBe(8_192);
    expect(lookupCatalog('anthropic', 'claude-opus-4-1-20250805')?.maxOutputTokens).toBe(32_000);
    expect(lookupCatalog('anthropic', 'claude-opus-4-5')?.maxOutputTokens).toBe(64_000);
    expect(lookupCatalog('google', 'gemini-1.5-pro-002')?.contextWindow).toBe(2_097_152);
    expect(lookupCatalog('google', 'models/gemini-2.5-flash')?.contextWindow).toBe(1_048_576);
  });
  it('knows well-known models behind routers, but not unknown ones', () => {
    expect(lookupCatalog('compat', 'openai/gpt-4o')?.contextWindow).toBe(128_000);
    expect(lookupCatalog('compat', 'anthropic/claude-3.5-sonnet')?.contextWindow).toBe(200_000);
    expect(lookupCatalog('ollama', 'llama3.1:8b')).toBeNull();
    expect(lookupCatalog('openai', 'text-embedding-3-large')).toBeNull();
  });
  it('resolves windows with override > provider > catalog > fallback', () => {
    const overrides = parseContextOverrides('openai:gpt-4o=64000, ollama:llama3.1:8b=16384');
    expect(resolveContextWindow({ provider: 'openai', model: 'gpt-4o' }, { contextWindow: 100 }, overrides)).toEqual({
      contextWindow: 64_000,
      contextWindowSource: 'override',
      maxOutputTokens: 16_384,
    });
    expect(resolveContextWindow({ provider: 'ollama', model: 'llama3.1:8b' }, undefined, overrides).contextWindow).toBe(16_384);
    expect(resolveContextWindow({ provider: 'compat', model: 'mock-small' }, { contextWindow: 8192 }, overrides)).toEqual({
      contextWindow: 8192,
      contextWindowSource: 'provider',
    });
    expect(resolveContextWindow({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, undefined, overrides).contextWindowSource).toBe('catalog');
    expect(resolveContextWindow({ provider: 'compat', model: 'my-finetune' }, undefined, overrides)).toEqual({
      contextWindow: FALLBACK_CONTEXT_WINDOW,
      contextWindowSource: 'fallback',
    });
    // An output limit never exceeds the window it lives in.
    expect(resolveContextWindow({ provider: 'openai', model: 'gpt-4o' }, undefined, new Map([['openai:gpt-4o', 8000]])).maxOutputTokens).toBe(8000);
  });
});

describe('server configuration from an env object', () => {
  it('with nothing set: nothing configured except the default Ollama probe', () => {
    const c = readServerConfig({});
    expect(isConfigured(c, 'openai')).toBe(false);
    expect(isConfigured(c, 'anthropic')).toBe(false);
    expect(isConfigured(c, 'google')).toBe(false);
    expect(isConfigured(c, 'compat')).toBe(false);
    expect(isConfigured(c, 'ollama')).toBe(true);
    expect(c.providers.ollama).toEqual({ provider: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434', models: [], explicit: false });
    expect(c.clientBaseUrls).toEqual({ kind: 'loopback' });
    expect(c.warnings).toEqual([]);
  });

  it('reads every variable', () => {
    const c = readServerConfig({
      OPENAI_API_KEY: 'sk-test-openai',
      OPENAI_BASE_URL: 'https://proxy.example.com/v1/',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-test',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1',
      OPENAI_COMPATIBLE_API_KEY: 'compat-key',
      OPENAI_COMPATIBLE_NAME: 'Mock',
      OPENAI_COMPATIBLE_MODELS: 'mock-small, mock-large',
      OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1',
      DEFAULT_MODEL: 'compat:mock-small',
      SUMMARIZER_MODEL: 'compat:mock-summarizer',
      MODEL_CONTEXT_WINDOWS: 'compat:mock-small=4000,ollama:qwen3:32b=40960',
      ALLOW_CLIENT_BASE_URLS: 'loopback,gpu.lan:8000',
    });
    expect(c.providers.openai).toEqual({ provider: 'openai', label: 'OpenAI', apiKey: 'sk-test-openai', baseUrl: 'https://proxy.example.com/v1', models: [], explicit: true });
    expect(c.providers.anthropic?.apiKey).toBe('sk-ant-test');
    expect(c.providers.google?.apiKey).toBe('AIza-test');
    expect(c.providers.compat).toEqual({ provider: 'compat', baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'compat-key', label: 'Mock', models: ['mock-small', 'mock-large'], explicit: true });
    expect(c.providers.ollama).toEqual({ provider: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434', models: [], explicit: true });
    expect(c.defaultModel).toEqual({ provider: 'compat', model: 'mock-small' });
    expect(c.summarizerModel).toEqual({ provider: 'compat', model: 'mock-summarizer' });
    expect([...c.contextOverrides]).toEqual([
      ['compat:mock-small', 4000],
      ['ollama:qwen3:32b', 40960],
    ]);
    expect(c.clientBaseUrls).toEqual({ kind: 'list', loopback: true, hosts: [{ host: 'gpu.lan', port: 8000 }] });
  });

  it('OLLAMA_BASE_URL=off disables the probe', () => {
    expect(readServerConfig({ OLLAMA_BASE_URL: 'off' }).providers.ollama).toBeNull();
  });

  it('reports bad values as warnings without echoing secrets', () => {
    const c = readServerConfig({
      OPENAI_API_KEY: 'sk-secret-value',
      OPENAI_BASE_URL: 'http://169.254.169.254/',
      OPENAI_COMPATIBLE_BASE_URL: 'ftp://x',
      DEFAULT_MODEL: 'llama3',
      MODEL_CONTEXT_WINDOWS: 'gpt-4o=abc,=5,compat:x=100',
    });
    expect(c.providers.openai?.baseUrl).toBe('https://api.openai.com/v1');
    expect(c.providers.compat).toBeNull();
    expect(c.defaultModel).toBeUndefined();
    expect([...c.contextOverrides]).toEqual([['compat:x', 100]]);
    expect(c.warnings).toHaveLength(5);
    expect(c.warnings.join('\n')).not.toContain('sk-secret-value');
  });
});
