'use client';

import './sessions.css';
import { useDeferredValue, useState } from 'react';
import { watchSessionList, type SessionRow } from '@/lib/db';
import { useFlows } from '@/components/state/FlowsProvider';
import { useWatched } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { ConfirmDialog } from '@/components/common/ConfirmDialog';
import { sessionWhen } from '@/lib/format/sessionDate';
import { Icon } from '@/components/common/Icon';
import { SyncMarker } from '@/components/sync/SyncMarker';

export function SessionSidebar({ children }: { children?: React.ReactNode }) {
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const flows = useFlows();
  const sessions = useWatched<SessionRow[] | undefined>((cb) => watchSessionList(deferred, cb), [deferred], undefined);
  const { sessionId, selectSession, newSession } = useUi();
  const [pendingDelete, setPendingDelete] = useState<SessionRow | null>(null);

  // A draft: stored with its first message (lib/flows/draft.ts), so an unused one leaves nothing.
  const onNew = newSession;

  async function onConfirmDelete() {
    const row = pendingDelete;
    setPendingDelete(null);
    if (!row) return;
    if ((await flows.deleteSession(row)) && row.id === sessionId) selectSession(null);
  }

  return (
    <div className="sidebar">
      <div className="sidebar-actions">
        <button type="button" className="btn primary" onClick={onNew}>
          New session
        </button>
        {children}
      </div>
      <input
        type="search"
        className="search"
        placeholder="Search sessions"
        aria-label="Search sessions"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <nav aria-label="Sessions">
        {sessions === undefined ? null : sessions.length === 0 ? (
          <p className="muted small">{deferred ? 'No session matches.' : 'No sessions yet.'}</p>
        ) : (
          <ul className="session-list">
            {sessions.map((s) => (
              <SessionItem
                key={s.id}
                row={s}
                active={s.id === sessionId}
                onSelect={() => selectSession(s.id)}
                onDelete={() => setPendingDelete(s)}
              />
            ))}
          </ul>
        )}
      </nav>
      <ConfirmDialog
        open={pendingDelete !== null}
        title="Delete session?"
        confirmLabel="Delete"
        destructive
        onConfirm={onConfirmDelete}
        onCancel={() => setPendingDelete(null)}
      >
        <p>
          “{pendingDelete?.title}” and its {pendingDelete?.entryCount ?? 0} entries will be removed from this browser. Export it
          first if you may want it back.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function SessionItem({ row, active, onSelect, onDelete }: { row: SessionRow; active: boolean; onSelect: () => void; onDelete: () => void }) {
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
          className="rename-input"
          aria-label="Session title"
          autoFocus
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void commit();
            if (e.key === 'Escape') {
              setTitle(row.title);
              setEditing(false);
            }
          }}
        />
      ) : (
        <button type="button" className="session-open" aria-current={active ? 'page' : undefined} onClick={onSelect}>
          <span className="session-title">{row.title}</span>
          <span className="session-sub">
            {row.entryCount} entries · {sessionWhen(row)}
            <SyncMarker row={row} />
          </span>
        </button>
      )}
      <span className="session-tools">
        <button
          type="button"
          className="icon-btn"
          aria-label={`Rename ${row.title}`}
          title="Rename"
          onClick={() => {
            setTitle(row.title);
            setEditing(true);
          }}
        >
          <Icon name="pencil" />
        </button>
        <button type="button" className="icon-btn" aria-label={`Delete ${row.title}`} title="Delete" onClick={onDelete}>
          <Icon name="trash" />
        </button>
      </span>
    </li>
  );
}
