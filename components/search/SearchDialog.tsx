'use client';

import './search.css';
import { useEffect, useId, useRef, useState } from 'react';
import { watchSessionList } from '@/lib/db';
import { formatRelative } from '@/lib/format/numbers';
import type { SearchHit, SearchResults } from '@/lib/search/service';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { useUi } from '@/components/state/uiStore';
import { focusComposer } from '@/components/state/composerFocus';

const KIND: Record<SearchHit['kind'], string> = { user: 'You', assistant: 'Assistant', summary: 'Summary', title: 'Title' };

/** Waits this long after the last key before searching, so a fast typist does not queue a search per letter. */
const TYPING_PAUSE_MS = 120;

/**
 * Search across every session's messages (the search worker's index). A
 * combobox over a listbox: arrows move through the results, Enter opens the
 * session at the message, Esc closes. The results follow changes to the
 * sessions while the dialog is open (a reply arriving, another tab).
 */
export function SearchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useModalDialog(open);
  const flows = useFlows();
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<SearchResults | null>(null);
  const [active, setActive] = useState(0);
  // Until the first index build is done, the status line says so.
  const [indexed, setIndexed] = useState(false);
  const [revision, setRevision] = useState(0);
  const latest = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const optionId = (i: number) => `${listId}-o${i}`;

  // Focused when shown, after useModalDialog's showModal: React's autoFocus would focus the input when the
  // closed dialog mounts with the app, a forced style recalculation (18 ms) in the app's start for nothing.
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  // Opening starts the index build (the first time) while the user types.
  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    void flows.warmSearch().then(() => !cancelled && setIndexed(true));
    return () => {
      cancelled = true;
    };
  }, [open, flows]);

  // Any session written while open (any tab): search again.
  useEffect(() => {
    if (!open) return;
    let first = true;
    return watchSessionList('', () => {
      if (!first) setRevision((r) => r + 1);
      first = false;
    });
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const ticket = ++latest.current;
    const timer = setTimeout(
      async () => {
        const r = query.trim() ? await flows.search(query) : null;
        // An older search answering late must not replace a newer one.
        if (ticket !== latest.current) return;
        setResults(r);
        setActive((a) => (r && a < r.hits.length ? a : 0));
      },
      query.trim() ? TYPING_PAUSE_MS : 0,
    );
    return () => clearTimeout(timer);
  }, [open, query, revision, flows]);

  const hits = results?.hits ?? [];

  function choose(hit: SearchHit) {
    onClose();
    useUi.getState().openAt(hit.sessionId, hit.entryId);
    // Another session focuses its message box when it shows; the one already open is focused here.
    requestAnimationFrame(() => focusComposer());
  }

  function onKeyDown(e: React.KeyboardEvent<HTMLInputElement>) {
    if (e.nativeEvent.isComposing) return;
    const move = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (move && hits.length) {
      e.preventDefault();
      setActive((a) => (a + move + hits.length) % hits.length);
    } else if (e.key === 'Home' && e.ctrlKey && hits.length) {
      e.preventDefault();
      setActive(0);
    } else if (e.key === 'End' && e.ctrlKey && hits.length) {
      e.preventDefault();
      setActive(hits.length - 1);
    } else if (e.key === 'Enter' && hits[active]) {
      e.preventDefault();
      choose(hits[active]);
    }
  }

  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  });

  const status = !query.trim()
    ? !indexed
      ? 'Indexing your sessions…'
      : 'Type to search every session’s messages.'
    : results === null
      ? 'Searching…'
      : hits.length === 0
        ? 'No messages match.'
        : results.total > hits.length
          ? `${results.total} matches, the best ${hits.length} shown.`
          : `${results.total} ${results.total === 1 ? 'match' : 'matches'}.`;

  return (
    <dialog ref={ref} className="dialog search-dialog" aria-labelledby={`${listId}-title`} onClose={onClose}>
      <h2 id={`${listId}-title`}>Search</h2>
      <div className="dialog-body search-body">
        <input
          type="search"
          role="combobox"
          className="search-input"
          aria-label="Search messages"
          aria-expanded={hits.length > 0}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={hits.length ? optionId(active) : undefined}
          ref={input}
          placeholder="Words from any message…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <p className="muted small search-status" role="status">
          {status}
        </p>
        <ul id={listId} role="listbox" aria-label="Results" className="search-results">
          {hits.map((h, i) => (
            // The input keeps focus and drives the list (aria-activedescendant); a click opens the result too.
            // eslint-disable-next-line jsx-a11y/click-events-have-key-events
            <li
              key={`${h.sessionId}/${h.entryId ?? ''}`}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              className="search-hit"
              onClick={() => choose(h)}
              onMouseMove={() => setActive(i)}
            >
              <span className="search-hit-head">
                <span className="search-hit-title">{h.sessionTitle}</span>
                <span className="muted small search-hit-meta">
                  {KIND[h.kind]} · {formatRelative(h.timestamp)}
                </span>
              </span>
              <span className="search-hit-snippet">
                {h.snippet.before}
                {h.snippet.match && <mark>{h.snippet.match}</mark>}
                {h.snippet.after}
              </span>
            </li>
          ))}
        </ul>
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
