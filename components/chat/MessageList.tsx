'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDownToLine, GitBranch, Layers } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { IconButton } from '@/components/common/IconButton';
import { Markdown, StreamingMarkdown } from '@/components/common/Markdown';
import { formatCount } from '@/lib/format/numbers';
import type { SessionContext } from '@/lib/session/context';
import { summaryCardTokens } from '@/lib/timeline/cardFigures';
import { summarizerLabel } from '@/lib/timeline/summarizerLabel';
import type { EffectiveSummary } from '@/lib/session/revisions';
import type { SessionTree } from '@/lib/session/tree';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import { MessageItem, type MessageActions } from './MessageItem';
import { NoteRow } from './NoteRow';
import type { Run } from '@/lib/flows/runs';
import { StreamingNote } from './StreamingNote';

/** A row names its entry by position on the path: rows outlive a streamed chunk, which replaces an entry's content. */
type Row = { key: string; kind: 'entry'; index: number } | { key: string; kind: 'pending' };

const estimateSize = () => 140;

function SummaryInline({ entry, effective, onJumpTo }: { entry: SessionEntry; effective?: EffectiveSummary; onJumpTo?: (id: EntryId) => void }) {
  if (entry.type !== 'compaction' && entry.type !== 'branch_summary') return null;
  const isCompaction = entry.type === 'compaction';
  const text = effective?.summary ?? entry.summary;
  const undone = effective?.undone;
  const Icon = isCompaction ? Layers : GitBranch;
  return (
    <section className={`summary-inline ${entry.type}${undone ? ' undone' : ''}`} aria-label={isCompaction ? 'Compaction summary' : 'Branch summary'} data-entry-id={entry.id}>
      <header className="summary-inline-head">
        <Icon aria-hidden="true" className="icon summary-icon" />
        <div className="summary-inline-title">
          <strong>{isCompaction ? 'Context compacted' : 'Branch summary'}</strong>
          <span className="summary-inline-facts">
            {entry.type === 'compaction' && <span>{effective ? summaryCardTokens(entry, effective, 0).text : `${formatCount(entry.tokensBefore)} tokens before`}</span>}
            {effective && <span>{summarizerLabel(effective.details.summarizer)}</span>}
            {effective?.details.fallback && <span className="tag">model summary rejected</span>}
          </span>
        </div>
        {undone && <span className="tag">undone</span>}
        {/* A compaction that keeps nothing before it names itself: there is nothing to jump to. */}
        {entry.type === 'compaction' && entry.firstKeptEntryId !== entry.id && onJumpTo && (
          <IconButton icon={ArrowDownToLine} size="sm" label="Jump to first kept message" tooltipSide="top" onClick={() => onJumpTo(entry.firstKeptEntryId)} />
        )}
      </header>
      <details className="summary-inline-body">
        <summary>Show summary</summary>
        <Markdown text={text} />
      </details>
    </section>
  );
}

export function MessageList({
  tree,
  context,
  labels,
  run,
  actions,
  scrollToId,
}: {
  tree: SessionTree;
  context: SessionContext;
  labels: Map<EntryId, string>;
  run: Run | undefined;
  actions: MessageActions;
  scrollToId?: { id: EntryId; nonce: number } | null;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);

  // The rows follow the path's shape, not the run nor the entries' content: a streaming reply updates the run
  // every 50 ms and replaces its entry on every saved chunk (a new path array), and rebuilding the rows of a
  // 10,000-entry path that often, with the virtualizer measuring them all again for the new rows, made each
  // chunk cost in proportion to the session. The path runs from the root to its last entry, so that entry and
  // the length name its shape.
  const path = context.path;
  const shape = `${path.length}:${path.at(-1)?.id ?? ''}`;
  const entryRows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    path.forEach((entry, index) => {
      // Labels and pins show on the message they mark.
      if (entry.type === 'label' || entry.type === 'pin') return;
      out.push({ key: entry.id, kind: 'entry', index });
    });
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the shape stands for the path (above)
  }, [shape]);
  const pending = run?.kind === 'reply' && (!run.entryId || !tree.has(run.entryId));
  const rows = useMemo<Row[]>(() => (pending ? [...entryRows, { key: 'pending', kind: 'pending' }] : entryRows), [entryRows, pending]);
  // Stable while the rows are: a new key function makes the virtualizer measure every row again.
  const getItemKey = useCallback((i: number) => rows[i]!.key, [rows]);

  // TanStack Virtual returns functions the React Compiler cannot memoise; this component does not rely on it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parentRef.current,
    estimateSize,
    overscan: 8,
    getItemKey,
  });

  // Sending (a new reply run) brings the view back to the bottom, even after a jump to an old message.
  const runKey = run?.kind === 'reply' ? run.abort : null;
  useLayoutEffect(() => {
    if (runKey) stickToBottom.current = true;
  }, [runKey]);

  // Keep the newest content in view while the user has not scrolled up.
  // In the next frame, not in the commit: reading the scroll height forces a layout, which the frame's own
  // layout then reuses, and several commits within one frame scroll once.
  useLayoutEffect(() => {
    if (!stickToBottom.current || rows.length === 0) return;
    // Asked again then: a jump to a message (the effect below) may have come in between.
    const frame = requestAnimationFrame(() => stickToBottom.current && virtualizer.scrollToIndex(rows.length - 1, { align: 'end' }));
    return () => cancelAnimationFrame(frame);
  }, [rows.length, run?.text, virtualizer]);

  // A jump request is handled once (its nonce), not again whenever the rows change.
  const handledJump = useRef<number | null>(null);
  useEffect(() => {
    if (!scrollToId || handledJump.current === scrollToId.nonce) return;
    const i = rows.findIndex((r) => r.kind === 'entry' && r.key === scrollToId.id);
    if (i >= 0) {
      handledJump.current = scrollToId.nonce;
      stickToBottom.current = false;
      virtualizer.scrollToIndex(i, { align: 'start' });
    }
  }, [scrollToId, rows, virtualizer]);

  const streamingId = run?.kind === 'reply' ? run.entryId : null;
  // Pinned messages before the kept part still reach the model (carried after the summary).
  const carried = useMemo(() => new Set(context.items.flatMap((it) => (it.kind === 'message' && it.carried ? [it.entryId] : []))), [context.items]);

  return (
    <div
      ref={parentRef}
      className="message-scroll"
      onScroll={(e) => {
        const el = e.currentTarget;
        stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      }}
    >
      {rows.length === 0 ? (
        <div className="empty-chat">
          <h2>What are we working on?</h2>
          <p className="muted">Write below to start. Long sessions stay usable: when the context fills, older turns are compacted into a summary you can inspect.</p>
        </div>
      ) : (
        <div role="log" aria-label="Conversation" aria-live="off" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index]!;
            const index = row.kind === 'entry' ? row.index : -1;
            const entry = index >= 0 ? path[index]! : null;
            return (
              <div key={v.key} data-index={v.index} ref={virtualizer.measureElement} className="vrow" style={{ transform: `translateY(${v.start}px)` }}>
                {entry === null ? (
                  <article className="msg assistant" aria-label="Assistant message" aria-busy="true">
                    <div className="msg-body">
                      {run?.text ? <StreamingMarkdown text={run.text} /> : <p className="muted">{run?.status ?? 'Waiting for the model…'}</p>}
                      <StreamingNote />
                    </div>
                  </article>
                ) : entry.type === 'message' ? (
                  <MessageItem
                    entry={entry}
                    message={entry.message}
                    streamingText={entry.id === streamingId ? run!.text : undefined}
                    inContext={index >= context.keptFromIndex || carried.has(entry.id)}
                    siblings={siblingInfo(tree, entry)}
                    label={labels.get(entry.id)}
                    pinned={context.pinned.has(entry.id)}
                    masked={context.masked.has(entry.id) && (index >= context.keptFromIndex || carried.has(entry.id))}
                    actions={actions}
                  />
                ) : entry.type === 'compaction' || entry.type === 'branch_summary' ? (
                  <SummaryInline entry={entry} effective={context.summaries.get(entry.id)} onJumpTo={actions.onJumpTo} />
                ) : (
                  <NoteRow entry={entry} target={entry.type === 'summary_revision' ? tree.get(entry.targetId) : undefined} />
                )}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}

/** Position among same-role message siblings, for the ‹ 1/2 › switcher shown on edited prompts and regenerated replies. */
function siblingInfo(tree: SessionTree, entry: SessionEntry) {
  if (entry.type !== 'message') return undefined;
  const sibs = tree.children(entry.parentId).filter((s) => s.type === 'message' && s.message.role === entry.message.role);
  if (sibs.length < 2) return undefined;
  return { index: sibs.findIndex((s) => s.id === entry.id), count: sibs.length };
}
