/**
 * The live streams one app server holds open, counted per device and in
 * total, so that neither one device (2,000 streams from one device cost about
 * 170 MB and 2,000 file handles) nor everyone together can exhaust the
 * process. The counts are this process's: with several app servers behind a
 * load balancer a device may hold `perDevice` streams on each (docs/sync.md).
 */
export interface LiveSlots {
  /** A slot for one stream of `deviceId`, released once when the stream ends; null when a cap is reached. */
  take(deviceId: string): { release(): void } | { refused: 'device' | 'server' };
  /** Open streams (tests and the probe read it). */
  open(): number;
}

export function createLiveSlots(caps: { perDevice: number; perServer: number }): LiveSlots {
  const byDevice = new Map<string, number>();
  let total = 0;
  return {
    take(deviceId) {
      if (total >= caps.perServer) return { refused: 'server' };
      const mine = byDevice.get(deviceId) ?? 0;
      if (mine >= caps.perDevice) return { refused: 'device' };
      byDevice.set(deviceId, mine + 1);
      total++;
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          total--;
          const left = (byDevice.get(deviceId) ?? 1) - 1;
          if (left > 0) byDevice.set(deviceId, left);
          else byDevice.delete(deviceId);
        },
      };
    },
    open: () => total,
  };
}
