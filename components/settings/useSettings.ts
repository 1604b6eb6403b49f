'use client';

import { useLiveQuery } from 'dexie-react-hooks';
import { getSetting, setSetting } from '@/lib/db';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionMeta } from '@/lib/session/types';

export interface AppSettings {
  compaction: CompactionSettings;
  /** "provider:model" used for summaries; empty means the session's chat model. */
  summarizerModel: string;
  /** Skip the "summarise the branch you leave?" question and do this instead. */
  branchLeaveDefault: 'ask' | 'switch' | 'summarize';
}

export const DEFAULT_APP_SETTINGS: AppSettings = {
  compaction: DEFAULT_COMPACTION_SETTINGS,
  summarizerModel: '',
  branchLeaveDefault: 'ask',
};

const KEY = 'app';

export async function loadAppSettings(): Promise<AppSettings> {
  const stored = await getSetting<Partial<AppSettings>>(KEY, {});
  return { ...DEFAULT_APP_SETTINGS, ...stored, compaction: { ...DEFAULT_COMPACTION_SETTINGS, ...stored.compaction } };
}

export async function saveAppSettings(patch: Partial<AppSettings>): Promise<void> {
  const cur = await loadAppSettings();
  await setSetting(KEY, { ...cur, ...patch });
}

export function useAppSettings(): AppSettings {
  return useLiveQuery(loadAppSettings, [], DEFAULT_APP_SETTINGS);
}

/** Global compaction settings with the session's own overrides on top. */
export function effectiveCompactionSettings(global: CompactionSettings, session: SessionMeta | null | undefined): CompactionSettings {
  return { ...global, ...session?.compaction };
}
