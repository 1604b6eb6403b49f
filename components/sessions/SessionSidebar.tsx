'use client';

import './sessions.css';
import { Layers, Pencil, Search, SquarePen, Trash2, X } from 'lucide-react';
import { useDeferredValue, useId, useMemo, useState } from 'react';
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

/**
 * The session list: New session, a search, the sessions grouped by when they
 * were last used, and the app's own actions in the footer. A column on wide
 * screens, a drawer on a phone (`onCloseDrawer` is then its close button).
 */
export function SessionSidebar({ footer, onCloseDrawer }: { footer?: React.ReactNode; onCloseDrawer?: () => void }) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const flows = useFlows();
  const sessions = useWatched<SessionRow[] | undefined>((cb) => watchSessionList(deferred, cb), [deferred], undefined);
  const { sessionId, selectSession } = useUi();
  const [pendingDelete, setPendingDelete] = useState<SessionRow | null>(null);
  const newSession = useNewSession();
  const now = useNow();
  const baseId = useId();
  const groups = useMemo(() => (sessions ? groupByAge(sessions, (s) => s.updatedAt, now) : []), [sessions, now]);

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
      <nav aria-label="Sessions" className="session-nav">
        {sessions === undefined ? null : sessions.length === 0 ? (
          <p className="session-empty">{deferred ? 'No session matches.' : 'No sessions yet. Start one, or import a transcript.'}</p>
        ) : (
          groups.map((g, i) => (
            <section key={g.label} className="session-group" aria-labelledby={`${baseId}-g${i}`}>
              <h2 id={`${baseId}-g${i}`} className="session-group-title">
                {g.label}
              </h2>
              <ul className="session-list">
                {g.items.map((s) => (
                  <SessionItem key={s.id} row={s} now={now} active={s.id === sessionId} onSelect={() => selectSession(s.id)} onDelete={() => setPendingDelete(s)} />
                ))}
              </ul>
            </section>
          ))
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

function SessionItem({ row, now, active, onSelect, onDelete }: { row: SessionRow; now: number; active: boolean; onSelect: () => void; onDelete: () => void }) {
  const flows = useFlows();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(row.title);

  async function commit() {
    setEditing(false);
    if (title.trim() && title !== row.title) await flows.renameSession(row.id, title);
  }

  return (
    <li className={`session-item${active ? ' active' : ''}`}>
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
        <button type="button" className="session-open" aria-current={active ? 'page' : undefined} onClick={onSelect}>
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
          <IconButton icon={Trash2} size="sm" label={`Delete ${row.title}`} tooltip="Delete" onClick={onDelete} />
        </span>
      )}
    </li>
  );
}
