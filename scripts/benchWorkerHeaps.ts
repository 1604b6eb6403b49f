/**
 * The V8 heaps of a page's dedicated workers, through the page's DevTools session: a worker's
 * heap is part of the renderer's memory, but neither `performance.memory` (window only) nor the
 * page's own metrics see it. Each worker is attached without pausing it (Target.setAutoAttach)
 * and asked for Runtime.getHeapUsage over the non-flat session protocol, which Playwright's
 * CDPSession can speak (it cannot address a flat child session).
 */

import type { CDPSession } from '@playwright/test';

export interface HeapUsage {
  /** Bytes of live and not yet collected objects. */
  used: number;
  /** Bytes the heap holds from the system (what counts towards resident memory). */
  total: number;
}

interface Attached {
  type: string;
  url: string;
}

export class WorkerHeaps {
  private readonly workers = new Map<string, Attached>();
  private readonly waiting = new Map<number, (r: HeapUsage | null) => void>();
  private nextId = 1;

  private constructor(private readonly cdp: CDPSession) {
    cdp.on('Target.attachedToTarget', (e) => {
      if (e.targetInfo.type === 'worker') this.workers.set(e.sessionId, { type: e.targetInfo.type, url: e.targetInfo.url });
    });
    cdp.on('Target.detachedFromTarget', (e) => {
      if (e.sessionId) this.workers.delete(e.sessionId);
    });
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      const msg = JSON.parse(e.message) as { id?: number; result?: { usedSize: number; totalSize: number } };
      if (msg.id === undefined) return;
      this.waiting.get(msg.id)?.(msg.result ? { used: msg.result.usedSize, total: msg.result.totalSize } : null);
      this.waiting.delete(msg.id);
    });
  }

  static async attach(cdp: CDPSession): Promise<WorkerHeaps> {
    const heaps = new WorkerHeaps(cdp);
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    return heaps;
  }

  /** Each worker's heap now, by the worker script's file name. */
  async sample(): Promise<Map<string, HeapUsage>> {
    const out = new Map<string, HeapUsage>();
    await Promise.all(
      [...this.workers].map(async ([sessionId, w]) => {
        const id = this.nextId++;
        const answer = new Promise<HeapUsage | null>((resolve) => {
          this.waiting.set(id, resolve);
          setTimeout(() => resolve(null), 2_000);
        });
        await this.cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method: 'Runtime.getHeapUsage' }) }).catch(() => undefined);
        const usage = await answer;
        this.waiting.delete(id);
        if (usage) out.set(`${w.url.split('/').pop()?.split('?')[0] || 'worker'}#${sessionId.slice(0, 4)}`, usage);
      }),
    );
    return out;
  }
}

/** Sums of every worker's heap, sampled every `intervalMs` until stopped: the peaks of used and total. */
export function sampleWorkerPeaks(heaps: WorkerHeaps, intervalMs = 200) {
  let peakUsed = 0;
  let peakTotal = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const m = await heaps.sample();
      const s = [...m.values()];
      if (process.env.TRACE_RSS) console.log(`heaps ${Date.now() % 100000} ${[...m].map(([k, h]) => `${k.slice(-4)}:${(h.used / 1e6).toFixed(0)}/${(h.total / 1e6).toFixed(0)}`).join(' ')}`);
      peakUsed = Math.max(peakUsed, s.reduce((a, h) => a + h.used, 0));
      peakTotal = Math.max(peakTotal, s.reduce((a, h) => a + h.total, 0));
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop(): Promise<HeapUsage> {
      running = false;
      await loop;
      return { used: peakUsed, total: peakTotal };
    },
  };
}
