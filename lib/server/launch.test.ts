import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { launch, type LaunchOptions } from './launch';
import { serverRuntime, setServerRuntime } from './runtime';

/**
 * The launcher's refusals (the running server, its signals and its shutdown
 * are exercised end to end in e2e/exposed.spec.ts, where they can run in a
 * process of their own).
 */

afterEach(() => setServerRuntime(undefined));

function options(env: Record<string, string>) {
  const reports: string[] = [];
  let nextCreated = 0;
  const opts: LaunchOptions = {
    env: { LOG_LEVEL: 'silent', ...env },
    dir: '/nonexistent',
    report: (t) => reports.push(t),
    createNext: () => {
      nextCreated++;
      return { prepare: async () => {}, getRequestHandler: () => async () => {}, close: async () => {} };
    },
  };
  return { opts, reports, created: () => nextCreated };
}

describe('launch', () => {
  it('refuses to start exposed without a secret: exit code 1, the reason, nothing started', async () => {
    const { opts, reports, created } = options({ HOST: '0.0.0.0', PORT: '1' });
    expect(await launch(opts)).toBe(1);
    expect(reports.join('\n')).toContain('This server is reachable from other machines (it listens on 0.0.0.0), and LONGCTX_ACCESS_SECRET is not set.');
    expect(created()).toBe(0);
    expect(serverRuntime()).toBeUndefined();
  });

  it('refuses a secret too short to be one, wherever it listens', async () => {
    const { opts, reports } = options({ HOST: '127.0.0.1', PORT: '1', LONGCTX_ACCESS_SECRET: 'hunter2' });
    expect(await launch(opts)).toBe(1);
    expect(reports.join('\n')).toContain('LONGCTX_ACCESS_SECRET is 7 characters long');
  });

  it('says so and gives up when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const { opts, reports } = options({ HOST: '127.0.0.1', PORT: String((taken.address() as AddressInfo).port) });
      expect(await launch(opts)).toBe(1);
      expect(reports.join('\n')).toMatch(/could not listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
