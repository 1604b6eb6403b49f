'use client';

import './importexport.css';
import { FolderUp, Upload, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useFlows } from '@/components/state/FlowsProvider';
import { useImportState } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { droppedEntries, droppedFolder, pickedFolder } from '@/lib/browser/folderFiles';
import { progressText } from '@/lib/flows/importFiles';
import { BatchImport } from './BatchImport';
import { KeptFolders } from './KeptFolders';
import { useBatchImport } from './useBatchImport';

/** `<input webkitdirectory>`: React's types do not list the attribute, every browser supports it. */
const DIRECTORY_PICKER = { webkitdirectory: '' } as Record<string, string>;

/** The Import buttons (files, a folder), their progress and errors, and a drop target covering the whole window. */
export function ImportControls() {
  const inputRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const batch = useBatchImport();
  const flows = useFlows();
  const { active, error } = useImportState();
  const selectSession = useUi((s) => s.selectSession);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth++;
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      // A dropped folder is one batch; its entries must be taken now, the drop data is gone once this returns.
      const entries = e.dataTransfer ? droppedEntries(e.dataTransfer.items) : null;
      if (entries) {
        void droppedFolder(entries).then(({ folder, files }) => flows.importFolder(folder, files, selectSession));
        return;
      }
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length) void flows.importFiles(files, selectSession);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [flows, selectSession]);

  return (
    <>
      <button type="button" className="btn ghost block" onClick={() => inputRef.current?.click()} disabled={active !== null || batch.running !== null}>
        <Upload aria-hidden="true" className="icon" />
        Import
      </button>
      <button type="button" className="btn ghost block" onClick={() => folderRef.current?.click()} disabled={active !== null || batch.running !== null}>
        <FolderUp aria-hidden="true" className="icon" />
        Import folder
      </button>
      <KeptFolders />
      <input
        ref={folderRef}
        type="file"
        aria-label="Import folder"
        {...DIRECTORY_PICKER}
        hidden
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (!files.length) return;
          const { folder, files: batchFiles } = pickedFolder(files);
          void flows.importFolder(folder, batchFiles, selectSession);
        }}
      />
      <input
        ref={inputRef}
        type="file"
        aria-label="Import file"
        accept=".jsonl,.json,.traj,.zip,application/json,application/zip"
        multiple
        hidden
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) void flows.importFiles(files, selectSession);
        }}
      />
      {active && (
        <div className="import-progress" role="group" aria-label={`Importing ${active.fileName}`}>
          <span className="small">
            Importing {active.fileName}: {progressText(active)}
          </span>
          {/* Bytes while the file is read, then sessions as they are stored: the bar follows the work that is left. */}
          <progress
            className="progress"
            aria-label="Import progress"
            max={(active.total === null ? active.totalBytes : active.total) || 1}
            value={active.total === null ? active.bytesRead : active.stored}
          />
          <button type="button" className="link-btn" onClick={() => flows.imports.cancel()}>
            Cancel import
          </button>
        </div>
      )}
      <BatchImport />
      {error && (
        <div className="import-error" role="alert">
          <p>
            <strong>Could not import {error.fileName}.</strong> {error.message}
            {/lost|saved/i.test(error.message) ? '' : ' Nothing was saved.'}
          </p>
          <button type="button" className="link-btn" onClick={() => flows.imports.clearError()}>
            <X aria-hidden="true" className="icon" />
            Dismiss
          </button>
        </div>
      )}
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop files or a folder to import (JSONL, JSON, .traj, .zip)
        </div>
      )}
    </>
  );
}
