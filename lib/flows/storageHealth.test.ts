import { describe, expect, it } from 'vitest';
import { testPorts, until } from '@/lib/testing/flowPorts';
import type { FlowPorts, Notifier } from './ports';
import { checkStorageHealth } from './storageHealth';

/**
 * The check once per page load: persistence asked for only when not granted,
 * the storage warning above 80 % of a known quota (and only then), the
 * reminder's button making the backup, and nothing said once the page has
 * gone (cancelled).
 */

const WEEK = 7 * 24 * 3600 * 1000;

interface Said {
  level: string;
  message: string;
  opts?: Parameters<Notifier['info']>[1];
}

function health(estimate: { usage?: number; quota?: number } | null, persisted: boolean | null = true) {
  const base = testPorts();
  const said: Said[] = [];
  const record = (level: string) => (message: string, opts?: Parameters<Notifier['info']>[1]) => void said.push({ level, message, ...(opts ? { opts } : {}) });
  let persistAsked = 0;
  const ports: FlowPorts & { saved: typeof base.saved; store: typeof base.store } = {
    ...base,
    notify: { success: record('success'), info: record('info'), warning: record('warning'), error: record('error') },
    quota: {
      estimate: async () => estimate,
      persisted: async () => persisted,
      persist: async () => {
        persistAsked++;
        return true;
      },
    },
  };
  return { ports, said, persistAsked: () => persistAsked };
}

describe('storage health', () => {
  it('asks for persistence only when it is not granted', async () => {
    const granted = health({ usage: 10, quota: 1000 }, true);
    await checkStorageHealth(granted.ports);
    expect(granted.persistAsked()).toBe(0);
    const unknown = health({ usage: 10, quota: 1000 }, null);
    await checkStorageHealth(unknown.ports);
    expect(unknown.persistAsked()).toBe(0);
    const refused = health({ usage: 10, quota: 1000 }, false);
    await checkStorageHealth(refused.ports);
    expect(refused.persistAsked()).toBe(1);
  });

  it('warns above 80 % of the quota, for 15 seconds; not at 80 %, and not when usage or quota is unknown', async () => {
    const over = health({ usage: 801, quota: 1000 });
    await checkStorageHealth(over.ports);
    expect(over.said).toEqual([{ level: 'warning', message: 'Browser storage is 80% full. Export and delete old sessions before it runs out.', opts: { durationMs: 15_000 } }]);
    for (const estimate of [{ usage: 800, quota: 1000 }, { quota: 1000 }, { usage: 5, quota: 0 }, { usage: 5 }, null]) {
      const h = health(estimate);
      await checkStorageHealth(h.ports);
      expect(h.said, JSON.stringify(estimate)).toEqual([]);
    }
  });

  it('the reminder’s “Back up now” makes the backup', async () => {
    const h = health({ usage: 1, quota: 1000 });
    await h.ports.store.createSession({ title: 'old', createdAt: Date.now() - 2 * WEEK });
    await checkStorageHealth(h.ports);
    expect(h.said).toMatchObject([{ level: 'info', message: 'Your sessions have never been backed up.', opts: { durationMs: 20_000, action: { label: 'Back up now' } } }]);
    h.said[0]!.opts!.action!.run();
    await until(() => h.ports.saved.length === 1);
    expect(h.ports.saved[0]!.name).toMatch(/^longctx-backup-\d{4}-\d{2}-\d{2}\.zip$/);
  });

  it('says nothing once cancelled (the page went away)', async () => {
    const h = health({ usage: 990, quota: 1000 });
    await h.ports.store.createSession({ title: 'old', createdAt: Date.now() - 2 * WEEK });
    await checkStorageHealth(h.ports, () => true);
    expect(h.said).toEqual([]);
    await checkStorageHealth(h.ports);
    expect(h.said.map((s) => s.level)).toEqual(['warning', 'info']);
  });
});
