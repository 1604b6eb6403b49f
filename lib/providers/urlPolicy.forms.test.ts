import { describe, expect, it } from 'vitest';
import { checkClientBaseUrl, checkServerBaseUrl, describePolicy, forbiddenReason, parseBaseUrlPolicy, type UrlCheck } from './urlPolicy';

const loopback = parseBaseUrlPolicy(undefined);
const reasonOf = (r: UrlCheck) => (r.ok ? null : r.reason);

describe('ALLOW_CLIENT_BASE_URLS: the value as an env file writes it', () => {
  it.each([
    ['', 'loopback'],
    ['loopback', 'loopback'],
    ['LOOPBACK', 'loopback'],
    ['  loopback\n', 'loopback'],
    ['none', 'none'],
    ['None', 'none'],
    ['off', 'none'],
    ['OFF', 'none'],
    [' none ', 'none'],
    ['loopback,gpu-box.lan', 'loopback,gpu-box.lan'],
    ['gpu-box.lan,,10.0.0.5', 'gpu-box.lan,10.0.0.5'],
    ['GPU-Box.LAN:8000', 'gpu-box.lan:8000'],
  ])('%j is the policy %j', (value, described) => {
    expect(describePolicy(parseBaseUrlPolicy(value))).toBe(described);
  });

  it('"off" and "none" refuse even loopback, as "loopback" (any case) allows it', () => {
    for (const v of ['off', 'OFF', ' none ']) expect(reasonOf(checkClientBaseUrl('http://127.0.0.1:11434/v1', parseBaseUrlPolicy(v)))).toMatch(/ALLOW_CLIENT_BASE_URLS=none/);
    for (const v of ['LOOPBACK', '  loopback\n', ''])
      expect(checkClientBaseUrl('http://127.0.0.1:11434/v1', parseBaseUrlPolicy(v))).toEqual({ ok: true, url: 'http://127.0.0.1:11434/v1' });
  });

  it('"loopback" alone is the loopback policy, not a list that happens to name it', () => {
    for (const v of ['loopback', 'LOOPBACK', ' Loopback ']) {
      expect(parseBaseUrlPolicy(v)).toEqual({ kind: 'loopback' });
      expect(reasonOf(checkClientBaseUrl('http://10.0.0.5:8000/v1', parseBaseUrlPolicy(v)))).toMatch(/^only loopback hosts/);
    }
  });

  it('a port written in the list pins the host to it, the scheme default ports (80, 443) included', () => {
    // The URL parser drops a port that is its scheme's default, so "host:80" once lost its pin and allowed every port.
    const p80 = parseBaseUrlPolicy('gpu-box.lan:80');
    expect(describePolicy(p80)).toBe('gpu-box.lan:80');
    expect(checkClientBaseUrl('http://gpu-box.lan/v1', p80).ok).toBe(true);
    expect(checkClientBaseUrl('http://gpu-box.lan:80/v1', p80).ok).toBe(true);
    expect(checkClientBaseUrl('https://gpu-box.lan:80/v1', p80).ok).toBe(true);
    expect(checkClientBaseUrl('http://gpu-box.lan:8080/v1', p80).ok).toBe(false);
    expect(checkClientBaseUrl('https://gpu-box.lan/v1', p80).ok).toBe(false);

    const p443 = parseBaseUrlPolicy('gpu-box.lan:443');
    expect(describePolicy(p443)).toBe('gpu-box.lan:443');
    expect(checkClientBaseUrl('https://gpu-box.lan/v1', p443).ok).toBe(true);
    expect(checkClientBaseUrl('http://gpu-box.lan:443/v1', p443).ok).toBe(true);
    expect(checkClientBaseUrl('http://gpu-box.lan/v1', p443).ok).toBe(false);
    expect(checkClientBaseUrl('https://gpu-box.lan:8443/v1', p443).ok).toBe(false);

    const pIpv6 = parseBaseUrlPolicy('[fd00::7]:80');
    expect(describePolicy(pIpv6)).toBe('fd00::7:80');
    expect(checkClientBaseUrl('http://[fd00::7]/v1', pIpv6).ok).toBe(true);
    expect(checkClientBaseUrl('http://[fd00::7]:8000/v1', pIpv6).ok).toBe(false);
  });

  it('a host outside the list is refused by name', () => {
    expect(reasonOf(checkClientBaseUrl('http://10.0.0.6/v1', parseBaseUrlPolicy('10.0.0.5')))).toBe('host 10.0.0.6 is not in ALLOW_CLIENT_BASE_URLS');
    expect(reasonOf(checkClientBaseUrl('http://[fd00::8]:9000/v1', parseBaseUrlPolicy('[fd00::7]:9000')))).toBe('host fd00::8 is not in ALLOW_CLIENT_BASE_URLS');
  });
});

describe('base URLs as people paste them', () => {
  it('surrounding spaces and non-breaking spaces (copied from a web page) are not part of the URL', () => {
    for (const raw of [' http://localhost:11434/v1 ', '\u00a0http://localhost:11434/v1\u00a0', '\thttp://localhost:11434/v1/\n']) {
      expect(checkClientBaseUrl(raw, loopback)).toEqual({ ok: true, url: 'http://localhost:11434/v1' });
      expect(checkServerBaseUrl(raw)).toEqual({ ok: true, url: 'http://localhost:11434/v1' });
    }
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['localhost:11434/v1', 'only http and https are allowed, not localhost'],
    ['ftp://127.0.0.1/', 'only http and https are allowed, not ftp'],
    ['ws://127.0.0.1:8080/v1', 'only http and https are allowed, not ws'],
    ['file:///etc/passwd', 'only http and https are allowed, not file'],
    ['http://user@127.0.0.1/v1', 'credentials in the URL are not accepted; use the API key field'],
  ])('%s is refused: %s', (raw, reason) => {
    expect(reasonOf(checkClientBaseUrl(raw, loopback))).toBe(reason);
    expect(reasonOf(checkServerBaseUrl(raw))).toBe(reason);
  });
});

describe('loopback: every spelling of this machine, and only those', () => {
  it.each([
    'http://[::127.0.0.1]:11434/v1', // IPv4-compatible IPv6 form of 127.0.0.1
    'http://[0:0:0:0:0:0:0:1]:11434/v1',
    'http://127.255.255.254/v1',
    'http://0x7f.1/v1',
  ])('%s is this machine', (url) => {
    expect(checkClientBaseUrl(url, loopback).ok).toBe(true);
  });

  it.each([
    // A global address whose last 48 bits read like ::ffff:127.0.0.1 is not an IPv4-mapped address.
    'http://[2001:db8::ffff:7f00:1]/v1',
    'http://[2001:db8::7f00:1]/v1',
    'http://[::1:0:0:1]/v1',
    'http://[2001:db8:1:2:3:4:5:6]/v1',
    'http://128.0.0.1/v1',
    'http://foo.localhost./v1',
  ])('%s is not', (url) => {
    expect(reasonOf(checkClientBaseUrl(url, loopback))).toMatch(/^only loopback hosts \(localhost, 127\.0\.0\.1, ::1\) are allowed from the browser; .+ is not one/);
  });
});

describe('never-allowed destinations, one reason each', () => {
  it.each([
    ['http://metadata.goog/computeMetadata/v1/', /^cloud metadata endpoints are never allowed$/],
    ['http://instance-data/latest/meta-data/', /^cloud metadata endpoints are never allowed$/],
    ['http://instance-data.ec2.internal/latest/meta-data/', /^cloud metadata endpoints are never allowed$/],
    ['http://metadata/computeMetadata/v1/', /^cloud metadata endpoints are never allowed$/],
    ['http://v1.metadata.google.internal/', /^cloud metadata endpoints are never allowed$/],
    ['http://[fd00:ec2::254]/latest/meta-data/', /^cloud metadata endpoints are never allowed$/],
    ['http://100.100.100.200/latest/meta-data/', /^cloud metadata endpoints are never allowed$/],
    ['http://169.254.169.254/', /^link-local addresses \(169\.254\.0\.0\/16, cloud metadata\) are never allowed$/],
    ['http://[::ffff:169.254.169.254]/', /^link-local addresses \(169\.254/],
    ['http://[fe80::1]/', /^link-local addresses \(fe80::\/10\) are never allowed$/],
    ['http://0.0.0.0:11434/', /^the unspecified address 0\.0\.0\.0\/8 is never allowed$/],
    ['http://[::2]/', /^the unspecified address 0\.0\.0\.0\/8/], // IPv4-compatible ::0.0.0.2
    ['http://[::]/', /^the unspecified address :: is never allowed$/],
    ['http://224.0.0.251/', /^multicast and reserved addresses are never allowed$/],
    ['http://255.255.255.255/', /^multicast and reserved addresses are never allowed$/],
    ['http://[ff02::1]/', /^multicast addresses are never allowed$/],
    ['http://[ff05::fb]:5353/', /^multicast addresses are never allowed$/],
  ])('%s: %s', (url, reason) => {
    expect(reasonOf(checkServerBaseUrl(url))).toMatch(reason);
    expect(reasonOf(checkClientBaseUrl(url, loopback))).toMatch(reason);
  });

  it.each([
    // Neighbours of the refused ranges are ordinary addresses an operator may point the server at.
    'http://10.254.0.5:8000/v1',
    'http://169.253.0.1/v1',
    'http://169.255.0.1/v1',
    'http://223.255.255.254/v1',
    'http://100.100.100.201/v1',
    'http://[fd00::254]:8000/v1',
    'http://[fd00:ec2::1]:8000/v1',
    'http://[fd00:ec2:1::254]:8000/v1',
    'http://[fd01:ec2::254]:8000/v1',
    'http://[fec0::1]/v1',
    'http://[fe00::1]/v1',
    'http://[2001:db8:1:2:3:4:5:6]:8000/v1',
    'http://metadata.example.com/v1',
    'http://my-metadata.google.internal.example.com/v1',
    'http://models.localhost./v1',
  ])('%s may be used from the environment', (url) => {
    const r = checkServerBaseUrl(url);
    expect(r.ok, reasonOf(r) ?? '').toBe(true);
  });
});

describe('forbiddenReason on host names that did not come through the URL parser', () => {
  // The function is exported for guardedFetch, which passes URL host names; these check that an address
  // written in another valid IPv6 form (a dotted IPv4 tail, brackets or not) is judged the same.
  it.each([
    ['::ffff:169.254.169.254', /^link-local addresses \(169\.254/],
    ['[::ffff:169.254.169.254]', /^link-local addresses \(169\.254/],
    ['0:0:0:0:0:ffff:169.254.169.254', /^link-local addresses \(169\.254/],
    ['::ffff:100.100.100.200', /^cloud metadata endpoints/],
    ['::ffff:0.0.0.0', /^the unspecified address 0\.0\.0\.0/],
    ['::224.0.0.1', /^multicast and reserved/],
  ])('%s: %s', (host, reason) => {
    expect(forbiddenReason(host)).toMatch(reason);
  });

  it.each(['::ffff:10.0.0.5', '::ffff:127.0.0.1', '2001:db8::10.0.0.5'])('%s is not refused', (host) => {
    expect(forbiddenReason(host)).toBeNull();
  });

  it('a dotted tail that is no IPv4 address makes no address at all, and no exception', () => {
    expect(forbiddenReason('::ffff:169.254.169.999')).toBeNull();
  });
});
