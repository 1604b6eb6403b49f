import { describe, expect, it } from 'vitest';
import { ForbiddenDestinationError, createGuardedFetch } from './guardedFetch';
import { checkClientBaseUrl, checkServerBaseUrl, describePolicy, parseBaseUrlPolicy } from './urlPolicy';

const loopback = parseBaseUrlPolicy(undefined);

/** Every spelling of the metadata service and friends we know of. None may pass under any policy. */
const NEVER = [
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.169.254.',
  'http://2852039166/', // decimal
  'http://0xa9fea9fe/', // hex
  'http://0xA9.0xFE.0xA9.0xFE/', // dotted hex
  'http://0251.0376.0251.0376/', // octal
  'http://0251.254.169.254/', // mixed octal
  'http://169.254.43518/', // short form
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
  'http://[::a9fe:a9fe]/', // IPv4-compatible
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.GOOGLE.INTERNAL./',
  'http://metadata/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://100.100.100.200/latest/meta-data/',
  'http://169.254.0.1:11434/',
  'http://[fe80::1]/',
  'http://[fe80::1%25eth0]/',
  'http://[febf::1]/',
  'http://0.0.0.0:11434/',
  'http://0/',
  'http://[::]/',
  'http://224.0.0.1/',
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO',
  'ftp://127.0.0.1/',
  'javascript:alert(1)',
  'data:text/plain,hi',
  'http://127.0.0.1@169.254.169.254/',
];

describe('URL policy: never-allowed destinations', () => {
  it.each(NEVER)('%s is refused from the browser and from the environment', (url) => {
    const fromList = parseBaseUrlPolicy('169.254.169.254,metadata.google.internal,0.0.0.0,fe80::1,loopback');
    expect(checkClientBaseUrl(url, loopback).ok).toBe(false);
    expect(checkClientBaseUrl(url, fromList).ok).toBe(false);
    expect(checkServerBaseUrl(url).ok).toBe(false);
  });
});

describe('URL policy: loopback (default)', () => {
  it.each(['http://localhost:11434', 'http://127.0.0.1:8080/v1', 'http://127.0.0.1.:8080/v1', 'http://127.1.2.3/', 'http://[::1]:8000/v1', 'http://[::ffff:127.0.0.1]:4010/v1', 'http://2130706433:4010/v1', 'https://localhost/v1'])(
    '%s is allowed',
    (url) => {
      const r = checkClientBaseUrl(url, loopback);
      expect(r.ok, JSON.stringify(r)).toBe(true);
    },
  );

  it.each([
    'http://10.0.0.5:11434',
    'http://192.168.1.10:1234/v1',
    'http://172.16.0.1/',
    'http://example.com/v1',
    'https://api.openai.com/v1',
    'http://localhost.evil.com/',
    'http://127.0.0.1.nip.io/',
    'http://foo.localhost/',
    'http://[fd00::1]/',
  ])('%s is refused with a reason', (url) => {
    const r = checkClientBaseUrl(url, loopback);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/loopback|never|allowed/);
  });

  it.each(['http://localhost.:1234/v1', 'http://LOCALHOST.:1234/v1', 'http://localhost..:1234/v1', 'https://localhost./v1'])(
    '%s (a name the resolver may send to DNS) is refused under every policy, from the environment too',
    (url) => {
      for (const policy of [loopback, parseBaseUrlPolicy('loopback,gpu-box.lan'), parseBaseUrlPolicy('localhost')]) {
        const r = checkClientBaseUrl(url, policy);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.reason).toMatch(/^"localhost\.+" is looked up in DNS, unlike localhost; write localhost or 127\.0\.0\.1$/);
      }
      expect(checkServerBaseUrl(url).ok).toBe(false);
    },
  );

  it('refuses credentials in the URL and malformed URLs', () => {
    const r = checkClientBaseUrl('http://user:pass@127.0.0.1/v1', loopback);
    expect(r.ok).toBe(false);
    expect(checkClientBaseUrl('not a url', loopback).ok).toBe(false);
    expect(checkClientBaseUrl('', loopback).ok).toBe(false);
  });

  it('refuses any userinfo: user and password, user only, password only (http://:pw@host), from the browser and the environment', () => {
    for (const raw of ['http://user:pass@127.0.0.1/v1', 'http://user@127.0.0.1/v1', 'http://:pw@127.0.0.1/v1', 'https://:secret@api.example.com/v1']) {
      for (const r of [checkClientBaseUrl(raw, parseBaseUrlPolicy('api.example.com')), checkServerBaseUrl(raw)]) {
        expect(r.ok, raw).toBe(false);
        if (!r.ok) expect(r.reason, raw).toMatch(/credentials/);
      }
    }
    // The same URLs without userinfo pass, so it is the userinfo that is refused.
    expect(checkServerBaseUrl('http://127.0.0.1/v1').ok).toBe(true);
    expect(checkClientBaseUrl('https://api.example.com/v1', parseBaseUrlPolicy('api.example.com')).ok).toBe(true);
  });

  it('normalises the accepted URL', () => {
    expect(checkClientBaseUrl('http://LOCALHOST:4010/v1/', loopback)).toEqual({ ok: true, url: 'http://localhost:4010/v1' });
    expect(checkClientBaseUrl('http://2130706433:4010/v1', loopback)).toEqual({ ok: true, url: 'http://127.0.0.1:4010/v1' });
  });
});

describe('URL policy: none and explicit lists', () => {
  it('none refuses everything, even loopback', () => {
    const none = parseBaseUrlPolicy('none');
    const r = checkClientBaseUrl('http://127.0.0.1:11434', none);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/ALLOW_CLIENT_BASE_URLS=none/);
  });

  it('a list allows exactly its hosts, pinned ports included', () => {
    const p = parseBaseUrlPolicy('gpu-box.lan:8000, 10.0.0.5, [fd00::7]:9000');
    expect(describePolicy(p)).toBe('gpu-box.lan:8000,10.0.0.5,fd00::7:9000');
    expect(checkClientBaseUrl('http://gpu-box.lan:8000/v1', p).ok).toBe(true);
    expect(checkClientBaseUrl('http://GPU-BOX.LAN.:8000/v1', p).ok).toBe(true);
    expect(checkClientBaseUrl('http://gpu-box.lan:8001/v1', p).ok).toBe(false);
    expect(checkClientBaseUrl('http://gpu-box.lan/v1', p).ok).toBe(false);
    expect(checkClientBaseUrl('http://10.0.0.5:1234/v1', p).ok).toBe(true);
    expect(checkClientBaseUrl('https://10.0.0.5/v1', p).ok).toBe(true);
    expect(checkClientBaseUrl('http://[fd00::7]:9000/v1', p).ok).toBe(true);
    expect(checkClientBaseUrl('http://10.0.0.6/v1', p).ok).toBe(false);
    // Loopback is not implied by a list…
    expect(checkClientBaseUrl('http://127.0.0.1:4010/v1', p).ok).toBe(false);
    // …unless listed.
    expect(checkClientBaseUrl('http://127.0.0.1:4010/v1', parseBaseUrlPolicy('loopback,gpu-box.lan')).ok).toBe(true);
  });

  it('environment URLs may point anywhere except the never-allowed destinations', () => {
    expect(checkServerBaseUrl('https://openrouter.ai/api/v1/').ok).toBe(true);
    expect(checkServerBaseUrl('http://10.0.0.5:8000/v1').ok).toBe(true);
  });
});

describe('guarded fetch', () => {
  const calls: { url: string; redirect?: RequestRedirect }[] = [];
  const base = async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input instanceof Request ? input.url : input), redirect: init?.redirect });
    return new Response('ok');
  };

  it('client trust: refuses URLs outside the policy before any connection', async () => {
    calls.length = 0;
    const f = createGuardedFetch(base, { trust: 'client', policy: loopback });
    await expect(f('http://169.254.169.254/latest/meta-data/')).rejects.toBeInstanceOf(ForbiddenDestinationError);
    await expect(f('http://10.0.0.1:11434/api/tags')).rejects.toBeInstanceOf(ForbiddenDestinationError);
    expect(calls).toHaveLength(0);
    await f('http://127.0.0.1:4010/v1/chat/completions');
    expect(calls).toEqual([{ url: 'http://127.0.0.1:4010/v1/chat/completions', redirect: 'manual' }]);
  });

  it('localhost is sent to 127.0.0.1, never to a resolver, under either trust', async () => {
    for (const f of [createGuardedFetch(base, { trust: 'client', policy: loopback }), createGuardedFetch(base, { trust: 'server' })]) {
      calls.length = 0;
      await f('http://localhost:11434/v1/chat/completions', { method: 'POST', body: '{}' });
      await f(new URL('https://LOCALHOST/v1/models'));
      expect(calls).toEqual([
        { url: 'http://127.0.0.1:11434/v1/chat/completions', redirect: 'manual' },
        { url: 'https://127.0.0.1/v1/models', redirect: 'manual' },
      ]);
    }
  });

  it('localhost goes to ::1 when nothing listens on 127.0.0.1, and only then', async () => {
    const tried: string[] = [];
    const failing = (code: string) => async (input: RequestInfo | URL) => {
      tried.push(String(input));
      if (String(input).includes('127.0.0.1')) throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
      return new Response('ok');
    };
    const refused = createGuardedFetch(failing('ECONNREFUSED'), { trust: 'client', policy: loopback });
    expect(await (await refused('http://localhost:8080/v1/models')).text()).toBe('ok');
    expect(tried).toEqual(['http://127.0.0.1:8080/v1/models', 'http://[::1]:8080/v1/models']);
    tried.length = 0;
    // A reset may come after the request was sent: not repeated.
    const reset = createGuardedFetch(failing('ECONNRESET'), { trust: 'client', policy: loopback });
    await expect(reset('http://localhost:8080/v1/models')).rejects.toThrow('fetch failed');
    expect(tried).toEqual(['http://127.0.0.1:8080/v1/models']);
    tried.length = 0;
    // A streamed body cannot be sent twice.
    await expect(refused('http://localhost:8080/v1/x', { method: 'POST', body: new ReadableStream(), duplex: 'half' } as RequestInit)).rejects.toThrow('fetch failed');
    expect(tried).toEqual(['http://127.0.0.1:8080/v1/x']);
  });

  it('localhost. and friends are refused before any connection, under either trust', async () => {
    calls.length = 0;
    for (const f of [createGuardedFetch(base, { trust: 'client', policy: loopback }), createGuardedFetch(base, { trust: 'server' })]) {
      for (const url of ['http://localhost.:11434/v1/models', 'http://LOCALHOST.:11434/', 'http://localhost..:11434/']) {
        await expect(f(url)).rejects.toThrow(/looked up in DNS/);
      }
    }
    expect(calls).toHaveLength(0);
  });

  it('server trust: any host but the never-allowed ones, redirects not followed', async () => {
    calls.length = 0;
    const f = createGuardedFetch(base, { trust: 'server' });
    await f(new URL('https://api.openai.com/v1/models'));
    await expect(f('http://[::ffff:a9fe:a9fe]/')).rejects.toThrow(/never allowed/);
    expect(calls).toEqual([{ url: 'https://api.openai.com/v1/models', redirect: 'manual' }]);
  });
});
