'use client';

import './continue.css';
import { useEffect, useState } from 'react';
import { useFlows } from '@/components/state/FlowsProvider';
import { useUi } from '@/components/state/uiStore';
import type { ContinuedFrom as Link, StoredSession } from '@/lib/session/types';
import { useJump } from './jumpStore';

/**
 * The line at the top of a session continued from another: which session and
 * a way back to the message it continues from, or that the source is not in
 * this browser (deleted, or never imported here).
 */
export function ContinuedFrom({ link }: { link: Link }) {
  const flows = useFlows();
  const selectSession = useUi((s) => s.selectSession);
  const jump = useJump((s) => s.jump);
  const [source, setSource] = useState<StoredSession | null | undefined>(undefined);

  useEffect(() => {
    let cancelled = false;
    void flows.findContinuationSource(link).then((s) => {
      if (!cancelled) setSource(s ?? null);
    });
    return () => {
      cancelled = true;
    };
  }, [flows, link]);

  return (
    <p className="continued-from" role="note" aria-label="Continued from">
      Continues “{link.title}” from one of its messages.{' '}
      {source ? (
        <button
          type="button"
          className="link-btn"
          onClick={() => {
            jump(source.id, link.entryId);
            selectSession(source.id);
          }}
        >
          Open “{source.title}”
        </button>
      ) : source === null ? (
        <span>That session is not in this browser.</span>
      ) : null}
    </p>
  );
}
