'use client';

import { create } from 'zustand';
import type { EntryId } from '@/lib/session/types';

export type RunKind = 'reply' | 'compaction' | 'branch-summary';

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

interface RunState {
  runs: Record<string, Run>;
  start: (run: Omit<Run, 'text' | 'reasoning' | 'entryId'> & Partial<Pick<Run, 'entryId'>>) => Run;
  patch: (sessionId: string, patch: Partial<Run>) => void;
  end: (sessionId: string, run: Run) => void;
}

export const useRuns = create<RunState>((set, get) => ({
  runs: {},
  start: (r) => {
    const run: Run = { entryId: null, text: '', reasoning: '', ...r };
    set((s) => ({ runs: { ...s.runs, [r.sessionId]: run } }));
    return run;
  },
  patch: (sessionId, patch) => {
    const cur = get().runs[sessionId];
    if (!cur) return;
    set((s) => ({ runs: { ...s.runs, [sessionId]: { ...cur, ...patch } } }));
  },
  end: (sessionId, run) => {
    // Only the run that started may end itself (a newer run may have replaced it).
    if (get().runs[sessionId]?.abort !== run.abort) return;
    set((s) => {
      const runs = { ...s.runs };
      delete runs[sessionId];
      return { runs };
    });
  },
}));

export function useRun(sessionId: string | null): Run | undefined {
  return useRuns((s) => (sessionId ? s.runs[sessionId] : undefined));
}

/**
 * A patcher that applies at most one update per `ms` (the latest wins). Fast
 * streams deliver hundreds of deltas a second; re-rendering markdown for each
 * would spend the main thread on frames nobody sees.
 */
export function throttledPatch(run: Pick<Run, 'sessionId' | 'abort'>, ms = 50): (patch: Partial<Run>) => void {
  let pending: Partial<Run> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return (patch) => {
    pending = { ...pending, ...patch };
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      const p = pending;
      pending = null;
      // A late update must not land on a newer run of the same session.
      if (p && useRuns.getState().runs[run.sessionId]?.abort === run.abort) useRuns.getState().patch(run.sessionId, p);
    }, ms);
  };
}
