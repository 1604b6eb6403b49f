'use client';

import './timeline.css';
import { useEffect, useMemo, useState } from 'react';
import { formatCount } from '@/lib/format/numbers';
import { plural } from '@/lib/format/plural';
import type { SessionFlows } from '@/lib/flows/app';
import type { SessionContext } from '@/lib/session/context';
import { messageText, oneLine } from '@/lib/session/messages';
import type { SessionTree } from '@/lib/session/tree';
import type { EntryId, ToolMaskEntry } from '@/lib/session/types';
import { EyeOff, Pin } from 'lucide-react';
import { buildTimeline, type TurnInfo } from '@/lib/timeline/build';
import type { ContextBreakdown } from '@/lib/tokens/breakdown';
import { meterVsBreakdown } from '@/lib/tokens/contextFigures';
import { SummaryCard } from './SummaryCard';

const SEGMENTS: { key: keyof Pick<ContextBreakdown, 'system' | 'summaries' | 'messages' | 'toolResults' | 'attachments' | 'free'>; label: string }[] = [
  { key: 'system', label: 'System prompt' },
  { key: 'summaries', label: 'Summaries' },
  { key: 'messages', label: 'Messages' },
  { key: 'toolResults', label: 'Tool results' },
  { key: 'attachments', label: 'Attachments' },
  { key: 'free', label: 'Free space' },
];

/** Where the context goes, by kind, in tokens and as a bar (like Claude Code's /context). */
function Breakdown({ session, version, leafId, model }: { session: SessionFlows; version: number; leafId: EntryId | null; model: string | undefined }) {
  const [b, setB] = useState<ContextBreakdown | null>(null);
  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(async () => {
      try {
        const next = await session.contextBreakdown();
        if (!cancelled) setB(next);
      } catch {
        /* the worker has no path yet; the next change retries */
      }
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [session, version, leafId, model]);
  if (!b) return <p className="muted small">Counting…</p>;
  const whole = b.window ?? b.total;
  const vsMeter = meterVsBreakdown(b);
  return (
    <section className="breakdown" aria-label="Context breakdown">
      <div className="breakdown-bar" aria-hidden="true">
        {SEGMENTS.map(({ key }) => {
          const v = b[key] ?? 0;
          return v > 0 ? <span key={key} className={`seg seg-${key}`} style={{ width: `${(v / whole) * 100}%` }} /> : null;
        })}
      </div>
      <ul className="breakdown-list">
        {SEGMENTS.map(({ key, label }) =>
          b[key] === undefined ? null : (
            <li key={key}>
              <span className={`swatch seg-${key}`} aria-hidden="true" /> {label}: {b.approximate ? '≈ ' : ''}
              {formatCount(b[key]!)} tokens
            </li>
          ),
        )}
        <li className="breakdown-total">
          <strong>
            In context (counted): {formatCount(b.total)}
            {b.window ? ` of ${formatCount(b.window)}` : ''} tokens
          </strong>
        </li>
      </ul>
      {vsMeter.note && <p className="muted small breakdown-note">{vsMeter.note}</p>}
    </section>
  );
}

function TurnsGroup({ turns, onJumpTo }: { turns: TurnInfo[]; onJumpTo: (id: EntryId) => void }) {
  const first = turns[0]!;
  const last = turns[turns.length - 1]!;
  const messages = turns.reduce((n, t) => n + t.entries.length, 0);
  const pinned = turns.reduce((n, t) => n + t.pinned, 0);
  const label = turns.length === 1 ? `Turn ${first.number}` : `Turns ${first.number}–${last.number}`;
  return (
    <details className={`turns${first.inContext || last.inContext ? '' : ' summarised'}`}>
      <summary>
        {label} · {plural(messages, 'message')}
        {last.inContext ? '' : ' · summarised'}
        {pinned > 0 ? ` · ${pinned} pinned` : ''}
      </summary>
      <ol className="turn-list">
        {turns.map((t) => {
          const head = t.prompt ?? t.entries[0]!;
          const text = head.type === 'message' ? oneLine(messageText(head.message), 90) : '';
          return (
            <li key={head.id}>
              <button type="button" className="link-btn turn-link" onClick={() => onJumpTo(head.id)}>
                {t.number}. {text || '(no text)'}
              </button>
              <span className="turn-meta">
                {plural(t.entries.length, 'msg', 'msgs')}
                {t.tokens !== null ? ` · ${formatCount(t.tokens)} tokens` : ''}
              </span>
              {t.pinned > 0 && (
                <span className="tag" title="Kept verbatim: carried into the context after every compaction">
                  <Pin aria-hidden="true" className="icon" /> pinned
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </details>
  );
}

/** A recorded observation mask: what it covered and saved, and its undo / redo. */
function MaskCard({ entry, undone, busy, session }: { entry: ToolMaskEntry; undone: boolean; busy: boolean; session: SessionFlows }) {
  return (
    <article className={`card tool_mask${undone ? ' undone' : ''}`} aria-label="Tool output masked" data-entry-id={entry.id}>
      <header className="card-head">
        <EyeOff aria-hidden="true" className="icon card-icon" /> <strong>Old tool output masked</strong>
        {undone && <span className="tag">undone</span>}
      </header>
      <p className="card-facts">
        {plural(entry.maskedIds.length, 'tool result')} shown to the model as one-line stubs: {formatCount(entry.tokensBefore)} → {formatCount(entry.tokensAfter)} tokens. The
        outputs are kept; the last {formatCount(entry.protectTokens)} tokens were left alone.
      </p>
      <div className="card-actions">
        <button type="button" className="btn ghost small-btn" disabled={busy} onClick={() => void session.setMaskUndone(entry, !undone)}>
          {undone ? 'Redo masking' : 'Undo masking'}
        </button>
      </div>
    </article>
  );
}

/**
 * The session timeline: turns along the active path with compaction and
 * branch-summary cards between them; optionally the summaries on every branch.
 */
export function TimelinePanel({
  session,
  tree,
  version,
  context,
  busy,
  onJumpTo,
}: {
  session: SessionFlows;
  tree: SessionTree;
  version: number;
  context: SessionContext;
  busy: boolean;
  onJumpTo: (id: EntryId) => void;
}) {
  const [allBranches, setAllBranches] = useState(false);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the tree mutates in place; version tracks it
  const items = useMemo(() => buildTimeline(tree, context, { allBranches }), [tree, context, allBranches, version]);
  const leafId = context.path.at(-1)?.id ?? null;
  return (
    <div className="timeline">
      <Breakdown session={session} version={version} leafId={leafId} model={session.env().chatModel?.id} />
      <label className="check">
        <input type="checkbox" checked={allBranches} onChange={(e) => setAllBranches(e.target.checked)} /> Show summaries on all branches
      </label>
      <ol className="timeline-list" aria-label="Timeline">
        {items.length === 0 && <li className="timeline-empty">Nothing yet.</li>}
        {items.map((item) =>
          item.kind === 'turns' ? (
            <li key={item.key}>
              <TurnsGroup turns={item.turns} onJumpTo={onJumpTo} />
            </li>
          ) : item.kind === 'model' ? (
            <li key={item.key} className="timeline-model">
              Model changed to {item.entry.model}
            </li>
          ) : item.kind === 'mask' ? (
            <li key={item.key}>
              <MaskCard entry={item.entry} undone={item.undone} busy={busy} session={session} />
            </li>
          ) : (
            <li key={item.key}>
              <SummaryCard item={item} session={session} busy={busy} onJumpTo={onJumpTo} pinned={context.pinned} />
            </li>
          ),
        )}
      </ol>
    </div>
  );
}
