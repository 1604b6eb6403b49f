import { describe, expect, it } from 'vitest';
import type { DeviceView } from '@/lib/sync/engine';
import type { SyncService } from '@/lib/sync/service';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * The sync actions as the Settings panel calls them, over a recording sync
 * port: what reaches the sync worker, what the user is told, and the sentence
 * a failure leaves beside the form.
 */

function recordingSync(fail?: Error) {
  const calls: unknown[][] = [];
  const laptop = { id: 'dev-2', name: 'Laptop', current: false } as DeviceView;
  const act =
    <T>(name: string, result: T) =>
    async (...args: unknown[]): Promise<T> => {
      calls.push([name, ...args]);
      if (fail) throw fail;
      return result;
    };
  const port: SyncService = {
    create: act('create', { words: 'amber cedar delta' }),
    join: act('join', undefined),
    leave: act('leave', undefined),
    devices: act('devices', [laptop]),
    revoke: act('revoke', undefined),
    kick: act('kick', undefined),
  };
  return { port, calls, laptop };
}

function setup(fail?: Error) {
  const sync = recordingSync(fail);
  const ports = { ...testPorts(), sync: sync.port };
  const flows = new AppFlows(ports);
  return { ...sync, flows, notices: ports.notices, syncFlows: flows.sync! };
}

describe('sync flows', () => {
  it('exist only where the ports have a sync worker', () => {
    expect(new AppFlows(testPorts()).sync).toBeNull();
    expect(setup().flows.sync).not.toBeNull();
  });

  it('create and join name this device as typed, trimmed, or “This device” when left blank', async () => {
    const { syncFlows, calls } = setup();
    expect(await syncFlows.create('  Work laptop ')).toEqual({ words: 'amber cedar delta' });
    await syncFlows.create('   ');
    await syncFlows.join('amber cedar delta', '');
    await syncFlows.join('amber cedar delta', ' Phone ');
    expect(calls).toEqual([
      ['create', 'Work laptop'],
      ['create', 'This device'],
      ['join', 'amber cedar delta', 'This device'],
      ['join', 'amber cedar delta', 'Phone'],
    ]);
  });

  it('joining, leaving and removing a device succeed with a notice; listing shows the devices', async () => {
    const { syncFlows, notices, laptop, calls } = setup();
    expect(await syncFlows.join('amber cedar delta', 'Desk')).toEqual({ ok: true });
    expect(await syncFlows.leave()).toEqual({ ok: true });
    expect(await syncFlows.devices()).toEqual([laptop]);
    expect(await syncFlows.revoke(laptop)).toEqual({ ok: true });
    expect(calls.at(-1)).toEqual(['revoke', 'dev-2']);
    expect(notices).toEqual([
      { level: 'success', message: 'Joined the sync space: sessions are being merged.' },
      { level: 'info', message: 'Left the sync space. Your sessions stay in this browser.' },
      { level: 'success', message: 'Removed “Laptop” from the sync space.' },
    ]);
  });

  it('a failure resolves with its sentence for the form, and no notice claims it worked', async () => {
    const { syncFlows, notices, laptop } = setup(new Error('The sync server could not be reached.'));
    expect(await syncFlows.create('Desk')).toEqual({ error: 'Could not create a sync space: The sync server could not be reached.' });
    expect(await syncFlows.join('amber cedar delta', 'Desk')).toEqual({ error: 'The sync server could not be reached.' });
    expect(await syncFlows.leave()).toEqual({ error: 'The sync server could not be reached.' });
    expect(await syncFlows.devices()).toEqual({ error: 'Could not list the devices: The sync server could not be reached.' });
    expect(await syncFlows.revoke(laptop)).toEqual({ error: 'Could not remove the device: The sync server could not be reached.' });
    expect(notices).toEqual([]);
  });

  it('start and Sync now wake the worker, and a failed wake-up is not an unhandled rejection', async () => {
    const ok = setup();
    ok.syncFlows.start();
    ok.syncFlows.syncNow();
    expect(ok.calls).toEqual([['kick'], ['kick']]);

    const failing = setup(new Error('offline'));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      failing.syncFlows.start();
      failing.syncFlows.syncNow();
      await new Promise((r) => setImmediate(r)); // unhandled rejections are reported before the next turn of the event loop
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(failing.calls).toEqual([['kick'], ['kick']]);
    expect(unhandled).toEqual([]);
  });
});
