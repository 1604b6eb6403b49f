'use client';

import { useEffect } from 'react';
import { toast } from 'sonner';
import { getSetting, listSessions } from '@/lib/db';
import { exportEverything, LAST_BACKUP_KEY } from '@/components/importexport/ExportDialog';

const WEEK = 7 * 24 * 3600 * 1000;
export const STORAGE_WARN_FRACTION = 0.8;

/**
 * Once per page load: ask the browser to keep this site's data (IndexedDB is
 * otherwise "best effort" and may be evicted under storage pressure), warn
 * when storage is nearly full, and remind about backups when sessions older
 * than a week were never exported.
 */
export function useStorageHealth(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    (async () => {
      const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
      try {
        if (storage?.persisted && !(await storage.persisted())) await storage.persist?.();
      } catch {
        /* not supported: the Settings dialog says so */
      }
      try {
        const est = await storage?.estimate?.();
        if (!cancelled && est?.usage !== undefined && est.quota && est.usage / est.quota > STORAGE_WARN_FRACTION) {
          toast.warning(`Browser storage is ${Math.round((est.usage / est.quota) * 100)}% full. Export and delete old sessions before it runs out.`, { duration: 15_000 });
        }
      } catch {
        /* estimate unavailable */
      }
      const [sessions, last] = await Promise.all([listSessions(), getSetting<number | null>(LAST_BACKUP_KEY, null)]);
      const oldest = sessions.reduce((m, s) => Math.min(m, s.createdAt), Infinity);
      const due = sessions.length > 0 && Date.now() - oldest > WEEK && (last === null || Date.now() - last > WEEK);
      if (!cancelled && due) {
        toast.info(last === null ? 'Your sessions have never been backed up.' : 'No backup for more than a week.', {
          duration: 20_000,
          action: { label: 'Back up now', onClick: () => void exportEverything() },
        });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [enabled]);
}
