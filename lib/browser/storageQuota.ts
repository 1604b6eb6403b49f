import type { StorageQuota } from '@/lib/flows/ports';

/** navigator.storage, where the browser has it (it is missing on plain http origins other than localhost). */
export const browserStorageQuota: StorageQuota = {
  async estimate() {
    const est = await navigator.storage?.estimate?.().catch(() => null);
    return est ? { ...(est.usage !== undefined ? { usage: est.usage } : {}), ...(est.quota !== undefined ? { quota: est.quota } : {}) } : null;
  },
  async persisted() {
    return (await navigator.storage?.persisted?.().catch(() => null)) ?? null;
  },
  async persist() {
    return (await navigator.storage?.persist?.().catch(() => false)) ?? false;
  },
};
