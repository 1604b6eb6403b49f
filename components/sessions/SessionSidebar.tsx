'use client';

import './sessions.css';
import { Layers, Pencil, Search, SquarePen, Trash2, X } from 'lucide-react';
import { defaultRangeExtractor, useVirtualizer, type Range, type VirtualItem } from '@tanstack/react-virtual';
import { memo, useCallback, useDeferredValue, useId, useMemo, useRef, useState } from 'react';
import { watchSessionList, type SessionRow } from '@/lib/db';
import { groupByAge } from '@/lib/format/ageGroups';
import { useFlows } from '@/components/state/FlowsProvider';
import { useWatched } from '@/components/state/hooks';
import { useNow } from '@/components/state/useNow';
import { useUi } from '@/components/state/uiStore';
import { ConfirmDialog } from '@/components/common/ConfirmDialog';
import { sessionWhen } from '@/lib/format/sessionDate';
import { SyncMarker } from '@/components/sync/SyncMarker';
import { IconButton } from '@/components/common/IconButton';
import { useNewSession } from './useNewSession';
import { formatCount } from '@/lib/format/numbers';

/**
 * The session list: New session, a search, the sessions grouped by when they
 * were last used, and the app's own actions in the footer. A column on wide
 * screens, a drawer on a phone (`onCloseDrawer` is then its close button).
 */
type ListRow = { kind: 'group'; group: number } | { kind: 'item'; group: number; row: SessionRow };

export function SessionSidebar({ footer, onCloseDrawer }: { footer?: React.ReactNode; onCloseDrawer?: () => void }) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const flows = useFlows();
  const sessions = useWatched<SessionRow[] | undefined>((cb) => watchSessionList(deferred, cb), [deferred], undefined);
  // Narrow selectors: the store also holds every draft, and typing must not render the list again.
  const sessionId = useUi((s) => s.sessionId);
  const selectSession = useUi((s) => s.selectSession);
  const [pendingDelete, setPendingDelete] = useState<SessionRow | null>(null);
  const newSession = useNewSession();
  const now = useNow();
  const baseId = useId();
  const groups = useMemo(() => (sessions ? groupByAge(sessions, (s) => s.updatedAt, now) : []), [sessions, now]);
  const rows = useMemo(() => groups.flatMap((g, group): ListRow[] => [{ kind: 'group', group }, ...g.items.map((row) => ({ kind: 'item' as const, group, row }))]), [groups]);
  const navRef = useRef<HTMLElement>(null);
  // The row holding focus (a session's button, its rename field) stays in the page when scrolled out of view.
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const focusIndex = focusKey === null ? -1 : rows.findIndex((r) => r.kind === 'item' && r.row.id === focusKey);
  const keepFocused = useCallback(
    (range: Range) => {
      const base = defaultRangeExtractor(range);
      return focusIndex >= 0 && focusIndex < range.count && !base.includes(focusIndex) ? [...base, focusIndex].sort((a, b) => a - b) : base;
    },
    [focusIndex],
  );
  // Thousands of sessions: only the rows in view (and a few around them) are in the page. The
  // virtualizer is read during render on purpose (its offsets), as in MessageList and the tree.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => navRef.current,
    estimateSize: (i) => (rows[i]!.kind === 'group' ? 36 : 50),
    getItemKey: (i) => {
      const r = rows[i]!;
      return r.kind === 'group' ? `group:${groups[r.group]!.label}` : r.row.id;
    },
    overscan: 10,
    gap: 1,
    rangeExtractor: keepFocused,
  });
  const shown = visibleGroups(rows, virtualizer.getVirtualItems());

  async function onConfirmDelete() {
    const row = pendingDelete;
    setPendingDelete(null);
    if (!row) return;
    if ((await flows.deleteSession(row)) && row.id === sessionId) selectSession(null);
  }

  return (
    <div className="sidebar">
      <div className="sidebar-head">
        <span className="brand">
          <span className="brand-mark small" aria-hidden="true">
            <Layers className="icon" />
          </span>
          <span className="brand-name">Longctx</span>
        </span>
        {onCloseDrawer && <IconButton icon={X} label="Close sessions" onClick={onCloseDrawer} className="drawer-close" />}
      </div>
      <button type="button" className="btn primary new-session" onClick={() => void newSession()} data-drawer-start="">
        <SquarePen aria-hidden="true" className="icon" />
        New session
      </button>
      <div className="search-box">
        <Search aria-hidden="true" className="icon" />
        <input type="search" className="search" placeholder="Search sessions" aria-label="Search sessions" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      {sessions !== undefined && sessions.length > 0 && (
        // The list is virtual (only the rows in view are in the page), so how many there are is said here.
        <p id={`${baseId}-count`} className="session-count">
          {formatCount(sessions.length)} {deferred ? (sessions.length === 1 ? 'match' : 'matches') : sessions.length === 1 ? 'session' : 'sessions'}
        </p>
      )}
      <nav
        ref={navRef}
        aria-label="Sessions"
        aria-describedby={sessions?.length ? `${baseId}-count` : undefined}
        className="session-nav"
        onFocus={(e) => setFocusKey(e.target.closest<HTMLElement>('[data-session-id]')?.dataset.sessionId ?? null)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget)) setFocusKey(null);
        }}
      >
        {sessions === undefined ? null : sessions.length === 0 ? (
          <p className="session-empty">{deferred ? 'No session matches.' : 'No sessions yet. Start one, or import a transcript.'}</p>
        ) : (
          <div className="session-rows" style={{ height: virtualizer.getTotalSize() }}>
            {shown.map(({ group, head, items }) => (
              // Each group in view keeps its heading and list (the heading may be scrolled out of view above).
              <section key={groups[group]!.label} className="session-group" aria-labelledby={`${baseId}-g${group}`}>
                <h2
                  id={`${baseId}-g${group}`}
                  className="session-group-title"
                  data-index={head}
                  ref={virtualizer.measureElement}
                  style={{ transform: `translateY(${virtualizer.measurementsCache[head]?.start ?? 0}px)` }}
                >
                  {groups[group]!.label}
                </h2>
                <ul className="session-list">
                  {items.map((v) => {
                    const row = (rows[v.index] as Extract<ListRow, { kind: 'item' }>).row;
                    return (
                      <SessionItem
                        key={row.id}
                        index={v.index}
                        position={v.index - head}
                        groupSize={groups[group]!.items.length}
                        offset={v.start}
                        measure={virtualizer.measureElement}
                        row={row}
                        now={now}
                        active={row.id === sessionId}
                        onSelect={selectSession}
                        onDelete={setPendingDelete}
                      />
                    );
                  })}
                </ul>
              </section>
            ))}
          </div>
        )}
      </nav>
      {footer && <div className="sidebar-footer">{footer}</div>}
      <ConfirmDialog
        open={pendingDelete !== null}
        title="Delete session?"
        confirmLabel="Delete"
        destructive
        onConfirm={onConfirmDelete}
        onCancel={() => setPendingDelete(null)}
      >
        <p>
          “{pendingDelete?.title}” and its {pendingDelete?.entryCount ?? 0} entries will be removed from this browser. Export it first if you may want it
          back.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** The virtual rows in view, by group in list order, with the index of each group's heading row. */
function visibleGroups(rows: ListRow[], items: VirtualItem[]): { group: number; head: number; items: VirtualItem[] }[] {
  const out: { group: number; head: number; items: VirtualItem[] }[] = [];
  for (const v of items) {
    const r = rows[v.index];
    if (!r) continue;
    let last = out.at(-1);
    if (!last || last.group !== r.group) {
      let head = v.index;
      while (head > 0 && rows[head]!.kind !== 'group') head--;
      last = { group: r.group, head, items: [] };
      out.push(last);
    }
    if (r.kind === 'item') last.items.push(v);
  }
  return out;
}

interface SessionItemProps {
  index: number;
  /** 1-based place in its group and the group's size: a virtual list has only some of its items in the page. */
  position: number;
  groupSize: number;
  offset: number;
  measure: (el: Element | null) => void;
  row: SessionRow;
  now: number;
  active: boolean;
  onSelect: (id: string) => void;
  onDelete: (row: SessionRow) => void;
}

/** One session; memoised, and its handlers take the row, so a change elsewhere in the list does not render it again. */
const SessionItem = memo(function SessionItem({ index, position, groupSize, offset, measure, row, now, active, onSelect, onDelete }: SessionItemProps) {
  const flows = useFlows();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(row.title);

  async function commit() {
    setEditing(false);
    if (title.trim() && title !== row.title) await flows.renameSession(row.id, title);
  }

  return (
    <li ref={measure} data-index={index} aria-posinset={position} aria-setsize={groupSize} data-session-id={row.id} className={`session-item${active ? ' active' : ''}`} style={{ transform: `translateY(${offset}px)` }}>
      {editing ? (
        <input
          className="rename-input input"
          aria-label="Session title"
          autoFocus
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void commit();
            if (e.key === 'Escape') {
              e.stopPropagation();
              setTitle(row.title);
              setEditing(false);
            }
          }}
        />
      ) : (
        <button type="button" className="session-open" aria-current={active ? 'page' : undefined} onClick={() => onSelect(row.id)}>
          <span className="session-title">{row.title}</span>
          <span className="session-sub">
            {row.entryCount} entries · {sessionWhen(row, now)}
            <SyncMarker row={row} />
          </span>
        </button>
      )}
      {!editing && (
        <span className="session-tools">
          <IconButton
            icon={Pencil}
            size="sm"
            label={`Rename ${row.title}`}
            tooltip="Rename"
            onClick={() => {
              setTitle(row.title);
              setEditing(true);
            }}
          />
          <IconButton icon={Trash2} size="sm" label={`Delete ${row.title}`} tooltip="Delete" onClick={() => onDelete(row)} />
        </span>
      )}
    </li>
  );
});
