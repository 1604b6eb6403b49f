'use client';

import { Check, Layers, Pencil, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Markdown } from '@/components/common/Markdown';
import { NotCarriedOver } from '@/components/timeline/NotCarriedOver';
import { placePending, PENDING_PROBLEM_TEXT, type PendingSummary } from '@/lib/compaction/pending';
import type { SessionFlows } from '@/lib/flows/app';
import type { SessionContext } from '@/lib/session/context';
import { summaryForDisplay } from '@/lib/timeline/summaryText';
import { pendingCoverText, pendingProbeKey } from '@/lib/timeline/pendingCard';

/**
 * A summary automatic compaction prepared, waiting for the user (review
 * before apply): what it covers, the summary, what it carries, and Apply /
 * Edit / Discard. The conversation goes on uncompacted meanwhile.
 */
export function PendingSummaryCard({ pending, session, context, busy }: { pending: PendingSummary; session: SessionFlows; context: SessionContext; busy: boolean }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const placed = placePending(context.path, pending);
  const id = pending.entry.id;
  const shown = summaryForDisplay(pending.entry.summary, pending.entry.details);
  return (
    <section className="pending-summary" aria-label="Summary ready to apply" data-entry-id={id}>
      <header className="pending-summary-head">
        <Layers aria-hidden="true" className="icon" />
        <strong className="grow">Summary ready to apply</strong>
        {pending.edited && <span className="tag">edited by you</span>}
      </header>
      <p className="small">
        {placed.ok ? pendingCoverText(pending, placed) : <span role="status">{PENDING_PROBLEM_TEXT[placed.problem]}</span>} The conversation goes on uncompacted until you apply it; when the context no
        longer fits, it is applied on its own.
      </p>
      {editing ? (
        <form
          className="edit-form"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!draft.trim()) return;
            if (await session.editPendingSummary(id, draft)) setEditing(false);
          }}
        >
          <textarea aria-label="Summary text" rows={10} value={draft} onChange={(e) => setDraft(e.target.value)} />
          <div className="row">
            <button type="submit" className="btn primary">
              Save summary
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <details className="pending-summary-text">
          <summary>Show summary</summary>
          <Markdown text={shown.text} />
        </details>
      )}
      {placed.ok && (
        <details className="pending-summary-probes">
          <summary>What it carries</summary>
          <NotCarriedOver
            session={session}
            probeKey={pendingProbeKey(pending)}
            span={placed.summarized}
            summary={pending.entry.summary}
            canPin={() => true}
            pinned={context.pinned}
            disabled={busy}
            onResummarise={(instructions) => void session.resummarisePending(id, instructions)}
          />
        </details>
      )}
      {!editing && (
        <footer className="card-actions">
          <button type="button" className="btn primary" disabled={busy || !placed.ok} onClick={() => void session.applyPendingSummary(id)}>
            <Check aria-hidden="true" className="icon" />
            Apply
          </button>
          <button
            type="button"
            className="btn ghost"
            disabled={busy}
            onClick={() => {
              setDraft(pending.entry.summary);
              setEditing(true);
            }}
          >
            <Pencil aria-hidden="true" className="icon" />
            Edit
          </button>
          <button type="button" className="btn ghost" disabled={busy} onClick={() => void session.discardPendingSummary(id)}>
            <Trash2 aria-hidden="true" className="icon" />
            Discard
          </button>
        </footer>
      )}
    </section>
  );
}
