'use client';

import './compaction.css';
import { FoldVertical } from 'lucide-react';
import { useEffect, useState } from 'react';
import { DialogHeader } from '@/components/common/DialogHeader';
import { useModalDialog } from '@/components/common/useModalDialog';
import { Markdown } from '@/components/common/Markdown';
import { formatCount } from '@/lib/format/numbers';
import { useRun } from '@/components/state/hooks';
import { compactionLimit, scaledSettingText } from '@/lib/compaction/policy';
import type { KeepRecent } from '@/lib/compaction/keepRecent';
import type { MaskPlan } from '@/lib/compaction/mask';
import type { CompactionPreview } from '@/lib/compaction/prepare';
import { keptAnywayMessage, noCompactionMessage } from '@/lib/compaction/reasons';
import { keepRecentRequest } from '@/lib/flows/compaction';
import { errorMessage } from '@/lib/errors';
import type { SessionFlows } from '@/lib/flows/app';

/** Typing in "Keep recent" waits this long before the worker is asked again. */
const PREVIEW_DEBOUNCE_MS = 250;

/** The field's text as a keep-recent value, or null while it is not a usable number (empty, negative, a fraction of a turn). */
function parseKeep(text: string, unit: KeepRecent['unit']): KeepRecent | null {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(n) || n < (unit === 'turns' ? 1 : 0)) return null;
  return { unit, value: n };
}

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
  const [keepText, setKeepText] = useState(() => String(session.env().settings.keepRecentTokens));
  const [keepUnit, setKeepUnit] = useState<KeepRecent['unit']>('tokens');
  const keep = parseKeep(keepText, keepUnit);
  const keepValue = keep?.value;
  const run = useRun(session.sessionId);
  const running = run?.kind === 'compaction';
  const [masking, setMasking] = useState<MaskPlan | null>(null);
  const [masks, setMasks] = useState(0);
  const [maskBusy, setMaskBusy] = useState(false);

  // What masking old tool output would save, asked again after each mask made here.
  useEffect(() => {
    let cancelled = false;
    session.previewMasking().then(
      (p) => !cancelled && setMasking(p),
      () => !cancelled && setMasking(null),
    );
    return () => {
      cancelled = true;
    };
  }, [session, masks]);

  async function maskNow() {
    setMaskBusy(true);
    try {
      await session.maskToolOutput();
    } finally {
      setMaskBusy(false);
      setMasks((n) => n + 1);
    }
  }

  // Mounted only while open: the preview is computed when it opens and again, debounced, when "Keep recent" changes.
  // The worker does the counting, so typing never blocks the page; an answer overtaken by a newer question is dropped.
  useEffect(() => {
    if (keepValue === undefined) return;
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const p = await session.previewCompaction({ unit: keepUnit, value: keepValue });
        if (!cancelled) {
          setPreview(p);
          setPreviewError(null);
        }
      } catch (err) {
        if (!cancelled) setPreviewError(errorMessage(err));
      }
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [session, keepUnit, keepValue, masks]);

  async function start() {
    const id = await session.compact({
      reason: 'manual',
      ...keepRecentRequest(keep ?? undefined),
      ...(instructions.trim() ? { instructions: instructions.trim() } : {}),
    });
    if (id) {
      setInstructions('');
      onClose();
    }
  }

  const { summarizer, chatModel } = session.env();
  const scaled = (session.env().scaled ?? []).map(scaledSettingText);
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
        {scaled.length > 0 && (
          <ul className="muted small window-notes" aria-label="Scaled to this model’s window">
            {scaled.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
        <div className="keep-recent">
          <label className="field">
            <span>Keep recent</span>
            <input
              type="number"
              min={keepUnit === 'turns' ? 1 : 0}
              step={keepUnit === 'turns' ? 1 : 1000}
              value={keepText}
              disabled={running}
              aria-invalid={keep === null}
              aria-describedby="keep-recent-hint"
              onChange={(e) => setKeepText(e.target.value)}
            />
          </label>
          <label className="field">
            <span>Unit</span>
            <select
              aria-label="Keep recent unit"
              value={keepUnit}
              disabled={running}
              onChange={(e) => {
                const unit = e.target.value as KeepRecent['unit'];
                setKeepUnit(unit);
                // A token figure read as turns (or the reverse) means nothing: start from the unit's usual value.
                setKeepText(unit === 'turns' ? '1' : String(session.env().settings.keepRecentTokens));
              }}
            >
              <option value="tokens">tokens</option>
              <option value="turns">turns</option>
            </select>
          </label>
          <p id="keep-recent-hint" className="muted small">
            {keep === null
              ? keepUnit === 'turns'
                ? 'Enter a whole number of turns, 1 or more.'
                : 'Enter a whole number of tokens.'
              : 'What stays word for word; anything older goes into the summary. The default comes from Settings.'}
          </p>
        </div>
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
              {preview.keep.messageCount === 0 ? 'nothing: the summary replaces the whole conversation so far' : `${preview.keep.messageCount} messages, ${formatCount(preview.keep.tokens)} tokens`}
              {preview.keptBecause && <span className="kept-because">{keptAnywayMessage(preview.keptBecause)}</span>}
            </dd>
            {preview.pinned.count > 0 && (
              <>
                <dt>Pinned</dt>
                <dd>
                  {preview.pinned.count} messages, {formatCount(preview.pinned.tokens)} tokens, carried verbatim after the summary
                </dd>
              </>
            )}
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
        {masking && (
          <div className="mask-offer">
            <p>
              Masking old tool output saves {formatCount(masking.saved)} tokens ({masking.maskedIds.length} results older than the last {formatCount(masking.protectTokens)} tokens become one-line
              stubs; the outputs are kept and it can be undone).{' '}
              {session.env().settings.maskToolOutput ? 'Automatic compaction does this first.' : 'Turn on “Mask old tool output first” in Settings to do this before automatic summaries.'}
            </p>
            <button type="button" className="btn" disabled={running || maskBusy} onClick={() => void maskNow()}>
              Mask old tool output
            </button>
          </div>
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
            <button type="button" className="btn primary" disabled={!preview?.ok || keep === null} onClick={start}>
              <FoldVertical aria-hidden="true" className="icon" />
              Summarize and compact
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}
