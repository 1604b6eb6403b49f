'use client';

import './settings.css';
import { useId, useMemo, useState } from 'react';
import { providerRows, type ProviderRow } from '@/lib/flows/providers';
import { PROVIDER_FORM_SPECS, providerFormSpec, type ProviderDraft } from '@/lib/providers/browserProviders';
import type { ProviderId } from '@/lib/providers/descriptors';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useBrowserProviders, useModels, useProviderListings, useRecheckProviders } from '@/components/models/useModels';
import { useFlows } from '@/components/state/FlowsProvider';
import { useUi } from '@/components/state/uiStore';

/** One provider: a group named after it, its state as text, and for the browser's own, what can be done with it. */
function ProviderGroup({ row, onRecheck, onRemove }: { row: ProviderRow; onRecheck: () => void; onRemove?: () => void }) {
  const headingId = useId();
  return (
    <section role="group" aria-labelledby={headingId} className="settings-group provider-row" data-state={row.state}>
      <h3 id={headingId} className="provider-name">
        {row.label}
      </h3>
      <p className="muted small">{row.origin === 'server' ? 'Set up on this app’s server' : 'Entered in this browser'}</p>
      <p role="status" className={row.state === 'connected' || row.state === 'checking' ? '' : 'msg-error'}>
        {row.text}
      </p>
      {onRemove && (
        <div className="row">
          <button type="button" className="btn" aria-label={`Check ${row.label} again`} onClick={onRecheck}>
            Check again
          </button>
          <button type="button" className="btn" aria-label={`Remove ${row.label}`} onClick={onRemove}>
            Remove
          </button>
        </div>
      )}
    </section>
  );
}

const EMPTY_DRAFT: ProviderDraft = { provider: 'openai', label: '', baseUrl: '', apiKey: '' };

/** Add a provider: its kind, then only the fields that kind needs. The form keeps what was typed until it is stored. */
function AddProviderForm({ takenLabels }: { takenLabels: string[] }) {
  const flows = useFlows();
  const [draft, setDraft] = useState<ProviderDraft>(EMPTY_DRAFT);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const spec = providerFormSpec(draft.provider);
  const set = (k: keyof ProviderDraft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setDraft({ ...draft, [k]: e.target.value });

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    const out = await flows.addProvider(draft, takenLabels);
    setBusy(false);
    if (!out.ok) return setError(out.error);
    setError(null);
    setDraft({ ...EMPTY_DRAFT, provider: draft.provider });
  }

  const urlPlaceholder = spec.suggestedBaseUrl ?? spec.defaultBaseUrl ?? 'http://127.0.0.1:8080/v1';
  return (
    <form className="settings-group" aria-label="Add a provider" onSubmit={submit}>
      <h3 className="provider-name">Add a provider</h3>
      <label className="field">
        <span>Kind</span>
        <select value={draft.provider} onChange={(e) => setDraft({ ...EMPTY_DRAFT, provider: e.target.value as ProviderId })}>
          {PROVIDER_FORM_SPECS.map((s) => (
            <option key={s.provider} value={s.provider}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Name (optional)</span>
        <input type="text" value={draft.label} placeholder={spec.label} maxLength={60} onChange={set('label')} />
      </label>
      {spec.baseUrl !== 'none' && (
        <label className="field">
          <span>Base URL{spec.baseUrl === 'optional' ? ` (optional; empty means ${spec.defaultBaseUrl})` : ''}</span>
          <input type="url" value={draft.baseUrl} placeholder={urlPlaceholder} onChange={set('baseUrl')} />
          <span className="muted small">
            This app’s server calls this address. By default only addresses on the server’s own machine (localhost, 127.0.0.1) are allowed; its operator can
            allow others with ALLOW_CLIENT_BASE_URLS.
          </span>
        </label>
      )}
      {spec.apiKey !== 'none' && (
        <label className="field">
          <span>API key{spec.apiKey === 'optional' ? ' (if the server needs one)' : ''}</span>
          <input type="password" autoComplete="off" spellCheck={false} value={draft.apiKey} onChange={set('apiKey')} />
        </label>
      )}
      {error && (
        <p role="alert" className="msg-error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy}>
          Add provider
        </button>
      </div>
    </form>
  );
}

/**
 * Settings → Providers: every provider with its state, the server's and this
 * browser's, and a form to add one. A provider added here is listed at once
 * and its models join the picker without a reload.
 */
export function ProvidersDialog() {
  const open = useUi((s) => s.providersOpen);
  const setOpen = useUi((s) => s.setProvidersOpen);
  const ref = useModalDialog(open);
  const flows = useFlows();
  const { data } = useModels();
  const providers = useBrowserProviders();
  const listings = useProviderListings(providers ?? []);
  const recheck = useRecheckProviders();
  const server = useMemo(() => (data ? { ...data, providers: data.providers.filter((p) => !p.instance), models: data.models.filter((m) => !m.instance) } : undefined), [data]);
  const byId = useMemo(() => new Map(listings.map((l) => [l.provider.instance ?? '', l])), [listings]);
  const { rows, notConfigured } = providerRows(server, providers ?? [], byId);
  const serverLabels = rows.filter((r) => r.origin === 'server').map((r) => r.label);
  const ollamaFound = rows.some((r) => r.origin === 'server' && r.key === 'ollama');

  return (
    <dialog ref={ref} className="dialog settings" aria-labelledby="providers-title" onClose={() => setOpen(false)}>
      <h2 id="providers-title">Providers</h2>
      <div className="settings-body">
        <p className="muted small">
          Add a provider and its models appear in the model picker. Keys stay in this browser and go only to this app’s server, with the request that uses
          them; the server never logs them.
        </p>
        {rows.map((row) => (
          <ProviderGroup key={row.key} row={row} onRecheck={() => void recheck(row.provider?.id)} onRemove={row.provider ? () => void flows.removeProvider(row.provider!) : undefined} />
        ))}
        {notConfigured.length > 0 && <p className="muted small">Not configured on this server: {notConfigured.join(', ')}.</p>}
        {!ollamaFound && <p className="muted small">An Ollama running on the server’s machine (127.0.0.1:11434) is found automatically.</p>}
        <AddProviderForm takenLabels={serverLabels} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={() => void recheck()}>
          Check all again
        </button>
        <button type="button" className="btn primary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </dialog>
  );
}
