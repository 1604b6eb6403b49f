import { errorMessage } from '@/lib/errors';
import type { ExportKind } from '@/lib/formats/service';
import type { FlowPorts } from './ports';

export interface ExportFormat {
  kind: ExportKind;
  label: string;
  /** What the file name ends with, after the title. */
  ext: string;
  mime: string;
  hint: string;
}

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { kind: 'jsonl', label: 'JSONL', ext: 'jsonl', mime: 'application/x-ndjson', hint: 'The app’s own format: the whole tree, every summary. Re-imports identically.' },
  { kind: 'markdown', label: 'Markdown', ext: 'md', mime: 'text/markdown', hint: 'The active path, summaries as marked blocks.' },
  { kind: 'markdown-all', label: 'Markdown, all branches', ext: 'all-branches.md', mime: 'text/markdown', hint: 'Every branch of the tree.' },
  {
    kind: 'markdown-obsidian',
    label: 'Markdown for Obsidian',
    ext: 'md',
    mime: 'text/markdown',
    hint: 'The active path with YAML front matter (title, dates, model, source) that notes apps read as properties.',
  },
  { kind: 'pi-jsonl', label: 'pi session (JSONL v3)', ext: 'pi.jsonl', mime: 'application/x-ndjson', hint: 'The whole tree as a pi coding-agent session, to carry on there.' },
  { kind: 'html', label: 'HTML', ext: 'html', mime: 'text/html', hint: 'One self-contained page that opens offline.' },
];

/** A file name from a session title: letters, digits, dashes; never empty. */
export function safeFileName(title: string, ext: string): string {
  const base = title.normalize('NFKD').replace(/[^\w\- ]+/g, '').trim().replace(/\s+/g, '-').slice(0, 60) || 'session';
  return `${base}.${ext}`;
}

/** Renders one session in the worker and saves it. Resolves true when the file was saved. */
export async function exportSession(ports: FlowPorts, sessionId: string, title: string, format: ExportFormat): Promise<boolean> {
  try {
    const snap = await ports.store.exportSnapshot(sessionId);
    if (!snap) throw new Error('The session no longer exists.');
    const text = await ports.formats.exportSession(snap, format.kind);
    ports.saveFile(safeFileName(title, format.ext), text, format.mime);
    return true;
  } catch (err) {
    ports.notify.error(`Export failed: ${errorMessage(err)}`);
    return false;
  }
}

/** Every session in one zip (one JSONL per session plus a manifest), for backup. */
export async function exportEverything(ports: FlowPorts): Promise<void> {
  const { store, notify } = ports;
  try {
    const snapshots = await store.exportAllSnapshots();
    if (snapshots.length === 0) {
      notify.info('There are no sessions to export yet.');
      return;
    }
    const zip = await ports.formats.exportAll(snapshots);
    const now = ports.now?.() ?? Date.now();
    ports.saveFile(`longctx-backup-${new Date(now).toISOString().slice(0, 10)}.zip`, zip, 'application/zip');
    await store.setLastBackupAt(now);
    notify.success(`Exported ${snapshots.length} session${snapshots.length === 1 ? '' : 's'}`);
  } catch (err) {
    notify.error(`Export failed: ${errorMessage(err)}`);
  }
}

const WEEK = 7 * 24 * 3600 * 1000;

/** Whether to remind about a backup: sessions older than a week, and no backup for a week (or ever). */
export async function backupReminder(ports: FlowPorts): Promise<'never' | 'stale' | null> {
  const now = ports.now?.() ?? Date.now();
  const [sessions, last] = await Promise.all([ports.store.listSessions(), ports.store.getLastBackupAt()]);
  const oldest = sessions.reduce((m, s) => Math.min(m, s.createdAt), Infinity);
  const due = sessions.length > 0 && now - oldest > WEEK && (last === null || now - last > WEEK);
  if (!due) return null;
  return last === null ? 'never' : 'stale';
}
