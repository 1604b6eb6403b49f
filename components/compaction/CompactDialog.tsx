'use client';

import './compaction.css';
import { FoldVertical } from 'lucide-react';
import { useEffect, useState } from 'react';
import { DialogHeader } from '@/components/common/DialogHeader';
import { useModalDialog } from '@/components/common/useModalDialog';
import { Markdown } from '@/components/common/Markdown';
import { formatCount } from '@/lib/format/numbers';
import { useRun } from '@/components/state/hooks';
import { compactionLimit } from '@/lib/compaction/policy';
import type { CompactionPreview } from '@/lib/compaction/prepare';
import { noCompactionMessage } from '@/lib/compaction/reasons';
import { errorMessage } from '@/lib/errors';
import type { SessionFlows } from '@/lib/flows/app';

/**
 * Manual compaction: shows what will be summarised and what kept (with token
 * figures) before anything happens, takes optional focus instructions, then
 * streams the summary here. Closing or cancelling mid-way changes nothing.
 */
export function CompactDialog({ session, onClose }: { session: SessionFlows; onClose: () => void }) {
  const ref = useModalDialog();
  const [preview, setPreview] = useState<CompactionPreview | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [instructions, setInstructions] = useState('');
  const run = useRun(session.sessionId);
  const running = run?.kind === 'compaction';

  // Mounted only while open: the preview is computed once, when it opens.
  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const p = await session.previewCompaction();
        if (!cancelled) setPreview(p);
      } catch (err) {
        if (!cancelled) setPreviewError(errorMessage(err));
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [session]);

  async function start() {
    const id = await session.compact({ reason: 'manual', ...(instructions.trim() ? { instructions: instructions.trim() } : {}) });
    if (id) {
      setInstructions('');
      onClose();
    }
  }

  const { summarizer, chatModel } = session.env();
  const summarizerLabel = summarizer ? summarizer.id : 'built-in extractive summarizer (no model connected)';
  const close = () => {
    if (running) run.abort.abort();
    onClose();
  };

  return (
    <dialog
      ref={ref}
      className="dialog sheet wide"
      aria-labelledby="compact-title"
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
    >
      <DialogHeader id="compact-title" title="Compact context" onClose={close} />
      <div className="dialog-body">
        <p className="muted small">Older messages become a structured summary; the recent ones stay word for word. Nothing is deleted: the originals stay in the session, and the summary can be undone.</p>
        {previewError && <p role="alert">Could not compute the preview: {previewError}</p>}
        {!preview && !previewError && <p className="muted">Working out what would be summarised…</p>}
        {preview && !preview.ok && <p role="status">{noCompactionMessage({ ...preview, ...(chatModel ? { limit: compactionLimit(chatModel.contextWindow, session.env().settings) } : {}) })}</p>}
        {preview?.ok && (
          <dl className="preview" aria-label="Compaction preview">
            <dt>Context now</dt>
            <dd>{formatCount(preview.tokensBefore)} tokens</dd>
            <dt>Summarised</dt>
            <dd>
              {preview.summarize.messageCount} messages, {formatCount(preview.summarize.tokens)} tokens
              {preview.previousSummary ? ` (updating the previous summary of ${formatCount(preview.previousSummary.tokens)} tokens)` : ''}
            </dd>
            {preview.turnPrefix && (
              <>
                <dt>Split turn</dt>
                <dd>
                  the start of the current turn ({preview.turnPrefix.messageCount} messages, {formatCount(preview.turnPrefix.tokens)} tokens) gets its own summary
                </dd>
              </>
            )}
            <dt>Kept verbatim</dt>
            <dd>
              {preview.keep.messageCount} messages, {formatCount(preview.keep.tokens)} tokens
            </dd>
            <dt>After (at most)</dt>
            <dd>{formatCount(preview.estimatedTokensAfter)} tokens</dd>
            <dt>Files</dt>
            <dd>
              {preview.readFiles} read, {preview.modifiedFiles} modified
            </dd>
            <dt>Summarizer</dt>
            <dd>{summarizerLabel}</dd>
          </dl>
        )}
        <label className="field">
          <span>Focus instructions (optional)</span>
          <textarea
            rows={3}
            value={instructions}
            disabled={running}
            placeholder="e.g. Keep the exact API decisions and the open bug list"
            onChange={(e) => setInstructions(e.target.value)}
          />
        </label>
        {running && (
          <section className="summary-stream" aria-label="Summary in progress" aria-busy="true">
            <p className="muted small">{run.status}</p>
            {run.text ? <Markdown text={run.text} /> : <p className="muted">Waiting for the summarizer…</p>}
          </section>
        )}
      </div>
      <div className="dialog-actions">
        {running ? (
          <button type="button" className="btn danger" onClick={() => run.abort.abort()}>
            Cancel compaction
          </button>
        ) : (
          <>
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn primary" disabled={!preview?.ok} onClick={start}>
              <FoldVertical aria-hidden="true" className="icon" />
              Summarize and compact
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}
