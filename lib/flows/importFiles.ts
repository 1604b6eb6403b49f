import { errorMessage } from '@/lib/errors';
import { skippedText } from '@/lib/formats/types';
import { newId } from '@/lib/session/ids';
import { Observable } from './observable';
import { importToStore } from './importToStore';
import type { FlowPorts, ImportFileOptions, ImportProgress } from './ports';
import { formatCount } from '@/lib/format/numbers';

export interface ImportState {
  /**
   * The file being imported: bytes read, then sessions stored ("stored 1,200
   * of 2,000"; `total` is known once the whole file is read).
   */
  active: ({ fileName: string } & ImportProgress) | null;
  error: { fileName: string; message: string } | null;
}

/** Import progress, the last error, and a Cancel for the import controls. */
export class ImportTracker extends Observable<ImportState> {
  private stop: (() => void) | null = null;

  constructor() {
    super({ active: null, error: null });
  }

  clearError(): void {
    this.update((s) => ({ ...s, error: null }));
  }

  /** Stops the file being imported (nothing of it is kept) and the files after it. */
  cancel(): void {
    this.stop?.();
  }

  /** @internal the flow's handle on the import it runs. */
  begin(stop: () => void): void {
    this.stop = stop;
  }
}

/** Worker errors arrive as "Error: …" or "ImportError: …"; the user needs the sentence only. */
function cleanError(err: unknown): string {
  return errorMessage(err).replace(/^(Error|ImportError):\s*/, '');
}

export const isCancel = (err: unknown): boolean => (err as { name?: unknown } | null)?.name === 'AbortError';

const plural = (n: number, one: string) => `${formatCount(n)} ${one}${n === 1 ? '' : 's'}`;

/** What an update added, for its notice: "12 new messages", and where they went when the user had gone on here. */
export function updateText(u: { entries: number; messages: number; onBranch: boolean }): string {
  const what = u.messages > 0 ? plural(u.messages, 'new message') : `${formatCount(u.entries)} new ${u.entries === 1 ? 'entry' : 'entries'}`;
  return u.onBranch ? `${what}, on a branch of their own (you went on here since the last import)` : what;
}

/** "Stored 1,200 of 2,000 sessions", or the bytes read while the file is still being read; for progress labels. */
export function progressText(p: ImportProgress): string {
  if (p.total === null) return `Read ${Math.floor((100 * p.bytesRead) / Math.max(1, p.totalBytes))}%, stored ${plural(p.stored, 'session')}`;
  return `Stored ${formatCount(p.stored)} of ${plural(p.total, 'session')}`;
}

/**
 * Imports files one after another. Each is read, parsed and stored in the
 * formats worker (ports.formats.importFileToStore): the page holds neither
 * the file nor its sessions, and a file lands whole or not at all. Errors
 * name the file and the line, and keep nothing. `onImported` hears the first
 * session of each file that landed (to open it).
 */
export async function importFiles(ports: FlowPorts, tracker: ImportTracker, files: File[], onImported: (sessionId: string) => void): Promise<void> {
  const { formats, notify } = ports;
  let cancelled = false;
  let current: string | null = null;
  const stop = () => {
    cancelled = true;
    if (current) void formats.cancelImport(current);
  };
  tracker.begin(stop);

  async function importOne(file: File, opts: ImportFileOptions): Promise<void> {
    const importId = newId();
    current = importId;
    const start: ImportProgress = { bytesRead: 0, totalBytes: file.size, stored: 0, total: null };
    tracker.set({ active: { fileName: file.name, ...start }, error: null });
    try {
      const result = await importToStore(formats, file, file.name, { ...opts, importId }, (p) =>
        tracker.update((s) => ({ ...s, active: { fileName: file.name, ...p } })),
      );
      for (const w of result.warnings.slice(0, 3)) notify.warning(`${file.name}: ${w}`);
      if (result.read === 0) throw new Error(`The file holds no conversation${skippedText(result.skipped) ? ` (${skippedText(result.skipped)})` : ''}.`);
      const leftOut = skippedText(result.skipped);
      const fresh = result.imported.length - result.copies.length;
      const first = result.imported[0]?.id ?? result.updated[0]?.id;
      if (first) onImported(first);
      if (fresh > 0) notify.success(`Imported ${plural(fresh, 'session')} from ${file.name}${leftOut && !opts.only ? ` (${leftOut})` : ''}`);
      if (result.updated.length === 1) {
        const u = result.updated[0]!;
        notify.success(`Updated “${u.title}” from ${file.name}: ${updateText(u)}`);
      } else if (result.updated.length > 1) {
        notify.success(`Updated ${plural(result.updated.length, 'session')} from ${file.name} with ${plural(result.updated.reduce((n, u) => n + u.messages, 0), 'new message')}`);
      }
      for (const c of result.copies) {
        notify.warning(`“${c.title}” in ${file.name} changed in its earlier part (${c.reason}), so it was imported as a copy; the session imported before is as it was.`, { durationMs: 15_000 });
      }
      if (result.duplicates.length > 0) {
        const names = result.duplicates.map((d) => `“${d.title}”`).join(', ');
        const only = result.duplicates.map((d) => d.index);
        notify.info(`Already imported: ${names}. Nothing was duplicated.`, {
          durationMs: 12_000,
          action: {
            label: 'Import a copy',
            // By position in the file: two conversations of one file may share a title.
            run: () => {
              // The copy is read after the files were: it takes the Cancel (a stop once the work is done reaches nothing).
              tracker.begin(stop);
              void importOne(file, { allowDuplicates: true, only }).finally(() => tracker.update((s) => ({ ...s, active: null })));
            },
          },
        });
      }
    } catch (err) {
      if (isCancel(err)) {
        notify.info(`Import of ${file.name} cancelled; nothing from it was saved.`);
        return;
      }
      const message = cleanError(err);
      tracker.update((s) => ({ ...s, error: { fileName: file.name, message } }));
      notify.error(`Could not import ${file.name}: ${message}`);
    } finally {
      current = null;
    }
  }

  try {
    for (const file of files) {
      if (cancelled) break;
      await importOne(file, {});
      tracker.update((s) => ({ ...s, active: null }));
    }
  } finally {
    tracker.update((s) => ({ ...s, active: null }));
  }
}
