'use client';

import { LoaderCircle } from 'lucide-react';
import { Markdown } from '@/components/common/Markdown';
import type { Run } from '@/lib/flows/runs';

const RUN_LABELS: Partial<Record<Run['kind'], string>> = {
  compaction: 'Compaction in progress',
  'branch-summary': 'Branch summary in progress',
  continuation: 'Summary for a new session in progress',
};

/** A summary being written outside the Compact dialog (auto-compaction, branch summaries), streamed as it comes. */
export function RunStatus({ run }: { run: Run }) {
  return (
    <section className="run-status" aria-label={RUN_LABELS[run.kind] ?? 'Summary in progress'} aria-busy="true">
      <header className="run-status-head">
        <LoaderCircle aria-hidden="true" className="spin" />
        <strong className="grow">{run.status ?? 'Summarising…'}</strong>
        <button type="button" className="btn" onClick={() => run.abort.abort()}>
          Cancel
        </button>
      </header>
      {run.text && (
        <div className="run-text">
          <Markdown text={run.text} />
        </div>
      )}
    </section>
  );
}
