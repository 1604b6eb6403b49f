'use client';

import { Archive, ArchiveRestore, Pencil, Pin, PinOff, Trash2 } from 'lucide-react';
import { memo, useState } from 'react';
import type { SessionRow } from '@/lib/db';
import { sessionWhen } from '@/lib/format/sessionDate';
import { projectLabel, projectOf } from '@/lib/session/organize';
import { useFlows } from '@/components/state/FlowsProvider';
import { IconButton } from '@/components/common/IconButton';
import { SyncMarker } from '@/components/sync/SyncMarker';

export interface SessionItemProps {
  index: number;
  /** 1-based place in its group and the group's size: a virtual list has only some of its items in the page. */
  position: number;
  groupSize: number;
  offset: number;
  measure: (el: Element | null) => void;
  row: SessionRow;
  now: number;
  active: boolean;
  /** Selecting: a checkbox leads the row. */
  selecting: boolean;
  selected: boolean;
  onSelect: (id: string) => void;
  /** `range`: Shift was held, select everything from the last one toggled. */
  onToggle: (id: string, range: boolean) => void;
  onDelete: (row: SessionRow) => void;
}

/** One session; memoised, and its handlers take the row, so a change elsewhere in the list does not render it again. */
export const SessionItem = memo(function SessionItem({ index, position, groupSize, offset, measure, row, now, active, selecting, selected, onSelect, onToggle, onDelete }: SessionItemProps) {
  const flows = useFlows();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(row.title);
  const project = projectOf(row);

  async function commit() {
    setEditing(false);
    if (title.trim() && title !== row.title) await flows.renameSession(row.id, title);
  }

  return (
    <li
      ref={measure}
      data-index={index}
      aria-posinset={position}
      aria-setsize={groupSize}
      data-session-id={row.id}
      className={`session-item${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${offset}px)` }}
    >
      {selecting && (
        <label className="session-check">
          <input
            type="checkbox"
            aria-label={`Select ${row.title}`}
            checked={selected}
            onChange={() => {}}
            onClick={(e) => onToggle(row.id, e.shiftKey)}
          />
        </label>
      )}
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
        <button
          type="button"
          className="session-open"
          aria-current={active ? 'page' : undefined}
          // Selecting, the row toggles like its checkbox; Tab goes from checkbox to checkbox.
          tabIndex={selecting ? -1 : undefined}
          onClick={(e) => (selecting ? onToggle(row.id, e.shiftKey) : onSelect(row.id))}
          onKeyDown={(e) => {
            if (e.key === 'F2') {
              e.preventDefault();
              setTitle(row.title);
              setEditing(true);
            }
          }}
        >
          <span className="session-title">
            {row.pinned && <Pin aria-hidden="true" className="icon session-pin" />}
            {row.title}
          </span>
          <span className="session-sub">
            {row.entryCount} entries · {sessionWhen(row, now)}
            {project !== undefined && <span className="session-project"> · {projectLabel(project)}</span>}
            {row.archived && <span className="tag">Archived</span>}
            {row.tags?.map((t) => (
              <span key={t} className="tag">
                {t}
              </span>
            ))}
            <SyncMarker row={row} />
          </span>
        </button>
      )}
      {!editing && !selecting && (
        <span className="session-tools">
          <IconButton
            icon={row.pinned ? PinOff : Pin}
            size="sm"
            label={`${row.pinned ? 'Unpin' : 'Pin'} ${row.title}`}
            tooltip={row.pinned ? 'Unpin' : 'Pin to the top'}
            onClick={() => void flows.organize([row.id], { pinned: !row.pinned })}
          />
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
          <IconButton
            icon={row.archived ? ArchiveRestore : Archive}
            size="sm"
            label={`${row.archived ? 'Unarchive' : 'Archive'} ${row.title}`}
            tooltip={row.archived ? 'Unarchive' : 'Archive'}
            onClick={() => void flows.organize([row.id], { archived: !row.archived })}
          />
          <IconButton icon={Trash2} size="sm" label={`Delete ${row.title}`} tooltip="Delete" onClick={() => onDelete(row)} />
        </span>
      )}
    </li>
  );
});
