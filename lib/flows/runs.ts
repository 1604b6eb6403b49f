import type { EntryId } from '@/lib/session/types';
import { Observable } from './observable';

export type RunKind = 'reply' | 'compaction' | 'branch-summary' | 'continuation';

/** Something this tab is streaming for a session: a reply or a summary. One at a time per session. */
export interface Run {
  sessionId: string;
  kind: RunKind;
  /** Where the reply will hang (reply runs), to show a pending bubble before the entry exists. */
  parentId: EntryId | null;
  entryId: EntryId | null;
  text: string;
  reasoning: string;
  /** A short status line ("Compacting before sending…"). */
  status?: string;
  abort: AbortController;
}

export type RunStart = Omit<Run, 'text' | 'reasoning' | 'entryId'> & Partial<Pick<Run, 'entryId'>>;

/**
 * The runs of this tab, observable (React reads it with useSyncExternalStore).
 * A run is identified by its AbortController: a late update or end from an
 * older run never touches the newer run that replaced it.
 */
export class RunRegistry extends Observable<Readonly<Record<string, Run>>> {
  constructor() {
    super({});
  }

  private get runs(): Readonly<Record<string, Run>> {
    return this.getSnapshot();
  }

  get(sessionId: string): Run | undefined {
    return this.runs[sessionId];
  }

  start(r: RunStart): Run {
    const run: Run = { entryId: null, text: '', reasoning: '', ...r };
    this.set({ ...this.runs, [r.sessionId]: run });
    return run;
  }

  patch(run: Pick<Run, 'sessionId' | 'abort'>, patch: Partial<Run>): void {
    const cur = this.runs[run.sessionId];
    if (!cur || cur.abort !== run.abort) return;
    this.set({ ...this.runs, [run.sessionId]: { ...cur, ...patch } });
  }

  end(run: Pick<Run, 'sessionId' | 'abort'>): void {
    if (this.runs[run.sessionId]?.abort !== run.abort) return;
    const next = { ...this.runs };
    delete next[run.sessionId];
    this.set(next);
  }

  /**
   * A patcher that applies at most one update per `ms` (the latest wins). Fast
   * streams deliver hundreds of deltas a second; re-rendering markdown for each
   * would spend the main thread on frames nobody sees.
   */
  throttled(run: Pick<Run, 'sessionId' | 'abort'>, ms = 50): (patch: Partial<Run>) => void {
    let pending: Partial<Run> | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    return (patch) => {
      pending = { ...pending, ...patch };
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        const p = pending;
        pending = null;
        if (p) this.patch(run, p);
      }, ms);
    };
  }

  /** An onDelta that accumulates a streamed summary and shows it on the run, throttled. */
  streamInto(run: Run): (delta: string) => void {
    const patch = this.throttled(run);
    let text = '';
    return (delta) => {
      text += delta;
      patch({ text });
    };
  }
}
