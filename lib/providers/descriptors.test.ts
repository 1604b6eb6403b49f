import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lookupCatalog } from './catalog';
import { PROVIDER_IDS, PROVIDERS, defaultBaseUrl, type ProviderDescriptor } from './descriptors';
import { isConfigured, readServerConfig } from './env';
import { DEFAULT_TIMEOUTS } from './listing';
import { LIST_PROTOCOLS } from './listProtocols';
import { inferProvider } from './modelId';
import { SDK_ADAPTERS } from './sdkAdapters';
import { checkServerBaseUrl } from './urlPolicy';

const all = PROVIDER_IDS.map((id) => ({ id, d: PROVIDERS[id] as ProviderDescriptor }));

/** Every environment variable a descriptor reads. */
function variables(d: ProviderDescriptor): string[] {
  return [d.auth.kind === 'none' ? null : d.auth.env, d.baseUrl.from === 'default' ? null : d.baseUrl.env, d.labelEnv, d.modelsEnv].filter((v): v is string => !!v);
}

/** Bare ids each recognisable family is known by: its default models, and a few the catalog and older exports use. */
const BARE_IDS = [
  ...all.flatMap(({ d }) => d.defaultModels),
  'gpt-3.5-turbo',
  'chatgpt-4o-latest',
  'o1',
  'o3-mini',
  'GPT-4o',
  'claude-3-opus-20240229',
  'Claude-3-5-Sonnet-20241022',
  'gemini-1.5-pro-002',
];

describe('the provider descriptor table', () => {
  it('has unique labels, and no two descriptors read the same variable', () => {
    expect(new Set(all.map(({ d }) => d.label)).size).toBe(all.length);
    const vars = all.flatMap(({ d }) => variables(d));
    expect(new Set(vars).size).toBe(vars.length);
    for (const v of vars) expect(v).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it('bare-id recognisers are anchored, case-insensitive and stateless', () => {
    for (const { id, d } of all) {
      if (!d.unqualified) continue;
      expect(d.unqualified.source.startsWith('^'), id).toBe(true);
      expect(d.unqualified.flags, id).toBe('i');
    }
  });

  it('bare-id recognisers do not overlap: each known bare id is claimed by exactly one provider', () => {
    for (const bare of BARE_IDS) {
      const claims = all.filter(({ d }) => d.unqualified?.test(bare)).map(({ id }) => id);
      expect(claims, bare).toHaveLength(1);
      expect(inferProvider(bare), bare).toBe(claims[0]);
    }
    // A provider's own default models are its own.
    for (const { id, d } of all) if (d.unqualified) for (const m of d.defaultModels) expect(inferProvider(m), m).toBe(id);
    // Names of self-hosted models are nobody's.
    for (const bare of ['llama3.1:8b', 'qwen3:32b', 'mistral-large', 'openai/gpt-4o', 'deepseek-r1']) expect(inferProvider(bare), bare).toBeNull();
  });

  it('a provider with recognisable names owns a catalog family that knows its default models; the others look names up', () => {
    for (const { id, d } of all) {
      expect(d.unqualified !== null, id).toBe(d.catalog !== 'by-name');
      for (const m of d.defaultModels) expect(lookupCatalog(id, m), `${id}:${m}`).not.toBeNull();
    }
  });

  it('every SDK adapter, listing protocol and timeout class it names is implemented', () => {
    for (const { id, d } of all) {
      expect(Object.keys(SDK_ADAPTERS), id).toContain(d.sdk);
      expect(Object.keys(LIST_PROTOCOLS), id).toContain(d.listing);
      expect(DEFAULT_TIMEOUTS[`${d.listTimeout}Ms`], id).toBeGreaterThan(0);
    }
  });

  it('default base URLs are what the server-side check makes of them; an sdkPath is a path below them', () => {
    for (const { id, d } of all) {
      const url = defaultBaseUrl(d);
      if (url) expect(checkServerBaseUrl(url), id).toEqual({ ok: true, url });
      expect(d.sdkPath === '' || /^(\/[^/]+)+$/.test(d.sdkPath), id).toBe(true);
    }
  });

  it('reading an environment that sets every variable configures every provider from it', () => {
    const env: Record<string, string> = {};
    for (const { id, d } of all) {
      if (d.auth.kind !== 'none') env[d.auth.env] = `key-${id}`;
      if (d.baseUrl.from !== 'default') env[d.baseUrl.env] = `http://127.0.0.1:4${PROVIDER_IDS.indexOf(id)}00${d.sdkPath}`;
      if (d.labelEnv) env[d.labelEnv] = `Label ${id}`;
      if (d.modelsEnv) env[d.modelsEnv] = `${id}-a, ${id}-b`;
    }
    const config = readServerConfig(env);
    expect(config.warnings).toEqual([]);
    for (const { id, d } of all) {
      expect(isConfigured(config, id), id).toBe(true);
      expect(config.providers[id], id).toEqual({
        provider: id,
        label: d.labelEnv ? `Label ${id}` : d.label,
        // An sdkPath in the variable is cut back to the root the provider is configured by.
        baseUrl: d.baseUrl.from === 'default' ? d.baseUrl.url : `http://127.0.0.1:4${PROVIDER_IDS.indexOf(id)}00`,
        apiKey: d.auth.kind === 'none' ? undefined : `key-${id}`,
        models: d.modelsEnv ? [`${id}-a`, `${id}-b`] : [],
        explicit: true,
      });
    }
  });

  it('reading an empty environment: keyed providers keep their base URL but are not configured; probes are tried', () => {
    const config = readServerConfig({});
    for (const { id, d } of all) {
      const instance = config.providers[id];
      if (d.baseUrl.from === 'env') expect(instance, id).toBeNull();
      else expect(instance, id).toMatchObject({ baseUrl: d.baseUrl.url, explicit: d.baseUrl.from !== 'probe' });
      expect(isConfigured(config, id), id).toBe(d.baseUrl.from !== 'env' && d.auth.kind !== 'required');
    }
  });

  it('docs/providers.md names every provider and every variable', () => {
    const docs = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
    for (const { id, d } of all) {
      expect(docs, id).toContain(`\`${id}\``);
      for (const v of variables(d)) expect(docs, v).toContain(`\`${v}\``);
    }
  });
});
