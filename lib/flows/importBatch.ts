import { errorMessage } from '@/lib/errors';
import { skippedText, type SkippedCount } from '@/lib/formats/types';
import { newId } from '@/lib/session/ids';
import { isCancel } from './importFiles';
import { Observable } from './observable';
import { importToStore } from './importToStore';
import type { FlowPorts } from './ports';
import { formatCount } from '@/lib/format/numbers';

/**
 * Importing a whole folder (`~/.claude/projects`, `~/.codex/sessions`, a
 * directory of exports): hundreds of files as one batch with one progress
 * (files and bytes), one summary at the end, and a Cancel that stops the file
 * being read (nothing of it is kept) and the ones after it. Every file is read,
 * parsed and stored in the worker, whole or not at all, so a bad file is
 * skipped with its reason and never blocks the others.
 */

/** A file of the folder and its path inside it (`project/session.jsonl`). */
export interface BatchFile {
  file: Blob;
  path: string;
}

export interface BatchProgress {
  folder: string;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** The file being read. */
  current: string | null;
}

export interface BatchSummary {
  folder: string;
  /** Files that looked like sessions and were read (or tried). */
  files: number;
  /** New sessions (copies of changed ones included). */
  sessionsImported: number;
  /** Sessions already here that a grown file continued: their new entries were appended. */
  sessionsUpdated: number;
  /** Sessions that were already in the browser, unchanged (same file content, or the same entries): not duplicated. */
  alreadyImported: number;
  /** Sessions already here whose earlier part changed in the file: imported as copies (counted in sessionsImported), with why. */
  copies: { path: string; title: string; reason: string }[];
  /** Files not imported, with why: not a session file, not a format the app reads, damaged, … */
  skipped: { path: string; reason: string }[];
  /** Conversations inside imported files left out on purpose ("2 empty conversations skipped"). */
  leftOutInside: string;
  cancelled: boolean;
  seconds: number;
}

export interface BatchState {
  running: BatchProgress | null;
  summary: BatchSummary | null;
}

/** Extensions the importers read; anything else in a folder is left out unread. */
const SESSION_FILE = /\.(jsonl|json|traj|zip)$/i;

export class BatchImportTracker extends Observable<BatchState> {
  private abort: AbortController | null = null;

  constructor() {
    super({ running: null, summary: null });
  }

  /** Stops the batch: the file being read is not kept, the files imported before it stay. */
  cancel(): void {
    this.abort?.abort();
  }

  dismiss(): void {
    this.update((s) => ({ ...s, summary: null }));
  }

  /** @internal the flow's handle on the batch it runs. */
  begin(): AbortSignal {
    this.abort?.abort();
    this.abort = new AbortController();
    return this.abort.signal;
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** One sentence for the notice when a batch ends: "N updated, M new, K unchanged", then what went otherwise. */
export function batchSentence(s: BatchSummary): string {
  const counts = `${formatCount(s.sessionsUpdated)} updated, ${formatCount(s.sessionsImported)} new, ${formatCount(s.alreadyImported)} unchanged`;
  const parts = [`${s.cancelled ? 'Cancelled: ' : ''}Sessions from ${s.folder}: ${counts}`];
  if (s.copies.length) parts.push(`${plural(s.copies.length, 'session')} changed in ${s.copies.length === 1 ? 'its' : 'their'} earlier part, imported as ${s.copies.length === 1 ? 'a copy' : 'copies'}`);
  if (s.skipped.length) parts.push(`${plural(s.skipped.length, 'file')} skipped`);
  if (s.leftOutInside) parts.push(s.leftOutInside);
  return `${parts.join('; ')}.`;
}

const cleanError = (err: unknown) => errorMessage(err).replace(/^(Error|ImportError):\s*/, '');

/** `quiet`: a check nobody asked for just now (on focus) says something only when sessions were imported or updated. */
export async function importBatch(
  ports: FlowPorts,
  tracker: BatchImportTracker,
  folder: string,
  all: readonly BatchFile[],
  onImported: (sessionId: string) => void,
  opts: { quiet?: boolean } = {},
): Promise<BatchSummary> {
  const signal = tracker.begin();
  const started = ports.now?.() ?? Date.now();
  const files = [...all].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Hidden files (.DS_Store, editor backups) are never sessions.
  const isCandidate = (f: BatchFile) => SESSION_FILE.test(f.path) && !/(^|\/)\./.test(f.path);
  const candidates = files.filter(isCandidate);
  const skipped: BatchSummary['skipped'] = files
    .filter((f) => !isCandidate(f))
    .map((f) => ({ path: f.path, reason: 'not a session file (the app reads .jsonl, .json, .traj and .zip)' }));
  const leftOut = new Map<string, SkippedCount>();
  const progress: BatchProgress = { folder, filesDone: 0, filesTotal: candidates.length, bytesDone: 0, bytesTotal: candidates.reduce((n, f) => n + f.file.size, 0), current: null };
  tracker.set({ running: { ...progress }, summary: null });
  let sessionsImported = 0;
  let sessionsUpdated = 0;
  let alreadyImported = 0;
  const copies: BatchSummary['copies'] = [];
  let opened = false;
  let cancelled = false;
  for (const { file, path } of candidates) {
    if (signal.aborted) {
      cancelled = true;
      break;
    }
    const name = path.split('/').pop() ?? path;
    const before = progress.bytesDone;
    tracker.update((s) => ({ ...s, running: { ...progress, current: path } }));
    try {
      const importId = newId();
      // Cancel stops the file being read too: nothing of it is kept, the files before it stay.
      const stop = () => void ports.formats.cancelImport(importId);
      signal.addEventListener('abort', stop);
      const result = await importToStore(ports.formats, file, name, { importId }, (p) =>
        tracker.update((s) => ({ ...s, running: { ...progress, current: path, bytesDone: before + p.bytesRead } })),
      ).finally(() => signal.removeEventListener('abort', stop));
      for (const c of result.skipped ?? []) {
        const cur = leftOut.get(c.one);
        leftOut.set(c.one, { ...c, count: (cur?.count ?? 0) + c.count });
      }
      if (result.read === 0) skipped.push({ path, reason: 'it holds no conversation' });
      else {
        sessionsImported += result.imported.length;
        sessionsUpdated += result.updated.length;
        alreadyImported += result.duplicates.length;
        for (const c of result.copies) copies.push({ path, title: c.title, reason: c.reason });
        const first = result.imported[0]?.id ?? result.updated[0]?.id;
        if (!opened && first) {
          opened = true;
          onImported(first);
        }
      }
    } catch (err) {
      if (isCancel(err)) {
        cancelled = true;
        break;
      }
      skipped.push({ path, reason: cleanError(err) });
    }
    progress.filesDone++;
    progress.bytesDone = before + file.size;
    tracker.update((s) => ({ ...s, running: { ...progress, current: null } }));
  }
  const summary: BatchSummary = {
    folder,
    files: candidates.length,
    sessionsImported,
    sessionsUpdated,
    alreadyImported,
    copies,
    skipped,
    leftOutInside: skippedText([...leftOut.values()]),
    cancelled,
    seconds: ((ports.now?.() ?? Date.now()) - started) / 1000,
  };
  tracker.set({ running: null, summary });
  const sentence = batchSentence(summary);
  if (sessionsImported + sessionsUpdated > 0 && !cancelled) ports.notify.success(sentence);
  else if (!opts.quiet) ports.notify.info(sentence);
  return summary;
}
