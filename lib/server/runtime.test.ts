import { afterEach, describe, expect, it } from 'vitest';
import { onServerShutdown, runShutdownClosers, serverRuntime, setServerRuntime } from './runtime';
import type * as Runtime from './runtime';

afterEach(() => setServerRuntime(undefined));

describe('the launcher’s state', () => {
  it('is shared through globalThis, so separately bundled copies of this module see it', async () => {
    setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: 5 });
    // A second copy of the module, as Next's bundles and the launcher each have one.
    const copy = (await import(/* @vite-ignore */ `./runtime.ts?copy=${Date.now()}`)) as typeof Runtime;
    expect(copy.serverRuntime()).toEqual({ listenHost: '0.0.0.0', draining: false, startedAt: 5 });
    expect(serverRuntime()).toBe(copy.serverRuntime());
  });
});

describe('shutdown closers', () => {
  it('run once each, by name, and report the ones that failed or hung', async () => {
    const ran: string[] = [];
    onServerShutdown('db', async () => void ran.push('db'));
    onServerShutdown('db', async () => void ran.push('db again'));
    onServerShutdown('broken', async () => {
      throw new Error('nope');
    });
    onServerShutdown('stuck', () => new Promise(() => {}));
    const results = await runShutdownClosers(100);
    expect(ran).toEqual(['db again']);
    expect(results).toEqual([
      { name: 'db', ok: true },
      { name: 'broken', ok: false, error: 'nope' },
      { name: 'stuck', ok: false, error: 'did not finish within 100 ms' },
    ]);
    expect(await runShutdownClosers(100)).toEqual([]);
  });
});
