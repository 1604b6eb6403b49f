'use client';

import { useId, useState } from 'react';
import type { SessionRow } from '@/lib/db';
import { parseTags, projectLabel, projectOf, type OrganizeChange, type ProjectSummary } from '@/lib/session/organize';
import { DialogHeader } from '@/components/common/DialogHeader';
import { useModalDialog } from '@/components/common/useModalDialog';

const sessionsText = (n: number) => `${n} session${n === 1 ? '' : 's'}`;

/**
 * Tags for the chosen sessions: tags to add (typed, comma-separated, with the
 * existing ones offered), and the tags they have, each kept unless unchecked.
 */
export function TagDialog({ rows, allTags, onApply, onClose }: { rows: SessionRow[]; allTags: string[]; onApply: (change: OrganizeChange) => void; onClose: () => void }) {
  const ref = useModalDialog(true);
  const titleId = useId();
  const listId = useId();
  const [text, setText] = useState('');
  const present = [...new Map(rows.flatMap((r) => r.tags ?? []).map((t) => [t.toLowerCase(), t])).values()];
  const [removed, setRemoved] = useState<Set<string>>(new Set());
  const count = (t: string) => rows.filter((r) => r.tags?.some((x) => x.toLowerCase() === t.toLowerCase())).length;
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <DialogHeader id={titleId} title={`Tags of ${sessionsText(rows.length)}`} onClose={onClose} />
      <form
        className="dialog-body organize-form"
        onSubmit={(e) => {
          e.preventDefault();
          onApply({ addTags: parseTags(text), removeTags: [...removed] });
        }}
      >
        <label className="field">
          <span>Add tags</span>
          <input type="text" list={listId} value={text} onChange={(e) => setText(e.target.value)} placeholder="bug, review" autoFocus />
          <span className="hint">Separate tags with commas.</span>
        </label>
        <datalist id={listId}>
          {allTags.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        {present.length > 0 && (
          <fieldset className="organize-tags">
            <legend>Tags they have (uncheck to remove)</legend>
            {present.map((t) => (
              <label key={t} className="check">
                <input
                  type="checkbox"
                  checked={!removed.has(t)}
                  onChange={(e) =>
                    setRemoved((s) => {
                      const next = new Set(s);
                      if (e.target.checked) next.delete(t);
                      else next.add(t);
                      return next;
                    })
                  }
                />
                {t} <span className="muted small">({count(t)})</span>
              </label>
            ))}
          </fieldset>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary">
            Save tags
          </button>
        </div>
      </form>
    </dialog>
  );
}

const AUTO = '\u0000auto';
const NONE = '\u0000none';
const NEW = '\u0000new';

/** Moves the chosen sessions to a project: one that exists, a new one, none, or back to their working directory's. */
export function MoveDialog({ rows, projects, onApply, onClose }: { rows: SessionRow[]; projects: ProjectSummary[]; onApply: (change: OrganizeChange) => void; onClose: () => void }) {
  const ref = useModalDialog(true);
  const titleId = useId();
  const agents = rows.some((r) => r.cwd);
  const current = new Set(rows.map((r) => projectOf(r)));
  const only = current.size === 1 ? [...current][0] : undefined;
  const [choice, setChoice] = useState<string>(only ?? (projects.length ? projects[0]!.project : NEW));
  const [name, setName] = useState('');
  const change = (): OrganizeChange | null => {
    if (choice === AUTO) return { project: null };
    if (choice === NONE) return { project: '' };
    if (choice === NEW) return name.trim() ? { project: name } : null;
    return { project: choice };
  };
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <DialogHeader id={titleId} title={`Move ${sessionsText(rows.length)} to a project`} onClose={onClose} />
      <form
        className="dialog-body organize-form"
        onSubmit={(e) => {
          e.preventDefault();
          const c = change();
          if (c) onApply(c);
        }}
      >
        <label className="field">
          <span>Project</span>
          <select value={choice} onChange={(e) => setChoice(e.target.value)}>
            {projects.map((p) => (
              <option key={p.project} value={p.project}>
                {p.label} ({p.count})
              </option>
            ))}
            <option value={NEW}>New project…</option>
            <option value={NONE}>No project</option>
            {agents && <option value={AUTO}>Its working directory (automatic)</option>}
          </select>
        </label>
        {choice === NEW && (
          <label className="field">
            <span>New project name</span>
            <input type="text" value={name} onChange={(e) => setName(e.target.value)} autoFocus required />
          </label>
        )}
        {only !== undefined && choice === only && <p className="muted small">They are in {projectLabel(only)} already.</p>}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={choice === NEW && !name.trim()}>
            Move
          </button>
        </div>
      </form>
    </dialog>
  );
}
