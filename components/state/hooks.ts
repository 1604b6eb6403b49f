'use client';

import { useEffect, useState, useSyncExternalStore } from 'react';
import { watchAppSettings, type Unsubscribe } from '@/lib/db';
import type { ImportState } from '@/lib/flows/importFiles';
import type { Run } from '@/lib/flows/runs';
import { DEFAULT_APP_SETTINGS, type AppSettings } from '@/lib/settings/appSettings';
import { useFlows } from './FlowsProvider';

/**
 * A value from one of lib/db's watch… observers: `initial` until the first
 * result, then every change. `deps` re-subscribe (a new search, another session).
 */
export function useWatched<T>(subscribe: (onValue: (v: T) => void) => Unsubscribe, deps: readonly unknown[], initial: T): T {
  const [value, setValue] = useState<T>(initial);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what the subscription depends on
  useEffect(() => subscribe(setValue), deps);
  return value;
}

export function useAppSettings(): AppSettings {
  return useWatched(watchAppSettings, [], DEFAULT_APP_SETTINGS);
}

const NO_RUNS: Readonly<Record<string, Run>> = {};

/** What this tab is streaming for a session, if anything. */
export function useRun(sessionId: string | null): Run | undefined {
  const runs = useFlows().runs;
  const all = useSyncExternalStore(runs.subscribe, runs.getSnapshot, () => NO_RUNS);
  return sessionId ? all[sessionId] : undefined;
}

const NO_IMPORT: ImportState = { active: null, error: null };

export function useImportState(): ImportState {
  const imports = useFlows().imports;
  return useSyncExternalStore(imports.subscribe, imports.getSnapshot, () => NO_IMPORT);
}
