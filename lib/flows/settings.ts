import type { AppSettings } from '@/lib/settings/appSettings';
import type { CompactionSettings } from '@/lib/session/types';
import type { FlowPorts } from './ports';

export interface SettingsChange {
  app: Partial<AppSettings>;
  /** The open session's compaction overrides; undefined clears them (the session follows the defaults). */
  session?: { id: string; compaction: Partial<CompactionSettings> | undefined };
}

/** Stores what the Settings dialog changed. Rejects with a message for the dialog when storage fails. */
export async function saveSettings(ports: FlowPorts, change: SettingsChange): Promise<void> {
  await ports.store.saveAppSettings(change.app);
  if (change.session) await ports.store.updateSession(change.session.id, { compaction: change.session.compaction });
  ports.notify.success('Settings saved');
}
