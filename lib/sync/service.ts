import type { DeviceView } from './engine';

/**
 * What the page asks of sync (the sync worker implements it with the engine;
 * lib/flows/sync.ts calls it through the SyncPort). Every method is
 * asynchronous: it crosses to the worker.
 */
export interface SyncService {
  /** Creates a space holding this device's sessions; resolves with the code's 12 words. */
  create(deviceName: string): Promise<{ words: string }>;
  /** Joins the space of these words; rejects with a sentence when the code is wrong. */
  join(words: string, deviceName: string): Promise<void>;
  leave(): Promise<void>;
  devices(): Promise<DeviceView[]>;
  revoke(deviceId: string): Promise<void>;
  /** Ask for a round now (the network came back, the user pressed Sync now). */
  kick(): Promise<void>;
}
