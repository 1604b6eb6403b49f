'use client';

import { ArrowDownToLine, Copy, GitBranch, Layers, Pencil, RefreshCw, RotateCcw, Undo2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { toast } from 'sonner';
import { copyText } from '@/lib/browser/clipboard';
import { Markdown } from '@/components/common/Markdown';
import { HISTORY_MISSING } from '@/lib/compaction/reasons';
import { formatCost, formatDuration, formatCount } from '@/lib/format/numbers';
import { entryPreview } from '@/lib/tree/preview';
import type { EffectiveSummary } from '@/lib/session/revisions';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import { summaryCardTokens } from '@/lib/timeline/cardFigures';
import { fallbackNote, summarizerLabel } from '@/lib/timeline/summarizerLabel';
import { summaryForDisplay } from '@/lib/timeline/summaryText';
import type { EntryRange, TimelineItem } from '@/lib/timeline/build';
import type { SessionFlows } from '@/lib/flows/app';
import { summaryProbeKey } from '@/lib/flows/probes';
import { NotCarriedOver } from './NotCarriedOver';

type SummaryItem = Extract<TimelineItem, { kind: 'summary' }>;

const ORIGINALS_PAGE = 100;

/** The tree's one-line preview: it says what an empty, thinking-only or tool-only reply is instead of "assistant: ". */
function preview(e: SessionEntry | undefined): string {
  return e ? entryPreview(e).text : '';
}

function Originals({ range, label }: { range: EntryRange; label: string }) {
  const [shown, setShown] = useState(ORIGINALS_PAGE);
  if (range.entries.length === 0) return null;
  return (
    <details className="originals">
      <summary>
        {label} ({range.entries.length})
      </summary>
      <ol className="originals-list">
        {range.entries.slice(0, shown).map((e) => (
          <li key={e.id} data-entry-id={e.id}>
            {preview(e)}
          </li>
        ))}
      </ol>
      {shown < range.entries.length && (
        <button type="button" className="link-btn" onClick={() => setShown((n) => n + ORIGINALS_PAGE * 5)}>
          Show more ({range.entries.length - shown} left)
        </button>
      )}
    </details>
  );
}

function FileList({ title, files }: { title: string; files: string[] }) {
  if (files.length === 0) return <div className="muted small">{title}: none</div>;
  return (
    <details className="files">
      <summary>
        {title} ({files.length})
      </summary>
      <ul>
        {files.map((f) => (
          <li key={f}>
            <code>{f}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Versions({ effective }: { effective: EffectiveSummary }) {
  if (effective.versions.length < 2 && effective.toggles.length === 0) return null;
  return (
    <details className="versions">
      <summary>History ({effective.versions.length} versions)</summary>
      <ol>
        {effective.versions.map((v, i) => (
          <li key={v.entryId}>
            <details>
              <summary>
                v{i + 1} · {v.action === 'original' ? 'original' : v.action === 'edit' ? 'edited by you' : 'regenerated'} · {new Date(v.timestamp).toLocaleString()} ·{' '}
                {summarizerLabel(v.details.summarizer)}
                {i === effective.versions.length - 1 ? ' · current' : ''}
              </summary>
              <Markdown text={summaryForDisplay(v.summary, v.details).text} />
            </details>
          </li>
        ))}
      </ol>
      {effective.toggles.length > 0 && <p className="muted small">{effective.toggles.map((t) => (t.action === 'undo' ? 'undone' : 'restored')).join(', then ')}</p>}
    </details>
  );
}

/** An inline form on a card: its fields, then submit and Cancel. */
function CardForm({ submitLabel, onSubmit, onCancel, children }: { submitLabel: string; onSubmit: () => Promise<void>; onCancel: () => void; children: React.ReactNode }) {
  return (
    <form
      className="edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      {children}
      <div className="row">
        <button type="submit" className="btn primary">
          {submitLabel}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * A compaction or branch summary as a record: the rendered summary, what it
 * replaced and kept (originals one click away), token figures, files, who
 * summarised and at what cost, its versions, and the actions on it.
 */
export function SummaryCard({
  item,
  session,
  busy,
  onJumpTo,
  pinned,
}: {
  item: SummaryItem;
  session: SessionFlows;
  busy: boolean;
  onJumpTo: (id: EntryId) => void;
  /** Messages pinned on the current path. */
  pinned: ReadonlySet<EntryId>;
}) {
  const { entry, effective } = item;
  const isCompaction = entry.type === 'compaction';
  const details = effective.details;
  const [mode, setMode] = useState<'view' | 'edit' | 'regenerate'>('view');
  const [draft, setDraft] = useState('');
  const [instructions, setInstructions] = useState('');
  const kind = isCompaction ? 'Compaction' : 'Branch summary';
  const version = effective.versions.length;
  const cost = details.usage?.cost;
  const shown = useMemo(() => summaryForDisplay(effective.summary, details), [effective.summary, details]);
  const canAct = item.onPath && !busy;

  const figures = summaryCardTokens(entry, effective, item.summarized.entries.length).text;

  return (
    <article className={`card ${entry.type}${effective.undone ? ' undone' : ''}`} aria-label={`${kind} card`} data-entry-id={entry.id}>
      <header className="card-head">
        {isCompaction ? <Layers aria-hidden="true" className="icon card-icon" /> : <GitBranch aria-hidden="true" className="icon card-icon" />}
        <strong>{kind}</strong>
        {version > 1 && <span className="tag">v{version}</span>}
        {effective.undone && <span className="tag">undone</span>}
        {details.fallback && <span className="tag">model summary rejected</span>}
        {item.inEffect && isCompaction && <span className="tag">in effect</span>}
        {!item.onPath && <span className="tag">other branch</span>}
        <span className="grow" />
        <time className="card-time" dateTime={new Date(entry.timestamp).toISOString()}>
          {new Date(entry.timestamp).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
        </time>
      </header>
      <dl className="card-facts">
        <dt>Tokens</dt>
        <dd data-testid="card-tokens">{figures}</dd>
        <dt>Summarised</dt>
        {item.historyMissing ? (
          <dd id={`history-missing-${entry.id}`}>{HISTORY_MISSING}</dd>
        ) : (
          <dd>
            {item.summarized.entries.length} entries
            {item.summarized.firstId && (
              <>
                {' '}
                from “{preview(item.summarized.entries[0])}”
              </>
            )}
          </dd>
        )}
        {item.kept && (
          <>
            <dt>Kept</dt>
            <dd>
              {item.kept.entries.length === 0 ? (
                'nothing before it (only what came after)'
              ) : (
                <>
                  {item.kept.entries.length} entries from “{preview(item.kept.entries[0])}”{' '}
                  <button type="button" className="link-btn" onClick={() => onJumpTo(item.kept!.firstId!)}>
                    <ArrowDownToLine aria-hidden="true" className="icon" />
                    Jump to first kept message
                  </button>
                </>
              )}
            </dd>
          </>
        )}
        <dt>Summarizer</dt>
        <dd>
          {summarizerLabel(details.summarizer)}
          {details.durationMs !== undefined && ` · ${formatDuration(details.durationMs)}`}
          {details.usage && ` · ${formatCount(details.usage.input)} in / ${formatCount(details.usage.output)} out`}
          {cost !== undefined && ` · ${formatCost(cost)}`}
          {details.fallback && ` · ${fallbackNote(details.fallback)}`}
        </dd>
        {details.selfCheck && (
          <>
            <dt>Self-check</dt>
            <dd data-testid="card-self-check">
              {details.selfCheck.patched ? 'added what the summary missed' : 'found nothing missing'}
              {details.selfCheck.usage && ` · ${formatCount(details.selfCheck.usage.input)} in / ${formatCount(details.selfCheck.usage.output)} out`}
              {details.selfCheck.usage?.cost !== undefined && ` · ${formatCost(details.selfCheck.usage.cost)}`}
            </dd>
          </>
        )}
        {details.customInstructions && (
          <>
            <dt>Focus</dt>
            <dd>{details.customInstructions}</dd>
          </>
        )}
      </dl>
      <div className="card-files">
        <FileList title="Files read" files={shown.readFiles} />
        <FileList title="Files modified" files={shown.modifiedFiles} />
      </div>
      {!item.historyMissing && (
        <NotCarriedOver
          session={session}
          probeKey={summaryProbeKey(entry, effective)}
          span={item.summarized.entries}
          summary={effective.summary}
          // A compaction's span lies on this path; a branch summary's is the branch left behind, where a pin would not apply.
          canPin={() => isCompaction && item.onPath}
          pinned={pinned}
          disabled={!canAct}
          onResummarise={(instructions) => void session.regenerateSummary(entry, instructions)}
        />
      )}

      {mode === 'edit' ? (
        <CardForm
          submitLabel="Save edit"
          onCancel={() => setMode('view')}
          onSubmit={async () => {
            if (!draft.trim()) return;
            await session.editSummary(entry, draft);
            setMode('view');
          }}
        >
          <textarea aria-label="Summary text" rows={12} value={draft} onChange={(e) => setDraft(e.target.value)} />
        </CardForm>
      ) : (
        <details className="card-summary" open>
          <summary>Summary</summary>
          <Markdown text={shown.text} />
        </details>
      )}

      {mode === 'regenerate' && (
        <CardForm
          submitLabel="Regenerate summary"
          onCancel={() => setMode('view')}
          onSubmit={async () => {
            setMode('view');
            await session.regenerateSummary(entry, instructions.trim() || undefined);
            setInstructions('');
          }}
        >
          <label className="field">
            <span>New focus instructions (optional)</span>
            <textarea rows={2} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
          </label>
        </CardForm>
      )}

      <Originals range={item.summarized} label="Original messages" />
      {item.kept && <Originals range={item.kept} label="Kept messages" />}
      <Versions effective={effective} />

      {mode === 'view' && (
        <footer className="card-actions">
          <button
            type="button"
            className="btn ghost small-btn"
            disabled={!canAct || item.historyMissing}
            aria-describedby={item.historyMissing ? `history-missing-${entry.id}` : undefined}
            onClick={() => setMode('regenerate')}
          >
            <RefreshCw aria-hidden="true" className="icon" />
            Regenerate
          </button>
          <button
            type="button"
            className="btn ghost small-btn"
            disabled={!canAct}
            onClick={() => {
              setDraft(effective.summary);
              setMode('edit');
            }}
          >
            <Pencil aria-hidden="true" className="icon" />
            Edit
          </button>
          {effective.undone ? (
            <button type="button" className="btn ghost small-btn" disabled={!canAct} onClick={() => void session.setSummaryUndone(entry, false)}>
              <RotateCcw aria-hidden="true" className="icon" />
              {isCompaction ? 'Restore compaction' : 'Restore branch summary'}
            </button>
          ) : (
            <button type="button" className="btn ghost small-btn" disabled={!canAct} onClick={() => void session.setSummaryUndone(entry, true)}>
              <Undo2 aria-hidden="true" className="icon" />
              {isCompaction ? 'Undo compaction' : 'Undo branch summary'}
            </button>
          )}
          <button
            type="button"
            className="btn ghost small-btn"
            onClick={async () => {
              if (await copyText(effective.summary)) toast.success('Summary copied');
              else toast.error('Copy failed: the browser refused clipboard access.');
            }}
          >
            <Copy aria-hidden="true" className="icon" />
            Copy
          </button>
        </footer>
      )}
    </article>
  );
}
