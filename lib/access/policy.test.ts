import { describe, expect, it } from 'vitest';
import { isLoopbackHost, listenHostFromArgv, readAccessPolicy, resolveListenHost, startupRefusal, withExposedDefaults } from './policy';

const SECRET = 'correct horse battery staple';

describe('where the server listens', () => {
  it.each(['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '[::]', '', '192.168.1.20', '10.0.0.5', 'laptop.local', '128.0.0.1', '::2', '::ffff:10.0.0.1'])('"%s" is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });

  it('reads the hostname `next start` was given, and all interfaces when it was given none', () => {
    expect(listenHostFromArgv(['/usr/bin/node', '/app/node_modules/.bin/next', 'start', '-p', '3100', '-H', '127.0.0.1'])).toBe('127.0.0.1');
    expect(listenHostFromArgv(['/usr/bin/node', '/app/node_modules/next/dist/bin/next', 'start', '--hostname', '192.168.1.5'])).toBe('192.168.1.5');
    expect(listenHostFromArgv(['/usr/bin/node', '/app/node_modules/.bin/next', 'start', '--hostname=::'])).toBe('::');
    expect(listenHostFromArgv(['/usr/bin/node', '/app/node_modules/.bin/next', 'start', '-p', '3000'])).toBe('0.0.0.0');
    // Not `next start`: a test runner, the launcher, a dev server's worker.
    expect(listenHostFromArgv(['/usr/bin/node', '/app/node_modules/vitest/vitest.mjs', 'run', '-H', '0.0.0.0'])).toBeNull();
    expect(listenHostFromArgv(['/usr/bin/node', '/app/scripts/start.mjs'])).toBeNull();
  });

  it('prefers what the launcher recorded, then the command line, then HOST', () => {
    const argv = ['/usr/bin/node', '/app/node_modules/.bin/next', 'start', '-H', '10.0.0.1'];
    expect(resolveListenHost({ launcher: '127.0.0.1', argv, env: { HOST: '0.0.0.0' } })).toBe('127.0.0.1');
    expect(resolveListenHost({ argv, env: { HOST: '0.0.0.0' } })).toBe('10.0.0.1');
    expect(resolveListenHost({ argv: ['/usr/bin/node', 'x.mjs'], env: { HOST: '0.0.0.0' } })).toBe('0.0.0.0');
    expect(resolveListenHost({ argv: ['/usr/bin/node', 'x.mjs'], env: {} })).toBeNull();
  });
});

describe('the access policy', () => {
  it('asks nothing on loopback without a secret, as before', () => {
    const p = readAccessPolicy({}, '127.0.0.1');
    expect(p).toMatchObject({ exposed: false, required: false, secret: null, problem: null });
    expect(startupRefusal(p)).toBeNull();
    // Unknown (a dev server, a test) counts as loopback.
    expect(readAccessPolicy({}, null).required).toBe(false);
  });

  it.each([
    ['0.0.0.0', {}],
    ['::', {}],
    ['192.168.1.20', {}],
    ['127.0.0.1', { ALLOWED_HOSTS: 'chat.example.com' }],
  ])('counts %s %j as exposed, and then requires the secret', (host, env) => {
    const open = readAccessPolicy(env, host);
    expect(open.exposed).toBe(true);
    expect(open.required).toBe(true);
    const refusal = startupRefusal(open);
    expect(refusal).toContain('LONGCTX_ACCESS_SECRET is not set');
    expect(refusal).toContain('LONGCTX_INSECURE_NO_ACCESS_SECRET=1');

    const locked = readAccessPolicy({ ...env, LONGCTX_ACCESS_SECRET: SECRET }, host);
    expect(locked).toMatchObject({ exposed: true, required: true, secret: SECRET, problem: null });
    expect(startupRefusal(locked)).toBeNull();
  });

  it('runs exposed without a secret only when the operator opts out in so many words', () => {
    for (const v of ['1', 'true', 'YES']) {
      const p = readAccessPolicy({ LONGCTX_INSECURE_NO_ACCESS_SECRET: v }, '0.0.0.0');
      expect(p).toMatchObject({ exposed: true, required: false, openAccess: true });
      expect(startupRefusal(p)).toBeNull();
    }
    for (const v of ['', '0', 'false', 'no', 'maybe']) {
      expect(startupRefusal(readAccessPolicy({ LONGCTX_INSECURE_NO_ACCESS_SECRET: v }, '0.0.0.0'))).not.toBeNull();
    }
  });

  it('a secret set wins over the opt-out, and turns sign-in on even on loopback', () => {
    expect(readAccessPolicy({ LONGCTX_ACCESS_SECRET: SECRET, LONGCTX_INSECURE_NO_ACCESS_SECRET: '1' }, '0.0.0.0')).toMatchObject({ required: true, openAccess: false });
    // A reverse proxy on this machine forwarding the world to 127.0.0.1 is invisible from here: the secret is the operator's say.
    expect(readAccessPolicy({ LONGCTX_ACCESS_SECRET: SECRET }, '127.0.0.1')).toMatchObject({ exposed: false, required: true });
  });

  it('refuses a secret too short to be one, and treats a blank one as unset', () => {
    const short = readAccessPolicy({ LONGCTX_ACCESS_SECRET: 'hunter2' }, '0.0.0.0');
    expect(short.problem).toBe('LONGCTX_ACCESS_SECRET is 7 characters long; use at least 12 (a few random words make a good one).');
    expect(startupRefusal(short)).toBe(short.problem);
    expect(readAccessPolicy({ LONGCTX_ACCESS_SECRET: '   ' }, '0.0.0.0').secret).toBeNull();
    expect(readAccessPolicy({ LONGCTX_ACCESS_SECRET: `  ${SECRET}\n` }, '0.0.0.0').secret).toBe(SECRET);
  });
});

describe('defaults on an exposed server', () => {
  it('takes no base URLs from browsers unless the operator set a policy', () => {
    const none: Record<string, string | undefined> = {};
    expect(withExposedDefaults(none, true).ALLOW_CLIENT_BASE_URLS).toBe('none');
    expect(withExposedDefaults({ ALLOW_CLIENT_BASE_URLS: ' ' }, true).ALLOW_CLIENT_BASE_URLS).toBe('none');
    expect(withExposedDefaults({ ALLOW_CLIENT_BASE_URLS: 'loopback' }, true).ALLOW_CLIENT_BASE_URLS).toBe('loopback');
    expect(withExposedDefaults(none, false).ALLOW_CLIENT_BASE_URLS).toBeUndefined();
  });
});
