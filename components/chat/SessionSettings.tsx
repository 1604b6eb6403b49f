'use client';

import { SlidersHorizontal } from 'lucide-react';
import { useState } from 'react';
import type { SessionFlows } from '@/lib/flows/app';
import { formatCount } from '@/lib/format/numbers';
import type { ModelInfo } from '@/lib/providers/listing';
import { describeChatSettings, parseChatForm, toChatForm, type ChatForm, type ChatSettings, type SessionChatFields } from '@/lib/settings/chatSettings';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { ChatFields } from '@/components/settings/ChatFields';

const SOURCE_WORDS: Record<ModelInfo['contextWindowSource'], string> = {
  provider: 'as the provider reports it',
  catalog: 'from the model catalog',
  override: 'set on the server',
  fallback: 'assumed: the provider does not say',
  user: 'set by you',
};

/** The form: this session's instructions, temperature and reply length, and the window of the model in use. */
function SessionSettingsDialog({
  session,
  own,
  defaults,
  model,
  onClose,
}: {
  session: SessionFlows;
  own: SessionChatFields;
  defaults: ChatSettings;
  model: ModelInfo | undefined;
  onClose: () => void;
}) {
  const ref = useModalDialog(true);
  const flows = useFlows();
  const [form, setForm] = useState<ChatForm>(toChatForm(own));
  const [windowText, setWindowText] = useState(model?.contextWindowSource === 'user' ? String(model.contextWindow) : '');
  const [error, setError] = useState<string | null>(null);
  const placeholders = toChatForm(defaults);

  async function save() {
    const parsed = parseChatForm(form);
    if (!parsed.ok) return setError(parsed.error);
    const raw = windowText.trim().replace(/[_\s,]/g, '');
    const tokens = raw ? Number(raw) : null;
    if (tokens !== null && !Number.isInteger(tokens)) return setError('The context window is a whole number of tokens.');
    if (!(await session.saveChatSettings(parsed.value))) return;
    const wasOwn = model?.contextWindowSource === 'user' ? model.contextWindow : null;
    if (model && tokens !== wasOwn && !(await flows.setContextWindow(model.id, tokens))) return;
    onClose();
  }

  return (
    <dialog ref={ref} className="dialog settings" aria-labelledby="session-options-title" onClose={onClose}>
      <h2 id="session-options-title">Session options</h2>
      <div className="settings-body">
        <ChatFields
          legend="This session"
          form={form}
          onChange={setForm}
          placeholders={{ systemPrompt: placeholders.systemPrompt || 'None. The defaults are in Settings.', temperature: placeholders.temperature, maxOutputTokens: placeholders.maxOutputTokens }}
        />
        {model && (
          <fieldset className="settings-group">
            <legend>Context window</legend>
            <label className="field">
              <span>Context window of {model.name}, in tokens (empty: what the provider, the catalog or the fallback says)</span>
              <input type="number" min={256} step={1} inputMode="numeric" value={windowText} placeholder={String(model.contextWindow)} onChange={(e) => setWindowText(e.target.value)} />
            </label>
            <p className="muted small">
              Now {formatCount(model.contextWindow)} tokens, {SOURCE_WORDS[model.contextWindowSource]}. The meter and compaction plan with it; set it to what your server
              really serves.
            </p>
          </fieldset>
        )}
      </div>
      {error && (
        <p role="alert" className="msg-error">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn primary" onClick={() => void save()}>
          Save
        </button>
      </div>
    </dialog>
  );
}

/**
 * In the session header: what this session's requests carry besides the
 * conversation (instructions, temperature, reply length), in a few words;
 * pressing it opens the form.
 */
export function SessionSettings({
  session,
  own,
  effective,
  defaults,
  model,
}: {
  session: SessionFlows;
  own: SessionChatFields;
  effective: ChatSettings;
  defaults: ChatSettings;
  model: ModelInfo | undefined;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="btn ghost session-options"
        aria-label="Session options"
        aria-haspopup="dialog"
        title={effective.systemPrompt ? `Instructions: ${effective.systemPrompt.slice(0, 200)}` : `Session options: ${describeChatSettings(effective)}`}
        onClick={() => setOpen(true)}
      >
        <SlidersHorizontal aria-hidden="true" className="icon" />
        <span className="session-options-summary muted small">{describeChatSettings(effective)}</span>
      </button>
      {open && <SessionSettingsDialog session={session} own={own} defaults={defaults} model={model} onClose={() => setOpen(false)} />}
    </>
  );
}
