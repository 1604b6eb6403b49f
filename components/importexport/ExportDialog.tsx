'use client';

import { useState } from 'react';
import { useModalDialog } from '@/components/common/useModalDialog';
import { toast } from 'sonner';
import { exportAllSnapshots, exportSnapshot, setSetting } from '@/lib/db';
import { getFormatsClient, type ExportKind } from '@/workers/formatsClient';
import { downloadFile, safeFileName } from './download';

const KINDS: { kind: ExportKind; label: string; ext: string; mime: string; hint: string }[] = [
  { kind: 'jsonl', label: 'JSONL', ext: 'jsonl', mime: 'application/x-ndjson', hint: 'The app’s own format: the whole tree, every summary. Re-imports identically.' },
  { kind: 'markdown', label: 'Markdown', ext: 'md', mime: 'text/markdown', hint: 'The active path, summaries as marked blocks.' },
  { kind: 'markdown-all', label: 'Markdown, all branches', ext: 'md', mime: 'text/markdown', hint: 'Every branch of the tree.' },
  { kind: 'html', label: 'HTML', ext: 'html', mime: 'text/html', hint: 'One self-contained page that opens offline.' },
];

export const LAST_BACKUP_KEY = 'lastBackupAt';

/** Every session in one zip (one JSONL per session plus a manifest), for backup. */
export async function exportEverything() {
  try {
    const snapshots = await exportAllSnapshots();
    if (snapshots.length === 0) {
      toast.info('There are no sessions to export yet.');
      return;
    }
    const zip = await getFormatsClient().exportAll(snapshots);
    downloadFile(`longctx-backup-${new Date().toISOString().slice(0, 10)}.zip`, zip, 'application/zip');
    await setSetting(LAST_BACKUP_KEY, Date.now());
    toast.success(`Exported ${snapshots.length} session${snapshots.length === 1 ? '' : 's'}`);
  } catch (err) {
    toast.error(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function ExportButton({ sessionId, title }: { sessionId: string; title: string }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<ExportKind | null>(null);
  const ref = useModalDialog(open);

  async function run(k: (typeof KINDS)[number]) {
    setBusy(k.kind);
    try {
      const snap = await exportSnapshot(sessionId);
      if (!snap) throw new Error('The session no longer exists.');
      const text = await getFormatsClient().exportSession(snap, k.kind);
      downloadFile(safeFileName(title, k.kind === 'markdown-all' ? 'all-branches.md' : k.ext), text, k.mime);
      setOpen(false);
    } catch (err) {
      toast.error(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Export
      </button>
      <dialog ref={ref} className="dialog" aria-labelledby="export-title" onClose={() => setOpen(false)}>
        <h2 id="export-title">Export session</h2>
        <ul className="export-list">
          {KINDS.map((k) => (
            <li key={k.kind}>
              <button type="button" className="btn" disabled={busy !== null} onClick={() => run(k)}>
                {busy === k.kind ? 'Exporting…' : k.label}
              </button>
              <span className="muted small">{k.hint}</span>
            </li>
          ))}
        </ul>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
      </dialog>
    </>
  );
}
