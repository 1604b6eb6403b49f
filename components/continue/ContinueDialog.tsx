'use client';

import './continue.css';
import { useEffect, useRef, useState } from 'react';
import { Markdown } from '@/components/common/Markdown';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { useRun } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import type { SessionFlows } from '@/lib/flows/app';
import type { ContinuationDraft } from '@/lib/flows/continueSession';
import type { EntryId } from '@/lib/session/types';

/**
 * "Continue in new session" from an entry: the summary of the conversation up
 * to it streams in, then the user reviews and edits it (and the title) before
 * anything is created. Cancel at any point changes nothing.
 */
export function ContinueDialog({ session, entryId, onClose }: { session: SessionFlows; entryId: EntryId; onClose: () => void }) {
  const ref = useModalDialog();
  const flows = useFlows();
  const selectSession = useUi((s) => s.selectSession);
  const run = useRun(session.sessionId);
  const [draft, setDraft] = useState<ContinuationDraft | null>(null);
  const [summary, setSummary] = useState('');
  const [title, setTitle] = useState('');
  const [starting, setStarting] = useState(false);
  const started = useRef<EntryId | null>(null);

  // One summary per opening (a second effect run in development must not start another).
  useEffect(() => {
    if (started.current === entryId) return;
    started.current = entryId;
    void session.draftContinuation(entryId).then((d) => {
      if (!d) return onClose();
      setDraft(d);
      setSummary(d.summary);
      setTitle(d.title);
    });
  }, [session, entryId, onClose]);

  function cancel() {
    if (run?.kind === 'continuation') run.abort.abort();
    onClose();
  }

  async function start() {
    if (!draft) return;
    setStarting(true);
    const id = await flows.startContinuation(draft, { summary, title });
    setStarting(false);
    if (!id) return;
    onClose();
    selectSession(id);
  }

  return (
    <dialog
      ref={ref}
      className="dialog continue-dialog"
      aria-labelledby="continue-title"
      onCancel={(e) => {
        e.preventDefault();
        cancel();
      }}
    >
      <h2 id="continue-title">Continue in new session</h2>
      {!draft ? (
        <section aria-busy="true" aria-label="Summary in progress">
          <p className="muted">{run?.kind === 'continuation' ? (run.status ?? 'Summarising…') : 'Summarising…'}</p>
          {run?.kind === 'continuation' && run.text && (
            <div className="continue-stream">
              <Markdown text={run.text} />
            </div>
          )}
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={cancel}>
              Cancel
            </button>
          </div>
        </section>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void start();
          }}
        >
          <p className="muted small">
            The new session starts from this summary of “{draft.sourceTitle}” up to the message you chose, and links back to it. Edit it before the first message: it is all the model will know.
          </p>
          <label className="field">
            <span>Title</span>
            <input value={title} onChange={(e) => setTitle(e.target.value)} />
          </label>
          <label className="field">
            <span>Summary for the new session</span>
            <textarea className="continue-summary" value={summary} rows={14} onChange={(e) => setSummary(e.target.value)} />
          </label>
          <div className="dialog-actions">
            <button type="submit" className="btn primary" disabled={starting || !summary.trim()}>
              Start new session
            </button>
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
