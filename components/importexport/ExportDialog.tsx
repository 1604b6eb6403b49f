'use client';

import './importexport.css';
import { useState } from 'react';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { EXPORT_FORMATS, type ExportFormat } from '@/lib/flows/exportSessions';
import type { ExportKind } from '@/lib/formats/service';

export function ExportButton({ sessionId, title }: { sessionId: string; title: string }) {
  const flows = useFlows();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<ExportKind | null>(null);
  const ref = useModalDialog(open);

  async function run(format: ExportFormat) {
    setBusy(format.kind);
    if (await flows.exportSession(sessionId, title, format)) setOpen(false);
    setBusy(null);
  }

  return (
    <>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Export
      </button>
      <dialog ref={ref} className="dialog" aria-labelledby="export-title" onClose={() => setOpen(false)}>
        <h2 id="export-title">Export session</h2>
        <ul className="export-list">
          {EXPORT_FORMATS.map((k) => (
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
