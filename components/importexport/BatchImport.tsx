'use client';

import './importexport.css';
import { useFlows } from '@/components/state/FlowsProvider';
import { formatBytes } from '@/lib/format/numbers';
import { useBatchImport } from './useBatchImport';

/** Groups skipped files by reason, most common first. */
function byReason(skipped: readonly { path: string; reason: string }[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const s of skipped) {
    const list = groups.get(s.reason);
    if (list) list.push(s.path);
    else groups.set(s.reason, [s.path]);
  }
  return [...groups].sort((a, b) => b[1].length - a[1].length);
}

/** The folder import: one progress for the batch (files and bytes) with Cancel, then its summary. */
export function BatchImport() {
  const flows = useFlows();
  const { running, summary } = useBatchImport();
  if (running) {
    return (
      <section className="import-progress batch-import" aria-label="Folder import">
        <span className="small">
          Importing {running.folder}: {running.filesDone} of {running.filesTotal} files · {formatBytes(running.bytesDone)} of {formatBytes(running.bytesTotal)}
        </span>
        <progress className="progress" aria-label="Folder import progress" max={running.bytesTotal || 1} value={running.bytesDone} />
        <button type="button" className="link-btn" onClick={() => flows.batch.cancel()}>
          Cancel
        </button>
      </section>
    );
  }
  if (!summary) return null;
  const groups = byReason(summary.skipped);
  return (
    <section className="batch-summary" role="status" aria-label="Folder import summary">
      <strong>
        {summary.cancelled ? 'Folder import cancelled' : 'Folder imported'}: {summary.folder}
      </strong>
      <ul className="small">
        <li>{summary.sessionsUpdated} updated</li>
        <li>{summary.sessionsImported} new</li>
        <li>{summary.alreadyImported} unchanged</li>
        <li>{summary.skipped.length} files skipped</li>
        {summary.leftOutInside && <li>{summary.leftOutInside}</li>}
      </ul>
      {summary.copies.length > 0 && (
        <details>
          <summary>Imported as copies ({summary.copies.length})</summary>
          <ul className="small">
            {summary.copies.slice(0, 50).map((c) => (
              <li key={c.path + c.title}>
                “{c.title}” (<code>{c.path}</code>): {c.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {groups.length > 0 && (
        <details>
          <summary>Skipped files</summary>
          {groups.map(([reason, paths]) => (
            <div key={reason} className="small">
              <p>
                {reason} ({paths.length})
              </p>
              <ul>
                {paths.slice(0, 50).map((p) => (
                  <li key={p}>
                    <code>{p}</code>
                  </li>
                ))}
                {paths.length > 50 && <li>… and {paths.length - 50} more</li>}
              </ul>
            </div>
          ))}
        </details>
      )}
      <button type="button" className="link-btn" onClick={() => flows.batch.dismiss()}>
        Dismiss
      </button>
    </section>
  );
}
