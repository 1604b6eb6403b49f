import { backupReminder, exportEverything } from './exportSessions';
import type { FlowPorts } from './ports';

/** Above this share of the quota the user is warned, while there is still room to export. */
export const STORAGE_WARN_FRACTION = 0.8;

/**
 * Once per page load: ask the browser to keep this site's data (IndexedDB is
 * otherwise "best effort" and may be evicted under storage pressure), warn
 * when storage is nearly full, and remind about backups when sessions older
 * than a week were never exported.
 */
export async function checkStorageHealth(ports: FlowPorts, cancelled: () => boolean = () => false): Promise<void> {
  const { quota, notify } = ports;
  if ((await quota.persisted()) === false) await quota.persist();
  const est = await quota.estimate();
  if (!cancelled() && est?.usage !== undefined && est.quota && est.usage / est.quota > STORAGE_WARN_FRACTION) {
    notify.warning(`Browser storage is ${Math.round((est.usage / est.quota) * 100)}% full. Export and delete old sessions before it runs out.`, { durationMs: 15_000 });
  }
  const due = await backupReminder(ports);
  if (!cancelled() && due) {
    notify.info(due === 'never' ? 'Your sessions have never been backed up.' : 'No backup for more than a week.', {
      durationMs: 20_000,
      action: { label: 'Back up now', run: () => void exportEverything(ports) },
    });
  }
}
