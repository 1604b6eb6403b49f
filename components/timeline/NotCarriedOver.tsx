'use client';

import './notCarried.css';
import { Pin, RefreshCw } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { ProbeReport } from '@/lib/compaction/probes/report';
import type { SessionFlows } from '@/lib/flows/app';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import { focusInstructions, healthText, notCarriedOver, type MissedItem } from '@/lib/timeline/notCarried';


/**
 * What a summary carries of the span it replaced and what it lost, with one
 * click to add a lost item back: pin the message it came from (it then
 * reaches the model verbatim), or re-summarise with the item as focus.
 * Scored in a worker, once per summary version.
 */
export function NotCarriedOver({
  session,
  probeKey,
  span,
  summary,
  canPin,
  pinned,
  disabled,
  onResummarise,
}: {
  session: SessionFlows;
  /** Names the summary's version (summaryProbeKey): the report is computed once for it. */
  probeKey: string;
  /** The entries the summary replaced. */
  span: readonly SessionEntry[];
  summary: string;
  canPin: (id: EntryId) => boolean;
  pinned: ReadonlySet<EntryId>;
  /** Actions are off (a run in progress, another branch). */
  disabled: boolean;
  /** Absent where the summary cannot be regenerated (its history is not here). */
  onResummarise?: (instructions: string) => void;
}) {
  // The report of the key it was computed for: a newer version of the summary shows "checking" until its own arrives.
  const [done, setDone] = useState<{ key: string; report: ProbeReport | null } | null>(null);
  const [all, setAll] = useState(false);
  useEffect(() => {
    let cancelled = false;
    void session.summaryProbes(probeKey, span, summary).then((report) => !cancelled && setDone({ key: probeKey, report }));
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- probeKey names span and summary
  }, [session, probeKey]);

  if (done?.key !== probeKey) return <p className="muted small">Checking what the summary carries…</p>;
  const { report } = done;
  if (!report) return null;
  const health = healthText(report);
  if (health === null) return <p className="muted small">The summarised part had nothing to check the summary against.</p>;
  const list = notCarriedOver(report, { all, canPin, pinned });
  return (
    <section className="not-carried" aria-label="What the summary carries">
      <p className="health">
        <strong>{health}</strong>{' '}
        <span className="muted small">
          ({report.answered} of {report.total} checks)
        </span>
      </p>
      {list.total === 0 ? (
        <p className="muted small">Nothing the checks look for was lost.</p>
      ) : (
        <>
          <h4 className="not-carried-title" id={`not-carried-${probeKey}`}>
            Not carried over ({list.total})
          </h4>
          <ul className="not-carried-groups" aria-labelledby={`not-carried-${probeKey}`}>
            {list.groups.map((g) => (
              <li key={g.kind}>
                <span className="not-carried-kind" id={`nc-${probeKey}-${g.kind}`}>
                  {g.title}
                </span>
                <ul aria-labelledby={`nc-${probeKey}-${g.kind}`}>
                  {g.items.map((item) => (
                    <Item key={item.key} item={item} disabled={disabled} session={session} onResummarise={onResummarise} />
                  ))}
                </ul>
              </li>
            ))}
          </ul>
          {list.total > list.shown || all ? (
            <button type="button" className="link-btn" aria-expanded={all} onClick={() => setAll(!all)}>
              {all ? 'Show fewer' : `Show all ${list.total}`}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

function Item({ item, disabled, session, onResummarise }: { item: MissedItem; disabled: boolean; session: SessionFlows; onResummarise?: (instructions: string) => void }) {
  return (
    <li className="not-carried-item">
      <span className="not-carried-label">{item.label}</span>
      <span className="not-carried-actions">
        {item.pin === 'pinned' && <span className="tag">pinned: kept verbatim</span>}
        {item.pin === 'pin' && (
          <button type="button" className="btn ghost not-carried-btn" disabled={disabled} aria-label={`Pin the message “${item.label}” came from`} onClick={() => void session.setPinned(item.entryId!, true)}>
            <Pin aria-hidden="true" className="icon" />
            Pin the message
          </button>
        )}
        {onResummarise && (
          <button type="button" className="btn ghost not-carried-btn" disabled={disabled} aria-label={`Re-summarise with “${item.label}” as focus`} onClick={() => onResummarise(focusInstructions(item))}>
            <RefreshCw aria-hidden="true" className="icon" />
            Re-summarise
          </button>
        )}
      </span>
    </li>
  );
}
