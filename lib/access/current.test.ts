import { afterEach, describe, expect, it } from 'vitest';
import { setServerRuntime } from '@/lib/server/runtime';
import { currentAccessPolicy, unguardedExposure } from './current';

const nextStart = (...args: string[]) => ['/usr/bin/node', '/app/node_modules/next/dist/bin/next', 'start', ...args];
const SECRET = 'correct horse battery staple';

afterEach(() => setServerRuntime(undefined));

describe('a Next server started without npm start (instrumentation.ts)', () => {
  it('refuses to run when it listens beyond loopback, secret or not: nothing would check it', () => {
    for (const argv of [nextStart('-H', '0.0.0.0'), nextStart('-p', '3000'), nextStart('--hostname', '192.168.1.5')]) {
      expect(unguardedExposure({}, argv)).toMatch(/not started with npm start/);
      expect(unguardedExposure({ LONGCTX_ACCESS_SECRET: SECRET }, argv)).toMatch(/not started with npm start/);
    }
    expect(unguardedExposure({ ALLOWED_HOSTS: 'chat.example.com' }, nextStart('-H', '127.0.0.1'))).toMatch(/ALLOWED_HOSTS is set/);
  });

  it('runs on loopback, with the operator’s opt-out, and always under npm start', () => {
    expect(unguardedExposure({}, nextStart('-H', '127.0.0.1'))).toBeNull();
    expect(unguardedExposure({ LONGCTX_INSECURE_NO_ACCESS_SECRET: '1' }, nextStart('-H', '0.0.0.0'))).toBeNull();
    // A dev server or a test: nothing says it is exposed.
    expect(unguardedExposure({}, ['/usr/bin/node', '/app/node_modules/vitest/vitest.mjs'])).toBeNull();
    setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: 0 });
    expect(unguardedExposure({ LONGCTX_ACCESS_SECRET: SECRET }, ['/usr/bin/node', '/app/scripts/start.mjs'])).toBeNull();
  });

  it('takes where the launcher listens over the command line', () => {
    setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: 0 });
    expect(currentAccessPolicy({ LONGCTX_ACCESS_SECRET: SECRET }, ['/usr/bin/node', '/app/scripts/start.mjs'])).toMatchObject({ exposed: true, required: true });
  });
});
