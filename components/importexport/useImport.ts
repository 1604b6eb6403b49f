'use client';

import { create } from 'zustand';
import { toast } from 'sonner';
import { importSnapshots } from '@/lib/db';
import type { SessionSnapshot } from '@/lib/session/types';
import { useUi } from '@/components/app/uiStore';
import { getFormatsClient, progressProxy } from '@/workers/formatsClient';

interface ImportState {
  active: { fileName: string; bytesRead: number; totalBytes: number } | null;
  error: { fileName: string; message: string } | null;
  clearError: () => void;
}

export const useImportState = create<ImportState>((set) => ({
  active: null,
  error: null,
  clearError: () => set({ error: null }),
}));

function cleanWorkerError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/^(Error|ImportError):\s*/, '');
}

async function writeSnapshots(snapshots: SessionSnapshot[], fileName: string, allowDuplicates: boolean) {
  const outcome = await importSnapshots(snapshots, { allowDuplicates, fileName });
  if (outcome.imported.length > 0) {
    useUi.getState().selectSession(outcome.imported[0]!.id);
    toast.success(`Imported ${outcome.imported.length} session${outcome.imported.length === 1 ? '' : 's'} from ${fileName}`);
  }
  if (outcome.duplicates.length > 0) {
    const names = outcome.duplicates.map((d) => `“${d.title}”`).join(', ');
    toast.info(`Already imported: ${names}. Nothing was duplicated.`, {
      duration: 12_000,
      action: {
        label: 'Import a copy',
        onClick: () => {
          // By position: two conversations of one file may share a title.
          void writeSnapshots(
            outcome.duplicates.map((d) => snapshots[d.index]!),
            fileName,
            true,
          ).catch((err: unknown) => toast.error(cleanWorkerError(err)));
        },
      },
    });
  }
}

/**
 * Imports files one after another: parsed in the worker (streamed, with
 * progress), then written in one transaction per file, so a file lands whole
 * or not at all. Errors name the file and the line, and write nothing.
 */
export async function importFiles(files: File[]) {
  const client = getFormatsClient();
  for (const file of files) {
    useImportState.setState({ active: { fileName: file.name, bytesRead: 0, totalBytes: file.size }, error: null });
    try {
      const result = await client.importFile(
        file,
        file.name,
        progressProxy((bytesRead, totalBytes) => useImportState.setState({ active: { fileName: file.name, bytesRead, totalBytes } })),
      );
      for (const w of result.warnings.slice(0, 3)) toast.warning(`${file.name}: ${w}`);
      if (result.sessions.length === 0) throw new Error('The file holds no conversation.');
      await writeSnapshots(result.sessions, file.name, false);
    } catch (err) {
      const message = cleanWorkerError(err);
      useImportState.setState({ error: { fileName: file.name, message } });
      toast.error(`Could not import ${file.name}: ${message}`);
    } finally {
      useImportState.setState({ active: null });
    }
  }
}
