/**
 * Every provider the app speaks to, one descriptor each: pure data that the
 * rest of lib/providers (configuration, listing, model resolution, catalog)
 * and lib/tokens (tokenizers) read instead of naming providers themselves.
 *
 * The behaviour behind each protocol name is implemented once: SDK adapters
 * in sdkAdapters.ts, listing protocols in listProtocols.ts, tokenizer rules in
 * lib/tokens/tokenizerFor.ts. A provider that speaks an existing protocol
 * (a hosted OpenAI-style API, say) is therefore one more entry here plus its
 * tests (docs/providers.md, "Adding a provider").
 *
 * No imports: the token worker loads this file through modelId.ts, and it must
 * stay free of the AI SDK and of anything that touches the network.
 */

/** Which AI SDK package builds the provider's language model. */
export type SdkAdapterName = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

/** How the provider's models are listed. */
export type ListProtocolName = 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'ollama';

/**
 * How the provider's models are counted:
 * - openai: OpenAI's own tokenizers, exact for known names; a name we do not
 *   know yet is a new model, and new models ship on o200k (not exact);
 * - router: serves whatever it is given, so an OpenAI model name (a proxy or
 *   router) counts like OpenAI, anything else like a local model;
 * - claude, gemini: estimated, with the vendor's image formula;
 * - local: estimated; local models have tokenizers of their own.
 */
export type TokenizerFamily = 'openai' | 'router' | 'claude' | 'gemini' | 'local';

/** Which part of catalog.ts knows the provider's windows. */
export type CatalogFamily = 'openai' | 'anthropic' | 'google';

/** Which deadline its listing gets (ListTimeouts in listing.ts). */
export type ListTimeoutClass = 'hosted' | 'compat' | 'ollama';

/** Where a provider's key comes from, and whether it can be used without one. */
type AuthSpec =
  /** `name` is how messages call the key ("No OpenAI API key: …"). */
  | { kind: 'required'; env: string; name: string }
  | { kind: 'optional'; env: string }
  | { kind: 'none' };

/** Where a provider's base URL comes from. */
type BaseUrlSpec =
  /** Always the vendor's API. */
  | { from: 'default'; url: string }
  /** The vendor's API unless the variable names a gateway or proxy. */
  | { from: 'env-or-default'; env: string; url: string }
  /** Only what the variable names: without it the provider is not set up. */
  | { from: 'env'; env: string }
  /** Probed at `url` unless the variable names another address or says "off"; a failed default probe is not an error. */
  | { from: 'probe'; env: string; url: string };

export interface ProviderDescriptor {
  label: string;
  /** Bare model ids this provider claims (DEFAULT_MODEL=gpt-4o, ids from older exports); null when its names are not recognisable. */
  unqualified: RegExp | null;
  tokenizer: TokenizerFamily;
  sdk: SdkAdapterName;
  listing: ListProtocolName;
  listTimeout: ListTimeoutClass;
  auth: AuthSpec;
  baseUrl: BaseUrlSpec;
  /**
   * Where the SDK's API lives below the configured URL ('' when it is the URL
   * itself). Ollama is configured by its root, which its own listing needs,
   * and speaks the OpenAI protocol under /v1; a URL ending in it is cut back.
   */
  sdkPath: string;
  /** Variable that renames the provider in the picker (an OpenAI-compatible server's own name), or null. */
  labelEnv: string | null;
  /** Variable listing models to offer besides (and when it cannot list) what the server lists, or null. */
  modelsEnv: string | null;
  /** The catalog family of its model names, or 'by-name' for servers that serve other vendors' models (routers, local). */
  catalog: CatalogFamily | 'by-name';
  /** Offered when a configured provider's list endpoint fails. */
  defaultModels: readonly string[];
}

const TABLE = {
  openai: {
    label: 'OpenAI',
    unqualified: /^(gpt-|chatgpt-|o\d(?:-|$))/i,
    tokenizer: 'openai',
    sdk: 'openai',
    listing: 'openai',
    listTimeout: 'hosted',
    auth: { kind: 'required', env: 'OPENAI_API_KEY', name: 'OpenAI API key' },
    baseUrl: { from: 'env-or-default', env: 'OPENAI_BASE_URL', url: 'https://api.openai.com/v1' },
    sdkPath: '',
    labelEnv: null,
    modelsEnv: null,
    catalog: 'openai',
    defaultModels: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'gpt-5', 'gpt-5-mini', 'o4-mini'],
  },
  anthropic: {
    label: 'Anthropic',
    unqualified: /^claude-/i,
    tokenizer: 'claude',
    sdk: 'anthropic',
    listing: 'anthropic',
    listTimeout: 'hosted',
    auth: { kind: 'required', env: 'ANTHROPIC_API_KEY', name: 'Anthropic API key' },
    baseUrl: { from: 'default', url: 'https://api.anthropic.com/v1' },
    sdkPath: '',
    labelEnv: null,
    modelsEnv: null,
    catalog: 'anthropic',
    defaultModels: ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'],
  },
  google: {
    label: 'Google Gemini',
    unqualified: /^gemini-/i,
    tokenizer: 'gemini',
    sdk: 'google',
    listing: 'google',
    listTimeout: 'hosted',
    auth: { kind: 'required', env: 'GOOGLE_GENERATIVE_AI_API_KEY', name: 'Google API key' },
    baseUrl: { from: 'default', url: 'https://generativelanguage.googleapis.com/v1beta' },
    sdkPath: '',
    labelEnv: null,
    modelsEnv: null,
    catalog: 'google',
    defaultModels: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.0-flash'],
  },
  compat: {
    label: 'OpenAI-compatible',
    unqualified: null,
    tokenizer: 'router',
    sdk: 'openai-compatible',
    listing: 'openai-compatible',
    listTimeout: 'compat',
    auth: { kind: 'optional', env: 'OPENAI_COMPATIBLE_API_KEY' },
    baseUrl: { from: 'env', env: 'OPENAI_COMPATIBLE_BASE_URL' },
    sdkPath: '',
    labelEnv: 'OPENAI_COMPATIBLE_NAME',
    modelsEnv: 'OPENAI_COMPATIBLE_MODELS',
    catalog: 'by-name',
    defaultModels: [],
  },
  ollama: {
    label: 'Ollama',
    unqualified: null,
    tokenizer: 'local',
    sdk: 'openai-compatible',
    listing: 'ollama',
    listTimeout: 'ollama',
    auth: { kind: 'none' },
    baseUrl: { from: 'probe', env: 'OLLAMA_BASE_URL', url: 'http://127.0.0.1:11434' },
    sdkPath: '/v1',
    labelEnv: null,
    modelsEnv: null,
    catalog: 'by-name',
    defaultModels: [],
  },
} as const satisfies Record<string, ProviderDescriptor>;

export type ProviderId = keyof typeof TABLE;

/** The descriptors by provider id, in the order the picker lists providers. */
export const PROVIDERS: { readonly [K in ProviderId]: ProviderDescriptor } = TABLE;

export const PROVIDER_IDS = Object.keys(TABLE) as readonly ProviderId[];

/** The base URL used when the environment names none; undefined for servers known only by the address they are given. */
export function defaultBaseUrl(d: ProviderDescriptor): string | undefined {
  return d.baseUrl.from === 'env' ? undefined : d.baseUrl.url;
}
