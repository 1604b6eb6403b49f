'use client';

import './sessions.css';
import { Archive, ArchiveRestore, Download, FolderInput, Layers, ListChecks, Pin, PinOff, Search, SquarePen, Tag, Trash2, X } from 'lucide-react';
import { defaultRangeExtractor, useVirtualizer, type Range, type VirtualItem } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useEffect, useId, useMemo, useRef, useState } from 'react';
import { watchSessionList, type SessionRow } from '@/lib/db';
import { listGroups, NO_PROJECT, type ListFilter } from '@/lib/session/listView';
import { projectSummaries, tagSummaries, type OrganizeChange } from '@/lib/session/organize';
import { useFlows } from '@/components/state/FlowsProvider';
import { useWatched } from '@/components/state/hooks';
import { useNow } from '@/components/state/useNow';
import { useUi } from '@/components/state/uiStore';
import { ConfirmDialog } from '@/components/common/ConfirmDialog';
import { IconButton } from '@/components/common/IconButton';
import { useNewSession } from './useNewSession';
import { SessionItem } from './SessionItem';
import { MoveDialog, TagDialog } from './OrganizeDialogs';
import { formatCount } from '@/lib/format/numbers';

/**
 * The session list: New session, a search, filters by project and tag, the
 * archive, the sessions (pinned first, then grouped by when they were last
 * used), selection of many for bulk actions, and the app's own actions in the
 * footer. A column on wide screens, a drawer on a phone (`onCloseDrawer` is
 * then its close button). Thousands of sessions: the list is virtual, and
 * filtering runs over the rows kept in memory (lib/db/sessionList.ts).
 */
type ListRow = { kind: 'group'; group: number } | { kind: 'item'; group: number; row: SessionRow };
type Dialog = 'tags' | 'move' | 'delete' | null;

const ALL = '';

export function SessionSidebar({ footer, onCloseDrawer }: { footer?: React.ReactNode; onCloseDrawer?: () => void }) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const flows = useFlows();
  const all = useWatched<SessionRow[] | undefined>((cb) => watchSessionList('', cb), [], undefined);
  // Narrow selectors: the store also holds every draft, and typing must not render the list again.
  const sessionId = useUi((s) => s.sessionId);
  const selectSession = useUi((s) => s.selectSession);
  const [pendingDelete, setPendingDelete] = useState<SessionRow | null>(null);
  const [project, setProject] = useState(ALL);
  const [tag, setTag] = useState(ALL);
  const [archived, setArchived] = useState(false);
  const [selecting, setSelecting] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);
  const newSession = useNewSession();
  const now = useNow();
  const baseId = useId();

  const projects = useMemo(() => (all ? projectSummaries(all) : []), [all]);
  const tags = useMemo(() => (all ? tagSummaries(all) : []), [all]);
  const archivedCount = useMemo(() => (all ? all.reduce((n, r) => n + (r.archived ? 1 : 0), 0) : 0), [all]);
  // A filter on a project or tag that no longer exists (its last session moved) falls back to all.
  const projectFilter = project === ALL || project === NO_PROJECT || projects.some((p) => p.project === project) ? project : ALL;
  const tagFilter = tag === ALL || tags.some((t) => t.tag === tag) ? tag : ALL;
  const filter: ListFilter = useMemo(
    () => ({ archived, query: deferred, ...(projectFilter !== ALL ? { project: projectFilter } : {}), ...(tagFilter !== ALL ? { tag: tagFilter } : {}) }),
    [archived, deferred, projectFilter, tagFilter],
  );
  const groups = useMemo(() => (all ? listGroups(all, filter, now) : []), [all, filter, now]);
  const shownRows = useMemo(() => groups.flatMap((g) => g.items), [groups]);
  const rows = useMemo(() => groups.flatMap((g, group): ListRow[] => [{ kind: 'group', group }, ...g.items.map((row) => ({ kind: 'item' as const, group, row }))]), [groups]);
  const byId = useMemo(() => new Map((all ?? []).map((r) => [r.id, r])), [all]);
  // Sessions deleted meanwhile (here or in another tab) leave the selection.
  const chosen = useMemo(() => [...selected].filter((id) => byId.has(id)), [selected, byId]);
  const chosenRows = useMemo(() => chosen.map((id) => byId.get(id)!), [chosen, byId]);

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

  // While selecting, Escape in the list stops and Ctrl/⌘+A selects every session shown (listened to natively: the
  // list is a landmark, not a widget, and these keys belong to the checkboxes and buttons inside it).
  useEffect(() => {
    const nav = navRef.current;
    if (!nav || !selecting) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        setSelecting(false);
        setSelected(new Set());
        anchor.current = null;
      } else if (e.key.toLowerCase() === 'a' && (e.ctrlKey || e.metaKey) && !(e.target instanceof HTMLInputElement && e.target.type === 'text')) {
        e.preventDefault();
        setSelected((cur) => new Set([...cur, ...shownRows.map((r) => r.id)]));
      }
    };
    nav.addEventListener('keydown', onKey);
    return () => nav.removeEventListener('keydown', onKey);
  }, [selecting, shownRows]);

  // A new filter starts at the top of its list.
  useEffect(() => {
    navRef.current?.scrollTo({ top: 0 });
  }, [filter]);

  const toggle = useCallback(
    (id: string, range: boolean) => {
      setSelected((cur) => {
        const next = new Set(cur);
        const from = anchor.current === null ? -1 : shownRows.findIndex((r) => r.id === anchor.current);
        const to = shownRows.findIndex((r) => r.id === id);
        if (range && from >= 0 && to >= 0) {
          // Shift: everything between the last one toggled and this one takes that one's state.
          const on = cur.has(anchor.current!);
          for (const r of shownRows.slice(Math.min(from, to), Math.max(from, to) + 1)) {
            if (on) next.add(r.id);
            else next.delete(r.id);
          }
        } else if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      });
      if (!range) anchor.current = id;
    },
    [shownRows],
  );

  function stopSelecting() {
    setSelecting(false);
    setSelected(new Set());
    anchor.current = null;
  }

  async function onConfirmDelete() {
    const row = pendingDelete;
    setPendingDelete(null);
    if (!row) return;
    if ((await flows.deleteSession(row)) && row.id === sessionId) selectSession(null);
  }

  async function apply(change: OrganizeChange) {
    setDialog(null);
    await flows.organize(chosen, change);
  }

  const allShownSelected = shownRows.length > 0 && shownRows.every((r) => selected.has(r.id));
  const someShownSelected = shownRows.some((r) => selected.has(r.id));
  const allPinned = chosenRows.length > 0 && chosenRows.every((r) => r.pinned);
  const allArchived = chosenRows.length > 0 && chosenRows.every((r) => r.archived);
  const countText = (() => {
    const n = shownRows.length;
    if (deferred.trim()) return `${formatCount(n)} ${n === 1 ? 'match' : 'matches'}`;
    return `${formatCount(n)} ${archived ? 'archived ' : ''}${n === 1 ? 'session' : 'sessions'}`;
  })();

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
      {all !== undefined && all.length > 0 && (
        <div className="session-filters" role="group" aria-label="Filter sessions">
          <select className="filter-select" aria-label="Project" value={projectFilter} onChange={(e) => setProject(e.target.value)}>
            <option value={ALL}>All projects</option>
            {projects.map((p) => (
              <option key={p.project} value={p.project}>
                {p.label} ({formatCount(p.count)})
              </option>
            ))}
            <option value={NO_PROJECT}>No project</option>
          </select>
          <select className="filter-select" aria-label="Tag" value={tagFilter} onChange={(e) => setTag(e.target.value)} disabled={tags.length === 0 && tagFilter === ALL}>
            <option value={ALL}>All tags</option>
            {tags.map((t) => (
              <option key={t.tag} value={t.tag}>
                {t.tag} ({formatCount(t.count)})
              </option>
            ))}
          </select>
          <button type="button" className="btn ghost filter-archive" aria-pressed={archived} title={archived ? 'Back to the sessions' : 'Show the archive'} onClick={() => setArchived((a) => !a)}>
            <Archive aria-hidden="true" className="icon" />
            {/* The count is visible, so it is part of the name too ("Archived sessions 3"). */}
            <span className="sr-only">Archived sessions </span>
            <span>{formatCount(archivedCount)}</span>
          </button>
        </div>
      )}
      {all !== undefined && all.length > 0 && (
        <div className="session-count-row">
          {/* The list is virtual (only the rows in view are in the page), so how many there are is said here. */}
          <p id={`${baseId}-count`} className="session-count">
            {countText}
          </p>
          <IconButton icon={ListChecks} size="sm" label="Select sessions" tooltip={selecting ? 'Stop selecting' : 'Select several'} aria-pressed={selecting} onClick={() => (selecting ? stopSelecting() : setSelecting(true))} />
        </div>
      )}
      {selecting && (
        <div className="selection-bar" role="toolbar" aria-label="Selected sessions" aria-orientation="horizontal">
          <label className="check selection-all">
            <input
              type="checkbox"
              aria-label="Select all shown"
              checked={allShownSelected}
              ref={(el) => {
                if (el) el.indeterminate = someShownSelected && !allShownSelected;
              }}
              onChange={() => setSelected((cur) => (allShownSelected ? new Set([...cur].filter((id) => !shownRows.some((r) => r.id === id))) : new Set([...cur, ...shownRows.map((r) => r.id)])))}
            />
            <span aria-live="polite">{formatCount(chosen.length)} selected</span>
          </label>
          <div className="selection-actions">
            <IconButton icon={allPinned ? PinOff : Pin} size="sm" text="always" label={allPinned ? 'Unpin' : 'Pin'} disabled={!chosen.length} onClick={() => void apply({ pinned: !allPinned })} />
            <IconButton
              icon={allArchived ? ArchiveRestore : Archive}
              size="sm"
              text="always"
              label={allArchived ? 'Unarchive' : 'Archive'}
              disabled={!chosen.length}
              onClick={() => void apply({ archived: !allArchived })}
            />
            <IconButton icon={Tag} size="sm" text="always" label="Tag" disabled={!chosen.length} onClick={() => setDialog('tags')} />
            <IconButton icon={FolderInput} size="sm" text="always" label="Move" disabled={!chosen.length} onClick={() => setDialog('move')} />
            <IconButton icon={Download} size="sm" text="always" label="Export" disabled={!chosen.length} onClick={() => void flows.exportSessions(chosen)} />
            <IconButton icon={Trash2} size="sm" text="always" label="Delete" disabled={!chosen.length} onClick={() => setDialog('delete')} />
            <IconButton icon={X} size="sm" text="always" label="Done" onClick={stopSelecting} />
          </div>
        </div>
      )}
      <nav
        ref={navRef}
        aria-label="Sessions"
        aria-describedby={all?.length ? `${baseId}-count` : undefined}
        className="session-nav"
        onFocus={(e) => setFocusKey(e.target.closest<HTMLElement>('[data-session-id]')?.dataset.sessionId ?? null)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget)) setFocusKey(null);
        }}
      >
        {all === undefined ? null : shownRows.length === 0 ? (
          <p className="session-empty">{emptyText(all.length, filter)}</p>
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
                        selecting={selecting}
                        selected={selected.has(row.id)}
                        onSelect={selectSession}
                        onToggle={toggle}
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
      <ConfirmDialog
        open={dialog === 'delete'}
        title={`Delete ${formatCount(chosen.length)} session${chosen.length === 1 ? '' : 's'}?`}
        confirmLabel="Delete"
        destructive
        onConfirm={async () => {
          setDialog(null);
          const ids = chosen;
          if ((await flows.deleteSessions(ids)) > 0) {
            if (sessionId && ids.includes(sessionId)) selectSession(null);
            setSelected(new Set());
          }
        }}
        onCancel={() => setDialog(null)}
      >
        <p>They will be removed from this browser with all their entries. Export them first if you may want them back.</p>
      </ConfirmDialog>
      {dialog === 'tags' && <TagDialog rows={chosenRows} allTags={tags.map((t) => t.tag)} onApply={(c) => void apply(c)} onClose={() => setDialog(null)} />}
      {dialog === 'move' && <MoveDialog rows={chosenRows} projects={projects} onApply={(c) => void apply(c)} onClose={() => setDialog(null)} />}
    </div>
  );
}

function emptyText(total: number, f: ListFilter): string {
  if (total === 0) return 'No sessions yet. Start one, or import a transcript.';
  if (f.query?.trim()) return 'No session matches.';
  if (f.archived) return f.project !== undefined || f.tag !== undefined ? 'No archived session here.' : 'Nothing is archived.';
  return 'No session here.';
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
