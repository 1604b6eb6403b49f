'use client';

import { useEffect, useState } from 'react';

function mb(n: number | undefined): string {
  if (n === undefined) return '?';
  return n > 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`;
}

/** Storage used / quota and whether the browser promised not to evict this site's data. */
export function StorageInfo() {
  const [est, setEst] = useState<StorageEstimate | null>(null);
  const [persisted, setPersisted] = useState<boolean | null>(null);

  useEffect(() => {
    void navigator.storage?.estimate?.().then(setEst);
    void navigator.storage?.persisted?.().then(setPersisted);
  }, []);

  const pct = est?.usage !== undefined && est.quota ? (est.usage / est.quota) * 100 : undefined;
  return (
    <fieldset className="settings-group">
      <legend>Storage</legend>
      <p aria-label="Storage used">
        {est ? `${mb(est.usage)} used of ${mb(est.quota)}${pct !== undefined ? ` (${pct.toFixed(1)} %)` : ''}` : 'Measuring…'}
      </p>
      <p className="small">
        {persisted === null
          ? ''
          : persisted
            ? 'Persistent: the browser will not clear these sessions to free space.'
            : 'Not persistent yet: under storage pressure the browser may clear this site’s data. Export backups, or ask for persistence.'}
      </p>
      {persisted === false && (
        <button type="button" className="btn" onClick={() => void navigator.storage.persist().then(setPersisted)}>
          Ask to keep data persistent
        </button>
      )}
    </fieldset>
  );
}
