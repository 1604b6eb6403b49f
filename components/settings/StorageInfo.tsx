'use client';

import { useEffect, useState } from 'react';
import { formatBytes } from '@/lib/format/numbers';
import { useFlows } from '@/components/state/FlowsProvider';

const size = (n: number | undefined) => (n === undefined ? '?' : formatBytes(n));

/** Storage used / quota and whether the browser promised not to evict this site's data. */
export function StorageInfo() {
  const quota = useFlows().ports.quota;
  const [est, setEst] = useState<{ usage?: number; quota?: number } | null>(null);
  const [persisted, setPersisted] = useState<boolean | null>(null);

  useEffect(() => {
    void quota.estimate().then(setEst);
    void quota.persisted().then(setPersisted);
  }, [quota]);

  const pct = est?.usage !== undefined && est.quota ? (est.usage / est.quota) * 100 : undefined;
  return (
    <fieldset className="settings-group">
      <legend>Storage</legend>
      <p aria-label="Storage used">
        {est ? `${size(est.usage)} used of ${size(est.quota)}${pct !== undefined ? ` (${pct.toFixed(1)} %)` : ''}` : 'Measuring…'}
      </p>
      <p className="small">
        {persisted === null
          ? ''
          : persisted
            ? 'Persistent: the browser will not clear these sessions to free space.'
            : 'Not persistent yet: under storage pressure the browser may clear this site’s data. Export backups, or ask for persistence.'}
      </p>
      {persisted === false && (
        <button type="button" className="btn" onClick={() => void quota.persist().then(setPersisted)}>
          Ask to keep data persistent
        </button>
      )}
    </fieldset>
  );
}
