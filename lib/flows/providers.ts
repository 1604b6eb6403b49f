import { errorMessage } from '@/lib/errors';
import { checkProviderDraft, newInstanceId, type BrowserProvider, type ProviderDraft } from '@/lib/providers/browserProviders';
import type { ModelInfo, ModelsResponse, ProviderListingResponse, ProviderStatus } from '@/lib/providers/listing';
import type { FlowPorts } from './ports';

/**
 * Settings → Providers: adding and removing the providers entered in this
 * browser, asking the app's server for their state and models, and what the
 * panel says about each provider, the server's included.
 */

export type AddProviderResult = { ok: true; provider: BrowserProvider } | { ok: false; error: string };

/**
 * Stores a provider typed into the form. `takenLabels` are the names the
 * picker already shows for the server's providers, so two groups never share
 * a name. Nothing is stored when the draft is incomplete or storage fails;
 * the form keeps what was typed and shows the error.
 */
export async function addProvider(ports: FlowPorts, draft: ProviderDraft, takenLabels: readonly string[] = []): Promise<AddProviderResult> {
  try {
    const existing = await ports.store.loadBrowserProviders();
    const check = checkProviderDraft(draft, [...existing.map((p) => p.label), ...takenLabels]);
    if (!check.ok) return check;
    const ids = new Set(existing.map((p) => p.id));
    let id = newInstanceId();
    while (ids.has(id)) id = newInstanceId();
    const provider: BrowserProvider = { id, ...check.value, addedAt: (ports.now ?? Date.now)() };
    await ports.store.saveBrowserProvider(provider);
    return { ok: true, provider };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

export async function removeProvider(ports: FlowPorts, p: Pick<BrowserProvider, 'id' | 'label'>): Promise<boolean> {
  try {
    await ports.store.removeBrowserProvider(p.id);
    ports.notify.success(`Removed “${p.label}”; its key is no longer kept in this browser.`);
    return true;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return false;
  }
}

/**
 * The provider's state and models. When this app's own server cannot be
 * asked (it is down, the page is offline), that is what the provider's state
 * says: the user must not read it as the provider's fault.
 */
export async function listProvider(ports: FlowPorts, p: BrowserProvider): Promise<ProviderListingResponse> {
  try {
    return await ports.transport.listProvider(p);
  } catch (err) {
    const status: ProviderStatus = { id: p.provider, instance: p.id, label: p.label, configured: true, reachable: false, state: 'unreachable', error: `This app’s server could not be asked: ${errorMessage(err)}` };
    return { provider: status, models: [] };
  }
}

/** A model with the user's own window, where they set one: it wins over the provider, the catalog and the fallback. */
export function withContextWindow(m: ModelInfo, windows: Readonly<Record<string, number>>): ModelInfo {
  const own = windows[m.id];
  if (!own) return m;
  return { ...m, contextWindow: own, contextWindowSource: 'user', ...(m.maxOutputTokens !== undefined ? { maxOutputTokens: Math.min(m.maxOutputTokens, own) } : {}) };
}

/**
 * Everything the picker offers: the server's providers, then the browser's
 * in the order they were added, with the windows the user set. undefined
 * until the server's list has arrived, as before.
 */
export function mergeModels(server: ModelsResponse | undefined, listings: readonly ProviderListingResponse[], windows: Readonly<Record<string, number>>): ModelsResponse | undefined {
  if (!server && listings.length === 0) return undefined;
  const models = [...(server?.models ?? []), ...listings.flatMap((l) => l.models)].map((m) => withContextWindow(m, windows));
  const defaultModel = server?.defaultModel ?? models[0]?.id;
  const warnings = [...(server?.warnings ?? []), ...listings.flatMap((l) => l.warnings ?? [])];
  return {
    providers: [...(server?.providers ?? []), ...listings.map((l) => l.provider)],
    models,
    ...(defaultModel ? { defaultModel } : {}),
    ...(server?.summarizerModel ? { summarizerModel: server.summarizerModel } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The provider's state in a sentence. "Not configured" (nothing to try) and
 * "unreachable" (set up, but asking failed) are different things to fix, so
 * they read differently; a rejected key and a base URL this server may not
 * call say so.
 */
export function providerStateText(status: ProviderStatus | undefined, modelCount: number): string {
  if (!status) return 'Checking…';
  const why = status.error ? `: ${status.error}` : '';
  switch (status.state) {
    case 'connected':
      return `Connected (${plural(modelCount, 'model')})`;
    case 'key_rejected':
      return `Key rejected${why}`;
    case 'unreachable':
      return `Unreachable${why}`;
    case 'refused':
      return `Not allowed${why}`;
    case 'not_configured':
      return status.instance ? `Not configured${why}` : 'Not configured on this server';
  }
}

/** One row of the Providers panel. */
export interface ProviderRow {
  /** "openai", or "compat@k3x9" for a browser-entered one. */
  key: string;
  label: string;
  origin: 'server' | 'browser';
  state: ProviderStatus['state'] | 'checking';
  text: string;
  /** The browser-entered provider behind the row. */
  provider?: BrowserProvider;
}

/**
 * The panel's rows: the server's providers that are set up (connected or
 * failing), then this browser's, each with its state; and the names of the
 * server's providers that are not configured, for one line under them.
 */
export function providerRows(
  server: ModelsResponse | undefined,
  browser: readonly BrowserProvider[],
  listings: ReadonlyMap<string, ProviderListingResponse>,
): { rows: ProviderRow[]; notConfigured: string[] } {
  const rows: ProviderRow[] = [];
  const notConfigured: string[] = [];
  for (const status of server?.providers ?? []) {
    if (status.instance) continue;
    if (status.state === 'not_configured') {
      notConfigured.push(status.label);
      continue;
    }
    const count = server!.models.filter((m) => m.provider === status.id && !m.instance).length;
    rows.push({ key: status.id, label: status.label, origin: 'server', state: status.state, text: providerStateText(status, count) });
  }
  for (const p of browser) {
    const listing = listings.get(p.id);
    rows.push({
      key: `${p.provider}@${p.id}`,
      label: p.label,
      origin: 'browser',
      state: listing ? listing.provider.state : 'checking',
      text: providerStateText(listing?.provider, listing?.models.length ?? 0),
      provider: p,
    });
  }
  return { rows, notConfigured };
}
