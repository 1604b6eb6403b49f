'use client';

import './tree.css';
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { formatCount } from '@/lib/format/numbers';
import { plural } from '@/lib/format/plural';
import { SessionTree } from '@/lib/session/tree';
import type { EntryId } from '@/lib/session/types';
import { TREE_FILTERS, isTreeFilter, type TreeFilter } from '@/lib/tree/filters';
import { buildForest, flattenForest, type FlatTree } from '@/lib/tree/flatten';
import { resolveFocusIndex } from '@/lib/tree/focus';
import { isPrintable, treeKeyAction, type TreeAction } from '@/lib/tree/keyboard';
import { previewSearchText } from '@/lib/tree/preview';
import { useMediaQuery } from '@/components/state/useMediaQuery';
import { ROW_HEIGHT, TOUCH_ROW_HEIGHT, TreeRowView, type RowHandlers } from './TreeRowView';

export interface SessionTreeViewProps {
  tree: SessionTree;
  /** Changes whenever `tree` was mutated in place; everything derived is memoised on it. */
  version: number;
  leafId: EntryId | null;
  activePathIds: ReadonlySet<EntryId>;
  labels: ReadonlyMap<EntryId, string>;
  /** Enter / Space / click on a row. */
  onSelect: (entryId: EntryId) => void;
  /** A new label, or null to clear it. */
  onSetLabel: (entryId: EntryId, label: string | null) => void;
  /** "Continue in new session" from an entry; without it rows offer no such button. */
  onContinue?: (entryId: EntryId) => void;
  initialFilter?: TreeFilter;
  className?: string;
}

const NO_FOLDS: ReadonlySet<EntryId> = new Set();
const EMPTY_FOREST = buildForest(new SessionTree(), { filter: 'default', labels: new Map() });
const INITIAL_VIEW = { filter: 'default' as TreeFilter, query: '', folds: NO_FOLDS, leafId: null as EntryId | null, activePathIds: NO_FOLDS as ReadonlySet<EntryId> };
/** Previews computed per idle slice when warming the text-filter cache. */
const WARM_CHUNK = 400;

type Idle = (cb: (deadline: { timeRemaining(): number }) => void) => () => void;
/** requestIdleCallback where there is one (not Safari), a timeout elsewhere. */
const whenIdle: Idle = (cb) => {
  if (typeof window.requestIdleCallback === 'function') {
    const h = window.requestIdleCallback(cb, { timeout: 500 });
    return () => window.cancelIdleCallback(h);
  }
  const h = window.setTimeout(() => cb({ timeRemaining: () => 8 }), 16);
  return () => window.clearTimeout(h);
};

/**
 * The whole session as a tree: every branch, one row per entry, virtualised.
 * See lib/tree/flatten.ts for the layout (only branch points indent) and
 * lib/tree/keyboard.ts for the key map. Focus is an entry id kept in state;
 * the DOM only follows it (roving tabindex on the rendered rows, and the
 * focused row is always rendered even when scrolled out of view).
 */
export function SessionTreeView({ tree, version, leafId, activePathIds, labels, onSelect, onSetLabel, onContinue, initialFilter = 'default', className }: SessionTreeViewProps) {
  const baseId = useId();
  // Rows are touch targets on a touch screen: 44 px there, denser with a mouse.
  const rowHeight = useMediaQuery('(pointer: coarse)') ? TOUCH_ROW_HEIGHT : ROW_HEIGHT;
  const helpId = `${baseId}-help`;
  const [filter, setFilter] = useState<TreeFilter>(initialFilter);
  const [query, setQuery] = useState('');
  const [folded, setFolded] = useState<ReadonlySet<EntryId>>(NO_FOLDS);
  // Folds made while searching are separate, so a search shows every match and clearing it restores the view.
  const [queryFolded, setQueryFolded] = useState<ReadonlySet<EntryId>>(NO_FOLDS);
  const [focusedId, setFocusedId] = useState<EntryId | null>(null);
  const [editingId, setEditingId] = useState<EntryId | null>(null);

  // Another session: start over.
  const [seenTree, setSeenTree] = useState(tree);
  if (seenTree !== tree) {
    setSeenTree(tree);
    setFolded(NO_FOLDS);
    setQueryFolded(NO_FOLDS);
    setQuery('');
    setFocusedId(null);
    setEditingId(null);
  }

  // Everything that re-lays out the rows goes through one deferred value: a keystroke, a fold or a selection
  // answers at once (the search box, the key model), and the O(n) relayout and row rendering of a big tree run
  // as an interruptible background render instead of one long task. The inputs travel together so the rows
  // always match one consistent state.
  const input = useMemo(
    () => ({ filter, query, folds: query.trim() ? queryFolded : folded, leafId, activePathIds }),
    [filter, query, queryFolded, folded, leafId, activePathIds],
  );
  // The first render shows the empty frame at once and lays out the rows in a second, background render:
  // opening the panel narrows the chat (a reflow of its own), and the two together would be one long task.
  const view = useDeferredValue(input, INITIAL_VIEW);
  const ready = view !== INITIAL_VIEW;
  const forest = useMemo(() => (ready ? buildForest(tree, { filter: view.filter, labels }) : EMPTY_FOREST), [tree, version, view.filter, labels, ready]); // eslint-disable-line react-hooks/exhaustive-deps
  const flat = useMemo(
    () => flattenForest(forest, { folded: view.folds, query: view.query, leafId: view.leafId, activePathIds: view.activePathIds }),
    [forest, view],
  );
  const { rows } = flat;
  /** What the rows show; `query` is what has been typed, a render ahead. */
  const shownQuery = view.query.trim();
  const searching = shownQuery !== '';
  const focusIndex = resolveFocusIndex(flat, tree, focusedId, view.query);
  const editingIndex = editingId === null ? -1 : (flat.rowIndex.get(editingId) ?? -1);

  const scrollRef = useRef<HTMLDivElement>(null);
  const rowEls = useRef(new Map<EntryId, HTMLElement>());
  /** The tree holds (or just held) keyboard focus, so a re-render may put it back on the focused row. */
  const ownsFocus = useRef(false);
  const scrollToFocus = useRef(false);
  /** Set while the component itself moves DOM focus, so the row's focus handler does not take it for a user's choice. */
  const movingFocus = useRef(false);
  const didInitialScroll = useRef<SessionTree | null>(null);

  // Keep the focused row and the row being labelled rendered, wherever the viewport is, so DOM focus never falls out.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const base = defaultRangeExtractor(range);
      const extra = [focusIndex, editingIndex].filter((i) => i >= 0 && i < range.count && !base.includes(i));
      return extra.length ? [...base, ...extra].sort((a, b) => a - b) : base;
    },
    [focusIndex, editingIndex],
  );

  // The React Compiler skips this component because of useVirtualizer; memoisation here is by hand (useMemo / memo rows).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    getItemKey: (i) => rows[i]?.id ?? i,
    rangeExtractor,
  });

  // First render of a session: bring the current leaf into view.
  useLayoutEffect(() => {
    if (didInitialScroll.current === tree || flat.currentIndex < 0) return;
    didInitialScroll.current = tree;
    virtualizer.scrollToIndex(flat.currentIndex, { align: 'center' });
  }, [tree, flat.currentIndex, virtualizer]);

  // Follow focus: scroll it into view after keyboard moves, and put DOM focus back when a re-render removed it.
  useLayoutEffect(() => {
    // While the rows are a render behind, the focused entry may not be among them yet: wait for them.
    if (view !== input) return;
    if (focusIndex >= 0 && scrollToFocus.current) {
      scrollToFocus.current = false;
      virtualizer.scrollToIndex(focusIndex, { align: 'auto' });
    }
    if (!ownsFocus.current || editingId !== null) return;
    const container = scrollRef.current;
    if (!container) return;
    const active = document.activeElement;
    // Never take focus from something outside the tree; only restore it when it fell to the body or sits on another row.
    if (active && active !== document.body && !container.contains(active)) return;
    const target = focusIndex >= 0 ? rowEls.current.get(rows[focusIndex]!.id) : container;
    if (target && active !== target) {
      movingFocus.current = true;
      target.focus({ preventScroll: true });
      movingFocus.current = false;
    }
  });

  // Warm the preview cache in idle time so the first typed character does not compute thousands of previews at once.
  useEffect(() => {
    let next = 0;
    let cancel = () => {};
    // Work while the browser says it is idle (at least a few rows per slice, so a busy page still progresses).
    const step = (deadline: { timeRemaining(): number }) => {
      const end = Math.min(next + WARM_CHUNK, forest.nodes.length);
      const minEnd = Math.min(next + 25, end);
      for (; next < end && (next < minEnd || deadline.timeRemaining() > 1); next++) previewSearchText(forest.nodes[next]!);
      if (next < forest.nodes.length) cancel = whenIdle(step);
    };
    cancel = whenIdle(step);
    return () => cancel();
  }, [forest]);

  const updateQuery = useCallback(
    (q: string) => {
      // A new search starts with everything open.
      if (!query.trim() && q.trim()) setQueryFolded(NO_FOLDS);
      setQuery(q);
    },
    [query],
  );

  // The row handlers read the latest props and query through a ref, so they stay one object and typing
  // or a new label does not re-render every memoised row just because a callback changed.
  const latest = useRef({ query, labels, onSelect, onSetLabel, onContinue });
  useLayoutEffect(() => {
    latest.current = { query, labels, onSelect, onSetLabel, onContinue };
  });

  const setFold = useCallback((id: EntryId, fold: boolean) => {
    const update = (prev: ReadonlySet<EntryId>) => {
      if (prev.has(id) === fold) return prev;
      const next = new Set(prev);
      if (fold) next.add(id);
      else next.delete(id);
      return next;
    };
    if (latest.current.query.trim()) setQueryFolded(update);
    else setFolded(update);
  }, []);

  const apply = (action: TreeAction, on: FlatTree) => {
    switch (action.type) {
      case 'focus':
        setFocusedId(on.rows[action.index]!.id);
        scrollToFocus.current = true;
        break;
      case 'expand':
      case 'collapse':
        setFold(action.id, action.type === 'collapse');
        setFocusedId(action.id);
        break;
      case 'select':
        setFocusedId(action.id);
        onSelect(action.id);
        break;
      case 'editLabel':
        setFocusedId(action.id);
        setEditingId(action.id);
        scrollToFocus.current = true;
        break;
      case 'query':
        updateQuery(action.query);
        scrollToFocus.current = true;
        break;
      case 'none':
        break;
    }
  };

  /**
   * The rows as they are after every state change so far. The rendered rows can be a render behind (deferred);
   * keys that move or fold must act on the latest state, or two quick presses would act on the same stale row.
   */
  const latestFlat = useRef<{ key: unknown[]; flat: FlatTree } | null>(null);
  const currentFlat = (): FlatTree => {
    if (view === input) return flat;
    const key = [input, tree, version, labels];
    const cached = latestFlat.current;
    if (cached && cached.key.every((k, i) => k === key[i])) return cached.flat;
    const f = input.filter === view.filter ? forest : buildForest(tree, { filter: input.filter, labels });
    const fresh = flattenForest(f, { folded: input.folds, query: input.query, leafId: input.leafId, activePathIds: input.activePathIds });
    latestFlat.current = { key, flat: fresh };
    return fresh;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if ((e.target as HTMLElement).closest('[data-tree-editor]')) return;
    const key = { key: e.key, ctrlKey: e.ctrlKey, altKey: e.altKey, metaKey: e.metaKey, isComposing: e.nativeEvent.isComposing };
    // Typing only edits the query, whatever the rows: no need to catch up on a deferred layout for it.
    const typing = e.key === 'Backspace' || e.key === 'Escape' || (isPrintable(key) && !(e.key === ' ' && !query));
    const now = typing ? flat : currentFlat();
    const action = treeKeyAction(key, {
      rows: now.rows,
      focusIndex: now === flat ? focusIndex : resolveFocusIndex(now, tree, focusedId, input.query),
      query,
      branchRows: now.branchRows,
    });
    if (action.type === 'none') return;
    e.preventDefault();
    e.stopPropagation();
    ownsFocus.current = true;
    apply(action, now);
  };

  const handlers = useMemo<RowHandlers>(
    () => ({
      onRowClick: (id) => {
        ownsFocus.current = true;
        setFocusedId(id);
        latest.current.onSelect(id);
      },
      onRowFocus: (id) => {
        ownsFocus.current = true;
        if (!movingFocus.current) setFocusedId(id);
      },
      onToggle: (id, expand) => setFold(id, !expand),
      onEditLabel: (id) => {
        setFocusedId(id);
        setEditingId(id);
      },
      onSaveLabel: (id, label) => {
        setEditingId(null);
        ownsFocus.current = true;
        if ((label ?? undefined) !== latest.current.labels.get(id)) latest.current.onSetLabel(id, label);
      },
      onCancelLabel: (restoreFocus) => {
        setEditingId(null);
        ownsFocus.current = restoreFocus;
      },
      onContinue: (id) => latest.current.onContinue?.(id),
      registerRow: (id, el) => {
        if (el) rowEls.current.set(id, el);
        else rowEls.current.delete(id);
      },
    }),
    [setFold],
  );

  // Only search results go to the live region: entry counts change with every streamed entry and would be noise.
  const searchStatus = searching ? `${flat.matchCount} matching ${flat.matchCount === 1 ? 'entry' : 'entries'}` : '';

  return (
    <div className={`stree${className ? ` ${className}` : ''}`}>
      <div className="stree-toolbar">
        <label className="stree-filter">
          <span className="stree-sr">Filter</span>
          <select
            value={filter}
            onChange={(e) => {
              if (isTreeFilter(e.target.value)) setFilter(e.target.value);
            }}
          >
            {TREE_FILTERS.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <input
          type="search"
          className="stree-search"
          aria-label="Filter tree text"
          placeholder="Type to filter…"
          value={query}
          onChange={(e) => updateQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && query) {
              e.preventDefault();
              updateQuery('');
            } else if (e.key === 'ArrowDown' && rows.length) {
              // From the search box into the results.
              e.preventDefault();
              ownsFocus.current = true;
              scrollToFocus.current = true;
              const target = rowEls.current.get(rows[focusIndex]!.id);
              target?.focus({ preventScroll: true });
            }
          }}
        />
      </div>
      <p className="stree-status">
        <span role="status">{searchStatus}</span>
        {!searching && `${formatCount(flat.visibleCount)} of ${plural(tree.size, 'entry', 'entries')} shown`}
      </p>
      <div
        ref={scrollRef}
        role="tree"
        aria-label="Session tree"
        aria-describedby={helpId}
        className="stree-scroll"
        tabIndex={rows.length ? -1 : 0}
        onKeyDown={onKeyDown}
        onFocus={() => {
          ownsFocus.current = true;
        }}
        onBlur={(e) => {
          const next = e.relatedTarget as Node | null;
          // Focus moving to a row, or a row disappearing under it (next === null while the tree re-renders), keeps ownership.
          if (next && !e.currentTarget.contains(next)) ownsFocus.current = false;
          else if (!next) {
            const left = e.target;
            requestAnimationFrame(() => {
              if (left.isConnected && document.activeElement !== left && !scrollRef.current?.contains(document.activeElement)) ownsFocus.current = false;
            });
          }
        }}
      >
        <div role="none" className="stree-sizer" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index];
            if (!row) return null;
            return (
              <TreeRowView
                key={row.id}
                row={row}
                domId={`${baseId}-row-${v.index}`}
                top={v.start}
                height={rowHeight}
                focused={v.index === focusIndex}
                editing={v.index === editingIndex}
                searching={searching}
                query={row.match ? shownQuery : ''}
                handlers={handlers}
                canContinue={onContinue !== undefined}
              />
            );
          })}
        </div>
      </div>
      {rows.length === 0 && <p className="stree-empty">{tree.size === 0 ? 'No entries yet.' : searching ? 'No entry matches the text filter.' : 'No entry passes this filter.'}</p>}
      <p id={helpId} className="stree-help">
        ↑↓ move · → open / first child · ← close / parent · PgUp/PgDn previous/next branch point · Home/End · Enter select · F2 label · type to filter, Esc clears
      </p>
    </div>
  );
}
