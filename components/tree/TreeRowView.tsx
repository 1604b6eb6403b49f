'use client';

import { ChevronDown, ChevronRight, Forward, Tag } from 'lucide-react';
import { memo, type CSSProperties, type FocusEvent, type MouseEvent } from 'react';
import { plural } from '@/lib/format/plural';
import type { TreeRow } from '@/lib/tree/flatten';
import { entryPreview, matchRange } from '@/lib/tree/preview';
import { LabelEditor } from './LabelEditor';

export const ROW_HEIGHT = 32;
export const TOUCH_ROW_HEIGHT = 44;
/**
 * Deepest indentation drawn. Each branch point on a path adds a level, so a session edited at many
 * points nests deeply; past this the row stays put and says how much deeper it is (aria-level is exact).
 */
export const MAX_INDENT = 12;

export interface RowHandlers {
  onRowClick: (id: string) => void;
  onRowFocus: (id: string) => void;
  onToggle: (id: string, expand: boolean) => void;
  onEditLabel: (id: string) => void;
  onSaveLabel: (id: string, label: string | null) => void;
  onCancelLabel: (restoreFocus: boolean) => void;
  onContinue: (id: string) => void;
  registerRow: (id: string, el: HTMLElement | null) => void;
}

/** The row's text, cut with an ellipsis by CSS; the whole preview shows as a tooltip. */
function Preview({ text, query }: { text: string; query: string }) {
  const range = query ? matchRange(text, query) : null;
  if (!range)
    return (
      <span className="stree-preview" title={text}>
        {text}
      </span>
    );
  return (
    <span className="stree-preview" title={text}>
      {text.slice(0, range[0])}
      <mark>{text.slice(range[0], range[1])}</mark>
      {text.slice(range[1])}
    </span>
  );
}

/**
 * One treeitem. Its accessible name comes from the text span only
 * (aria-labelledby), so the Label button inside does not repeat itself in
 * what a screen reader says for the row.
 */
export const TreeRowView = memo(function TreeRowView({
  row,
  domId,
  top,
  height,
  focused,
  editing,
  searching,
  query,
  handlers,
  canContinue = false,
}: {
  row: TreeRow;
  domId: string;
  top: number;
  height: number;
  focused: boolean;
  editing: boolean;
  /** A text filter is active (rows are matches or context). */
  searching: boolean;
  /** The query to highlight: empty on rows that do not match, so typing re-renders only matching rows. */
  query: string;
  handlers: RowHandlers;
  /** Offer "Continue in new session" on this row. */
  canContinue?: boolean;
}) {
  const preview = entryPreview(row.entry);
  const labelId = `${domId}-text`;
  const indent = Math.min(row.depth, MAX_INDENT);
  const style = { transform: `translateY(${top}px)`, height, '--stree-depth': indent } as CSSProperties;

  return (
    // Keys are handled once by the tree (WAI-ARIA tree pattern: roving tabindex), not by each row.
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events
    <div
      ref={(el) => handlers.registerRow(row.id, el)}
      role="treeitem"
      id={domId}
      className="stree-row"
      style={style}
      tabIndex={focused ? 0 : -1}
      aria-level={row.level}
      aria-setsize={row.setsize}
      aria-posinset={row.posinset}
      aria-expanded={row.expandable ? row.expanded : undefined}
      aria-selected={row.isCurrent}
      aria-labelledby={labelId}
      data-entry-id={row.id}
      data-kind={preview.kind}
      data-error={preview.error || undefined}
      data-active-path={row.onActivePath || undefined}
      data-current={row.isCurrent || undefined}
      data-branch-point={row.isBranchPoint || undefined}
      data-branch-head={row.branchIndex > 0 || undefined}
      data-match={searching ? (row.match ? 'true' : 'context') : undefined}
      data-focused={focused || undefined}
      onClick={() => handlers.onRowClick(row.id)}
      onFocus={(e: FocusEvent) => {
        if (e.target === e.currentTarget) handlers.onRowFocus(row.id);
      }}
    >
      <span className="stree-guides" aria-hidden="true" />
      {row.depth > indent && (
        <span className="stree-deeper" aria-hidden="true" title={`level ${row.level}`}>
          +{row.depth - indent}
        </span>
      )}
      <span
        className="stree-toggle"
        aria-hidden="true"
        onClick={
          row.expandable
            ? (e: MouseEvent) => {
                e.stopPropagation();
                handlers.onToggle(row.id, !row.expanded);
              }
            : undefined
        }
      >
        {row.expandable ? row.expanded ? <ChevronDown className="icon" /> : <ChevronRight className="icon" /> : row.branchIndex > 0 ? <span className="stree-fork" /> : null}
      </span>
      {/* One line: the chips that must stay readable are fixed, only the preview shrinks (a label after a long preview
          would be cut off). What only a screen reader needs comes last, so the name starts with the visible text. */}
      <span id={labelId} className="stree-text">
        {row.branchIndex > 0 && (
          <span className="stree-branch">
            {row.branchIndex}/{row.branchCount}
          </span>
        )}
        {row.label !== undefined && (
          <span className="stree-chip" title={row.label}>
            <Tag aria-hidden="true" className="icon" />
            {row.label}
          </span>
        )}
        <Preview text={preview.text} query={query} />
        {row.isBranchPoint && <span className="stree-count">{plural(row.childCount, 'branch', 'branches')}</span>}
        {row.isCurrent && <span className="stree-current">current</span>}
        <span className="stree-sr">
          {row.branchIndex > 0 ? `, branch ${row.branchIndex} of ${row.branchCount}` : ''}
          {row.label !== undefined ? ', labelled' : ''}
          {row.onActivePath ? ', on the active path' : ''}
        </span>
      </span>
      {canContinue && !editing && (
        <button
          type="button"
          className="stree-label-btn"
          tabIndex={-1}
          aria-label={`Continue in new session from ${preview.text}`}
          title="Continue in new session from here"
          onClick={(e) => {
            e.stopPropagation();
            handlers.onContinue(row.id);
          }}
        >
          {/* An icon, not a word: visible text inside the row would not be part of the row's name. */}
          <Forward aria-hidden="true" className="icon" />
        </button>
      )}
      {editing ? (
        <LabelEditor current={row.label} onSave={(label) => handlers.onSaveLabel(row.id, label)} onCancel={handlers.onCancelLabel} />
      ) : (
        <button
          type="button"
          className="stree-label-btn"
          tabIndex={-1}
          aria-label={`Label ${preview.text}`}
          title="Label (F2)"
          onClick={(e) => {
            e.stopPropagation();
            handlers.onEditLabel(row.id);
          }}
        >
          <Tag aria-hidden="true" className="icon" />
        </button>
      )}
    </div>
  );
});
