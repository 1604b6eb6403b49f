'use client';

import { useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { updateSession, type SessionRow } from '@/lib/db';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '@/lib/session/types';
import { useModels } from '@/components/models/useModels';
import { clientCredentials, saveClientCredentials, type ClientCredentials } from '@/components/client/credentials';
import { saveAppSettings, useAppSettings, type AppSettings } from './useSettings';
import { StorageInfo } from './StorageInfo';

type Draft = {
  enabled: boolean;
  reserveTokens: string;
  keepRecentTokens: string;
  thresholdPercent: string;
  toolResultMaxChars: string;
};

function toDraft(c: Partial<CompactionSettings>, base: CompactionSettings): Draft {
  const v = { ...base, ...c };
  return {
    enabled: v.enabled,
    reserveTokens: String(v.reserveTokens),
    keepRecentTokens: String(v.keepRecentTokens),
    thresholdPercent: v.thresholdPercent !== undefined ? String(Math.round(v.thresholdPercent * 100)) : '',
    toolResultMaxChars: String(v.toolResultMaxChars),
  };
}

function fromDraft(d: Draft): CompactionSettings | string {
  const int = (s: string, name: string, min = 0) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}.`);
    return n;
  };
  try {
    const pct = d.thresholdPercent.trim();
    const threshold = pct === '' ? undefined : int(pct, 'Threshold', 1);
    if (threshold !== undefined && threshold > 100) throw new Error('Threshold must be at most 100 %.');
    return {
      enabled: d.enabled,
      reserveTokens: int(d.reserveTokens, 'Reserve tokens'),
      keepRecentTokens: int(d.keepRecentTokens, 'Keep recent tokens'),
      toolResultMaxChars: int(d.toolResultMaxChars, 'Tool result max characters'),
      ...(threshold !== undefined ? { thresholdPercent: threshold / 100 } : {}),
    };
  } catch (err) {
    return (err as Error).message;
  }
}

function CompactionFields({ draft, onChange, legend }: { draft: Draft; onChange: (d: Draft) => void; legend: string }) {
  const set = (k: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...draft, [k]: k === 'enabled' ? e.target.checked : e.target.value });
  return (
    <fieldset className="settings-group">
      <legend>{legend}</legend>
      <label className="check">
        <input type="checkbox" checked={draft.enabled} onChange={set('enabled')} /> Auto-compaction
      </label>
      <label className="field">
        <span>Reserve tokens (room kept for the next prompt and reply)</span>
        <input type="number" min={0} value={draft.reserveTokens} onChange={set('reserveTokens')} />
      </label>
      <label className="field">
        <span>Keep recent tokens (kept verbatim after a compaction)</span>
        <input type="number" min={0} value={draft.keepRecentTokens} onChange={set('keepRecentTokens')} />
      </label>
      <label className="field">
        <span>Threshold, % of the window (optional; the lower trigger wins)</span>
        <input type="number" min={1} max={100} value={draft.thresholdPercent} onChange={set('thresholdPercent')} />
      </label>
      <label className="field">
        <span>Tool result max characters (in the summarizer’s input)</span>
        <input type="number" min={0} value={draft.toolResultMaxChars} onChange={set('toolResultMaxChars')} />
      </label>
    </fieldset>
  );
}

/** Global defaults, this session's overrides, the summarizer, typed provider credentials, and storage. */
export function SettingsDialog({ open, onClose, session }: { open: boolean; onClose: () => void; session: SessionRow | null }) {
  const ref = useRef<HTMLDialogElement>(null);
  const settings = useAppSettings();
  const { data: models } = useModels();
  const [global, setGlobal] = useState<Draft>(toDraft({}, settings.compaction));
  const [local, setLocal] = useState<Draft | null>(null);
  const [summarizerModel, setSummarizerModel] = useState(settings.summarizerModel);
  const [branchDefault, setBranchDefault] = useState<AppSettings['branchLeaveDefault']>(settings.branchLeaveDefault);
  const [creds, setCreds] = useState<ClientCredentials>({});
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      setGlobal(toDraft({}, settings.compaction));
      setLocal(session?.compaction ? toDraft(session.compaction, settings.compaction) : null);
      setSummarizerModel(settings.summarizerModel);
      setBranchDefault(settings.branchLeaveDefault);
      setError(null);
      void clientCredentials().then((c) => setCreds(c ?? {}));
      d.showModal();
    }
    if (!open && d.open) d.close();
  }, [open, settings, session]);

  async function save() {
    const g = fromDraft(global);
    if (typeof g === 'string') return setError(g);
    const l = local ? fromDraft(local) : null;
    if (typeof l === 'string') return setError(`This session: ${l}`);
    try {
      await saveAppSettings({ compaction: g, summarizerModel, branchLeaveDefault: branchDefault });
      if (session) await updateSession(session.id, { compaction: l ?? undefined });
      await saveClientCredentials({ ...(creds.apiKey ? { apiKey: creds.apiKey } : {}), ...(creds.baseUrl ? { baseUrl: creds.baseUrl } : {}) });
      toast.success('Settings saved');
      onClose();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  return (
    <dialog ref={ref} className="dialog settings" aria-labelledby="settings-title" onClose={onClose}>
      <h2 id="settings-title">Settings</h2>
      <div className="settings-body">
        <CompactionFields legend="Compaction defaults" draft={global} onChange={setGlobal} />
        {session && (
          <fieldset className="settings-group">
            <legend>This session</legend>
            <label className="check">
              <input
                type="checkbox"
                checked={local !== null}
                onChange={(e) => setLocal(e.target.checked ? toDraft({}, fromDraft(global) as CompactionSettings) : null)}
              />{' '}
              Override the defaults for “{session.title}”
            </label>
            {local && <CompactionFields legend="Session compaction" draft={local} onChange={setLocal} />}
          </fieldset>
        )}
        <fieldset className="settings-group">
          <legend>Summaries</legend>
          <label className="field">
            <span>Summarizer model</span>
            <select value={summarizerModel} onChange={(e) => setSummarizerModel(e.target.value)}>
              <option value="">{models?.summarizerModel ? `Server default (${models.summarizerModel})` : 'Same as the chat model'}</option>
              {models?.models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>When leaving a branch in the tree</span>
            <select value={branchDefault} onChange={(e) => setBranchDefault(e.target.value as AppSettings['branchLeaveDefault'])}>
              <option value="ask">Ask every time</option>
              <option value="switch">Switch without a summary</option>
              <option value="summarize">Summarise the branch left behind</option>
            </select>
          </label>
        </fieldset>
        <fieldset className="settings-group">
          <legend>Your own provider key (optional)</legend>
          <p className="muted small">Kept in this browser and sent only to this app’s server, with the request that uses it. Never logged.</p>
          <label className="field">
            <span>API key</span>
            <input type="password" autoComplete="off" value={creds.apiKey ?? ''} onChange={(e) => setCreds({ ...creds, apiKey: e.target.value })} />
          </label>
          <label className="field">
            <span>Base URL (e.g. a local Ollama; the server’s policy decides what is allowed)</span>
            <input type="text" value={creds.baseUrl ?? ''} placeholder="http://127.0.0.1:11434/v1" onChange={(e) => setCreds({ ...creds, baseUrl: e.target.value })} />
          </label>
        </fieldset>
        <StorageInfo />
        <p className="muted small">Defaults: reserve {DEFAULT_COMPACTION_SETTINGS.reserveTokens}, keep recent {DEFAULT_COMPACTION_SETTINGS.keepRecentTokens}, tool results {DEFAULT_COMPACTION_SETTINGS.toolResultMaxChars} characters.</p>
      </div>
      {error && <p role="alert" className="msg-error">{error}</p>}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn primary" onClick={save}>
          Save settings
        </button>
      </div>
    </dialog>
  );
}
