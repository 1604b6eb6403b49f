'use client';

import './settings.css';
import { useEffect, useRef, useState } from 'react';
import type { SessionRow } from '@/lib/db';
import { errorMessage } from '@/lib/errors';
import type { BranchLeaveDefault } from '@/lib/settings/appSettings';
import { parseChatForm, toChatForm, type ChatForm } from '@/lib/settings/chatSettings';
import { parseCompactionForm, toCompactionForm, windowNotes, type CompactionForm } from '@/lib/settings/compactionForm';
import { resolveModel } from '@/lib/flows/models';
import type { ModelInfo } from '@/lib/providers/listing';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { useModels } from '@/components/models/useModels';
import { useFlows } from '@/components/state/FlowsProvider';
import { useAppSettings } from '@/components/state/hooks';
import { SyncButton } from '@/components/sync/SyncButton';
import { useUi } from '@/components/state/uiStore';
import { ChatFields } from './ChatFields';
import { DialogHeader } from '@/components/common/DialogHeader';
import { StorageInfo } from './StorageInfo';

type Draft = CompactionForm;

/** `model`: the chat model whose window the settings are checked against (the open session's, else the default). */
function CompactionFields({ draft, onChange, legend, model }: { draft: Draft; onChange: (d: Draft) => void; legend: string; model: ModelInfo | undefined }) {
  const notes = windowNotes(draft, model?.contextWindow);
  const set = (k: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...draft, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
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
      {notes.length > 0 && (
        <div className="window-notes" role="note" aria-label={`Scaled to ${model!.id}’s window`}>
          <p className="small">With {model!.id}:</p>
          <ul className="small">
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </div>
      )}
      <label className="check">
        <input type="checkbox" checked={draft.reviewBeforeApply} onChange={set('reviewBeforeApply')} /> Review summaries before they apply (an automatic compaction waits for Apply; it applies on its own only when the context no longer fits)
      </label>
      <label className="check">
        <input type="checkbox" checked={draft.selfCheck} onChange={set('selfCheck')} /> Self-check summaries (one more model request that adds what the summary missed)
      </label>
      <label className="check">
        <input type="checkbox" checked={draft.maskToolOutput} onChange={set('maskToolOutput')} /> Mask old tool output first (a summary runs only when that is not enough)
      </label>
      <label className="field">
        <span>Protected recent tokens (tool output there is never masked)</span>
        <input type="number" min={0} value={draft.maskProtectTokens} onChange={set('maskProtectTokens')} />
      </label>
    </fieldset>
  );
}

/** Global defaults, this session's overrides, the summarizer, the way to Providers, and storage. */
export function SettingsDialog({ open, onClose, session }: { open: boolean; onClose: () => void; session: SessionRow | null }) {
  const ref = useRef<HTMLDialogElement>(null);
  const flows = useFlows();
  const settings = useAppSettings();
  const { data: models } = useModels();
  const [global, setGlobal] = useState<Draft>(toCompactionForm({}, settings.compaction));
  const [local, setLocal] = useState<Draft | null>(null);
  const [summarizerModel, setSummarizerModel] = useState(settings.summarizerModel);
  const [branchDefault, setBranchDefault] = useState<BranchLeaveDefault>(settings.branchLeaveDefault);
  const [chat, setChat] = useState<ChatForm>(toChatForm(settings.chat));
  const [error, setError] = useState<string | null>(null);
  const openProviders = useUi((s) => s.setProvidersOpen);
  const chatModel = resolveModel(models, session?.model);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      setGlobal(toCompactionForm({}, settings.compaction));
      setLocal(session?.compaction ? toCompactionForm(session.compaction, settings.compaction) : null);
      setSummarizerModel(settings.summarizerModel);
      setBranchDefault(settings.branchLeaveDefault);
      setChat(toChatForm(settings.chat));
      setError(null);
      d.showModal();
    }
    if (!open && d.open) d.close();
  }, [open, settings, session, flows]);

  async function save() {
    const g = parseCompactionForm(global);
    if (!g.ok) return setError(g.error);
    const l = local ? parseCompactionForm(local) : null;
    if (l && !l.ok) return setError(`This session: ${l.error}`);
    const c = parseChatForm(chat);
    if (!c.ok) return setError(`Chat defaults: ${c.error}`);
    try {
      await flows.saveSettings({
        app: { compaction: g.value, summarizerModel, branchLeaveDefault: branchDefault, chat: c.value },
        ...(session ? { session: { id: session.id, compaction: l?.ok ? l.value : undefined } } : {}),
      });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  }

  return (
    <dialog ref={ref} className="dialog sheet wide settings" aria-labelledby="settings-title" onClose={onClose}>
      <DialogHeader id="settings-title" title="Settings" onClose={onClose} />
      <div className="dialog-body settings-body">
        <CompactionFields legend="Compaction defaults" draft={global} onChange={setGlobal} model={chatModel} />
        {session && (
          <fieldset className="settings-group">
            <legend>This session</legend>
            <label className="check">
              <input
                type="checkbox"
                checked={local !== null}
                onChange={(e) => setLocal(e.target.checked ? { ...global } : null)}
              />{' '}
              Override the defaults for “{session.title}”
            </label>
            {local && <CompactionFields legend="Session compaction" draft={local} onChange={setLocal} model={chatModel} />}
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
            <select value={branchDefault} onChange={(e) => setBranchDefault(e.target.value as BranchLeaveDefault)}>
              <option value="ask">Ask every time</option>
              <option value="switch">Switch without a summary</option>
              <option value="summarize">Summarise the branch left behind</option>
            </select>
          </label>
        </fieldset>
        <fieldset className="settings-group">
          <legend>Models</legend>
          <p className="muted small">Connect OpenAI, Anthropic, Google, an OpenAI-compatible server or Ollama; keys stay in this browser.</p>
          <div className="row">
            <button type="button" className="btn" onClick={() => openProviders(true)}>
              Providers
            </button>
          </div>
        </fieldset>
        <ChatFields legend="Chat defaults" form={chat} onChange={setChat} />
        <SyncButton />
        <StorageInfo />
        <p className="muted small">Defaults: reserve {DEFAULT_COMPACTION_SETTINGS.reserveTokens}, keep recent {DEFAULT_COMPACTION_SETTINGS.keepRecentTokens}, tool results {DEFAULT_COMPACTION_SETTINGS.toolResultMaxChars} characters.</p>
      </div>
      {error && (
        <p role="alert" className="msg-error settings-error">
          {error}
        </p>
      )}
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
