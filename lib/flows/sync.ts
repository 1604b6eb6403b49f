import { errorMessage } from '@/lib/errors';
import type { DeviceView } from '@/lib/sync/engine';
import type { SyncService } from '@/lib/sync/service';
import type { Notifier } from './ports';

export type SyncPort = SyncService;

/**
 * The user's sync actions: create a space, join one, leave, list and remove
 * devices. Each resolves with what the UI needs, or with the reason it failed
 * in a sentence (shown beside the form that caused it, not as a toast).
 */
export class SyncFlows {
  constructor(
    private readonly port: SyncPort,
    private readonly notify: Notifier,
  ) {}

  /** Wakes the background sync (it runs in the sync worker from the first call on). */
  start(): void {
    void this.port.kick().catch(() => {});
  }

  async create(deviceName: string): Promise<{ words: string } | { error: string }> {
    try {
      return await this.port.create(deviceName.trim() || 'This device');
    } catch (err) {
      return { error: `Could not create a sync space: ${errorMessage(err)}` };
    }
  }

  async join(words: string, deviceName: string): Promise<{ ok: true } | { error: string }> {
    try {
      await this.port.join(words, deviceName.trim() || 'This device');
      this.notify.success('Joined the sync space: sessions are being merged.');
      return { ok: true };
    } catch (err) {
      return { error: errorMessage(err) };
    }
  }

  async leave(): Promise<{ ok: true } | { error: string }> {
    try {
      await this.port.leave();
      this.notify.info('Left the sync space. Your sessions stay in this browser.');
      return { ok: true };
    } catch (err) {
      return { error: errorMessage(err) };
    }
  }

  async devices(): Promise<DeviceView[] | { error: string }> {
    try {
      return await this.port.devices();
    } catch (err) {
      return { error: `Could not list the devices: ${errorMessage(err)}` };
    }
  }

  async revoke(device: Pick<DeviceView, 'id' | 'name'>): Promise<{ ok: true } | { error: string }> {
    try {
      await this.port.revoke(device.id);
      this.notify.success(`Removed “${device.name}” from the sync space.`);
      return { ok: true };
    } catch (err) {
      return { error: `Could not remove the device: ${errorMessage(err)}` };
    }
  }

  syncNow(): void {
    void this.port.kick().catch(() => {});
  }
}
