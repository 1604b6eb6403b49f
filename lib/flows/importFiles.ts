import { errorMessage } from '@/lib/errors';
import { skippedText } from '@/lib/formats/types';
import type { SessionSnapshot } from '@/lib/session/types';
import { Observable } from './observable';
import type { FlowPorts } from './ports';

export interface ImportState {
  active: { fileName: string; bytesRead: number; totalBytes: number } | null;
  error: { fileName: string; message: string } | null;
}

/** Import progress and the last error, for the import controls to show. */
export class ImportTracker extends Observable<ImportState> {
  constructor() {
    super({ active: null, error: null });
  }

  clearError(): void {
    this.update((s) => ({ ...s, error: null }));
  }
}

/** Worker errors arrive as "Error: …" or "ImportError: …"; the user needs the sentence only. */
function cleanError(err: unknown): string {
  return errorMessage(err).replace(/^(Error|ImportError):\s*/, '');
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * Imports files one after another: parsed in the worker (streamed, with
 * progress), then written in one transaction per file, so a file lands whole
 * or not at all. Errors name the file and the line, and write nothing.
 * `onImported` hears the first session of each file that landed (to open it).
 */
export async function importFiles(ports: FlowPorts, tracker: ImportTracker, files: File[], onImported: (sessionId: string) => void): Promise<void> {
  const { formats, notify } = ports;

  async function write(snapshots: SessionSnapshot[], fileName: string, allowDuplicates: boolean, leftOut = ''): Promise<void> {
    const outcome = await ports.store.importSnapshots(snapshots, { allowDuplicates, fileName });
    if (outcome.imported.length > 0) {
      onImported(outcome.imported[0]!.id);
      notify.success(`Imported ${plural(outcome.imported.length, 'session')} from ${fileName}${leftOut ? ` (${leftOut})` : ''}`);
    }
    if (outcome.duplicates.length > 0) {
      const names = outcome.duplicates.map((d) => `“${d.title}”`).join(', ');
      notify.info(`Already imported: ${names}. Nothing was duplicated.`, {
        durationMs: 12_000,
        action: {
          label: 'Import a copy',
          run: () =>
            // By position: two conversations of one file may share a title.
            void write(
              outcome.duplicates.map((d) => snapshots[d.index]!),
              fileName,
              true,
            ).catch((err: unknown) => notify.error(cleanError(err))),
        },
      });
    }
  }

  for (const file of files) {
    tracker.set({ active: { fileName: file.name, bytesRead: 0, totalBytes: file.size }, error: null });
    try {
      const result = await formats.importFile(file, file.name, (bytesRead, totalBytes) =>
        tracker.update((s) => ({ ...s, active: { fileName: file.name, bytesRead, totalBytes } })),
      );
      for (const w of result.warnings.slice(0, 3)) notify.warning(`${file.name}: ${w}`);
      if (result.sessions.length === 0) throw new Error(`The file holds no conversation${skippedText(result.skipped) ? ` (${skippedText(result.skipped)})` : ''}.`);
      await write(result.sessions, file.name, false, skippedText(result.skipped));
    } catch (err) {
      const message = cleanError(err);
      tracker.update((s) => ({ ...s, error: { fileName: file.name, message } }));
      notify.error(`Could not import ${file.name}: ${message}`);
    } finally {
      tracker.update((s) => ({ ...s, active: null }));
    }
  }
}
