import { MessageChannel } from 'node:worker_threads';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { expose } from 'comlink';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * When the formats worker stops: after a big job once nothing else runs on it, never under a running
 * call, and a later call starts a new one. The Worker here is a real MessageChannel with the service
 * exposed on its far end, so the calls go through comlink as they do in the browser.
 */

interface FakeWorker {
  terminated: boolean;
}

let workers: FakeWorker[] = [];
/** Each call waits for the test to let it finish. */
let gates: Map<string, () => void>;

class ChannelWorker implements FakeWorker {
  terminated = false;
  private readonly near;
  private readonly channel = new MessageChannel();
  constructor() {
    workers.push(this);
    const wait = (name: string) => new Promise<string>((resolve) => gates.set(name, () => resolve(name)));
    expose({ exportSession: (_s: unknown, kind: string) => wait(kind), exportAll: () => wait('all'), cancelImport: async () => undefined }, nodeEndpoint(this.channel.port1));
    this.near = nodeEndpoint(this.channel.port2);
  }
  postMessage(message: unknown, transfer?: Transferable[]) {
    this.near.postMessage(message, transfer);
  }
  addEventListener(type: string, listener: EventListenerOrEventListenerObject) {
    this.near.addEventListener(type, listener);
  }
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject) {
    this.near.removeEventListener(type, listener);
  }
  terminate() {
    this.terminated = true;
    this.channel.port1.close();
    this.channel.port2.close();
  }
}

async function freshClient() {
  vi.resetModules();
  return import('./formatsClient');
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

/** Lets the named call finish, once it has reached the worker. */
async function release(name: string) {
  await until(() => gates.has(name));
  gates.get(name)!();
}

beforeEach(() => {
  workers = [];
  gates = new Map();
  vi.stubGlobal('Worker', ChannelWorker);
});
afterEach(() => {
  for (const w of workers) if (!w.terminated) (w as ChannelWorker).terminate();
  vi.unstubAllGlobals();
});

describe('the formats worker’s life', () => {
  it('starts with the first call, stays for small jobs, and stops after a big one', async () => {
    const { onFormatsWorker, runningFormatsClient } = await freshClient();
    expect(runningFormatsClient()).toBeNull();
    const small = onFormatsWorker((w) => w.exportSession(null as never, 'markdown'));
    await release('markdown');
    expect(await small).toBe('markdown');
    expect(workers).toHaveLength(1);
    expect(workers[0]!.terminated).toBe(false);

    const big = onFormatsWorker((w) => w.exportAll([]), true);
    await until(() => gates.has('all'));
    expect(workers[0]!.terminated).toBe(false);
    await release('all');
    expect(await big).toBe('all');
    expect(workers[0]!.terminated).toBe(true);
    expect(runningFormatsClient()).toBeNull();

    // The next call starts a new worker.
    const again = onFormatsWorker((w) => w.exportSession(null as never, 'html'));
    await release('html');
    expect(await again).toBe('html');
    expect(workers).toHaveLength(2);
    expect(workers[1]!.terminated).toBe(false);
  });

  it('a big job that ends while another call runs leaves the stopping to the last one', async () => {
    const { onFormatsWorker } = await freshClient();
    const big = onFormatsWorker((w) => w.exportAll([]), true);
    const small = onFormatsWorker((w) => w.exportSession(null as never, 'jsonl'));
    await until(() => gates.has('all') && gates.has('jsonl'));
    await release('all');
    await big;
    expect(workers[0]!.terminated).toBe(false);
    await release('jsonl');
    await small;
    expect(workers[0]!.terminated).toBe(true);
  });

  it('a failed big job stops the worker too', async () => {
    const { onFormatsWorker } = await freshClient();
    await expect(onFormatsWorker(() => Promise.reject(new Error('the file is broken')), true)).rejects.toThrow('the file is broken');
    expect(workers[0]!.terminated).toBe(true);
  });
});
