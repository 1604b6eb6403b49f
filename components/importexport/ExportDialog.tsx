'use client';

import './importexport.css';
import { Download, FileCode2, FileJson, FileTerminal, FileText, Files, NotebookText, type LucideIcon } from 'lucide-react';
import { useId, useState } from 'react';
import { DialogHeader } from '@/components/common/DialogHeader';
import { IconButton } from '@/components/common/IconButton';
import { useModalDialog } from '@/components/common/useModalDialog';
import { useFlows } from '@/components/state/FlowsProvider';
import { EXPORT_FORMATS, type ExportFormat } from '@/lib/flows/exportSessions';
import type { ExportKind } from '@/lib/formats/service';

const ICONS: Record<ExportKind, LucideIcon> = { jsonl: FileJson, markdown: FileText, 'markdown-all': Files, 'markdown-obsidian': NotebookText, html: FileCode2, 'pi-jsonl': FileTerminal };

export function ExportButton({ sessionId, title }: { sessionId: string; title: string }) {
  const flows = useFlows();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<ExportKind | null>(null);
  const ref = useModalDialog(open);
  const id = useId();

  async function run(format: ExportFormat) {
    setBusy(format.kind);
    if (await flows.exportSession(sessionId, title, format)) setOpen(false);
    setBusy(null);
  }

  return (
    <>
      <IconButton icon={Download} label="Export" text="wide" onClick={() => setOpen(true)} />
      <dialog ref={ref} className="dialog sheet" aria-labelledby={`${id}-title`} onClose={() => setOpen(false)}>
        <DialogHeader id={`${id}-title`} title="Export session" onClose={() => setOpen(false)} />
        <div className="dialog-body export-body">
          <ul className="export-list">
            {EXPORT_FORMATS.map((k) => {
              const Icon = ICONS[k.kind] ?? FileText;
              return (
                <li key={k.kind} className="export-option">
                  <Icon aria-hidden="true" className="icon" />
                  <span className="export-option-text">
                    {/* The button is the format's name; its ::after covers the card, so the whole card is the target. */}
                    <button type="button" className="export-option-name" disabled={busy !== null} aria-describedby={`${id}-${k.kind}-hint`} onClick={() => run(k)}>
                      {busy === k.kind ? 'Exporting…' : k.label}
                    </button>
                    <span id={`${id}-${k.kind}-hint`} className="export-option-hint">
                      {k.hint}
                    </span>
                  </span>
                </li>
              );
            })}
          </ul>
        </div>
      </dialog>
    </>
  );
}
