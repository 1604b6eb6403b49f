/**
 * Which base URLs may the server call on behalf of a browser?
 *
 * A base URL typed into the settings page is an instruction to make this
 * server send HTTP requests somewhere: without a policy that is a server-side
 * request forgery hole (the cloud metadata service, the admin UI on the LAN).
 * The policy comes from ALLOW_CLIENT_BASE_URLS:
 *
 *   loopback (default)  only this machine: localhost, 127.0.0.0/8, ::1
 *   none                no browser-supplied base URLs at all
 *   a,b:8000,loopback   exactly these hosts (optionally pinned to a port),
 *                       plus this machine when "loopback" is listed
 *
 * Whatever the policy says, some destinations are never allowed, also not for
 * base URLs from the environment: non-http(s) schemes, the unspecified address
 * (0.0.0.0, ::), link-local ranges (169.254.0.0/16, fe80::/10) and the cloud
 * metadata endpoints. Those have no business serving a language model and are
 * exactly what an attacker aims for.
 *
 * Hosts are compared after the WHATWG URL parser canonicalised them, which is
 * what fetch itself does: "http://2852039166/", "http://0xa9fea9fe/" and
 * "http://0251.0376.0251.0376/" are all 169.254.169.254 by the time we look,
 * and IPv4-mapped IPv6 ("[::ffff:169.254.169.254]") is unwrapped to its IPv4.
 * Host names are not resolved: the loopback policy admits no names other than
 * "localhost", so DNS cannot smuggle a private address past it, and hosts on an
 * explicit list are trusted by whoever wrote the list. "localhost" itself never
 * reaches a resolver either (guardedFetch sends it to 127.0.0.1 or ::1), and
 * its spellings with trailing dots ("localhost.", "localhost..") are refused
 * everywhere: those are fully qualified names that the system resolver may
 * pass on to DNS, which can answer with any address it likes.
 */

export type BaseUrlPolicy =
  | { kind: 'none' }
  | { kind: 'loopback' }
  | { kind: 'list'; loopback: boolean; hosts: { host: string; port: number | null }[] };

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

export function parseBaseUrlPolicy(value: string | undefined): BaseUrlPolicy {
  const v = (value ?? '').trim();
  if (!v || v.toLowerCase() === 'loopback') return { kind: 'loopback' };
  if (v.toLowerCase() === 'none' || v.toLowerCase() === 'off') return { kind: 'none' };
  const hosts: { host: string; port: number | null }[] = [];
  let loopback = false;
  for (const raw of v.split(',')) {
    const item = raw.trim().toLowerCase();
    if (!item) continue;
    if (item === 'loopback') {
      loopback = true;
      continue;
    }
    // Reuse the URL parser so list entries are canonicalised exactly like the URLs they are compared with.
    let parsed: URL;
    try {
      parsed = new URL(`http://${item}`);
    } catch {
      continue;
    }
    // The parser drops a port that is its scheme's default, so "host:80" read as http would lose its pin
    // (and allow every port): a port the http reading dropped is the one the https reading keeps.
    const port = parsed.port || new URL(`https://${item}`).port;
    hosts.push({ host: normaliseHost(parsed.hostname), port: port ? Number(port) : null });
  }
  return { kind: 'list', loopback, hosts };
}

/** Strip IPv6 brackets, a trailing root dot, and the IPv4-mapped prefix. */
function normaliseHost(hostname: string): string {
  let h = hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  const mapped = ipv4FromMappedIpv6(h);
  return mapped ?? h;
}

function parseIpv4(h: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((n) => n <= 255) ? parts : null;
}

/** Expand an IPv6 literal into 8 hextets; null when it is not one. */
function parseIpv6(h: string): number[] | null {
  if (!h.includes(':')) return null;
  let head = h;
  let tail: number[] = [];
  // An embedded dotted IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (v4) {
    const p = parseIpv4(v4[2]!);
    if (!p) return null;
    head = `${v4[1]!}0:0`;
    tail = [(p[0]! << 8) | p[1]!, (p[2]! << 8) | p[3]!];
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((x) => (/^[0-9a-f]{1,4}$/.test(x) ? parseInt(x, 16) : NaN)));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  let groups: number[];
  if (halves.length === 2) {
    const fill = 8 - left.length - right.length;
    if (fill < 0) return null;
    groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  } else groups = left;
  if (groups.length !== 8) return null;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

function ipv4FromMappedIpv6(h: string): string | null {
  const g = parseIpv6(h);
  if (!g) return null;
  const isMapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  // IPv4-compatible (::a.b.c.d, deprecated) is treated the same: some stacks still route it.
  const isCompat = g.slice(0, 6).every((x) => x === 0) && (g[6]! !== 0 || g[7]! > 1);
  if (!isMapped && !isCompat) return null;
  return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
}

function isLoopbackHost(h: string): boolean {
  if (h === 'localhost') return true;
  const v4 = parseIpv4(h);
  if (v4) return v4[0] === 127;
  const v6 = parseIpv6(h);
  return !!v6 && v6.slice(0, 7).every((x) => x === 0) && v6[7] === 1;
}

/** Destinations refused under every policy; returns why, or null. */
export function forbiddenReason(hostname: string): string | null {
  if (/^localhost\.+$/i.test(hostname)) return `"${hostname.toLowerCase()}" is looked up in DNS, unlike localhost; write localhost or 127.0.0.1`;
  const h = normaliseHost(hostname);
  if (METADATA_HOSTS.has(h) || h.endsWith('.metadata.google.internal')) return 'cloud metadata endpoints are never allowed';
  const v4 = parseIpv4(h);
  if (v4) {
    if (v4[0] === 0) return 'the unspecified address 0.0.0.0/8 is never allowed';
    if (v4[0] === 169 && v4[1] === 254) return 'link-local addresses (169.254.0.0/16, cloud metadata) are never allowed';
    if (v4[0]! >= 224) return 'multicast and reserved addresses are never allowed';
    // Alibaba Cloud's metadata service lives outside link-local.
    if (h === '100.100.100.200') return 'cloud metadata endpoints are never allowed';
    return null;
  }
  const v6 = parseIpv6(h);
  if (v6) {
    if (v6.every((x) => x === 0)) return 'the unspecified address :: is never allowed';
    if ((v6[0]! & 0xffc0) === 0xfe80) return 'link-local addresses (fe80::/10) are never allowed';
    if ((v6[0]! & 0xff00) === 0xff00) return 'multicast addresses are never allowed';
    // AWS's IPv6 metadata endpoint.
    if (v6[0] === 0xfd00 && v6[1] === 0x0ec2 && v6.slice(2, 7).every((x) => x === 0) && v6[7] === 0x254) {
      return 'cloud metadata endpoints are never allowed';
    }
  }
  return null;
}

function parseHttpUrl(raw: string): { url: URL } | { reason: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { reason: `only http and https are allowed, not ${url.protocol.replace(':', '')}` };
  if (url.username || url.password) return { reason: 'credentials in the URL are not accepted; use the API key field' };
  if (!url.hostname) return { reason: 'the URL has no host' };
  return { url };
}

function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** A base URL from the environment: trusted, except for the destinations nobody may reach. */
export function checkServerBaseUrl(raw: string): UrlCheck {
  const p = parseHttpUrl(raw);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const forbidden = forbiddenReason(p.url.hostname);
  if (forbidden) return { ok: false, reason: forbidden };
  return { ok: true, url: stripTrailingSlash(p.url) };
}

/** A base URL sent by a browser: allowed only under the configured policy. */
export function checkClientBaseUrl(raw: string, policy: BaseUrlPolicy): UrlCheck {
  const p = parseHttpUrl(raw);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const { url } = p;
  const forbidden = forbiddenReason(url.hostname);
  if (forbidden) return { ok: false, reason: forbidden };
  if (policy.kind === 'none') return { ok: false, reason: 'this server does not accept base URLs from the browser (ALLOW_CLIENT_BASE_URLS=none)' };
  const host = normaliseHost(url.hostname);
  const loopbackAllowed = policy.kind === 'loopback' || (policy.kind === 'list' && policy.loopback);
  if (loopbackAllowed && isLoopbackHost(host)) return { ok: true, url: stripTrailingSlash(url) };
  if (policy.kind === 'list') {
    const port = effectivePort(url);
    if (policy.hosts.some((e) => e.host === host && (e.port === null || e.port === port))) return { ok: true, url: stripTrailingSlash(url) };
    return { ok: false, reason: `host ${host} is not in ALLOW_CLIENT_BASE_URLS` };
  }
  return { ok: false, reason: `only loopback hosts (localhost, 127.0.0.1, ::1) are allowed from the browser; ${host} is not one (see ALLOW_CLIENT_BASE_URLS)` };
}

function stripTrailingSlash(url: URL): string {
  const s = `${url.origin}${url.pathname}`;
  return s.endsWith('/') ? s.slice(0, -1) : s;
}

export function describePolicy(policy: BaseUrlPolicy): string {
  if (policy.kind === 'none') return 'none';
  if (policy.kind === 'loopback') return 'loopback';
  const hosts = policy.hosts.map((h) => (h.port ? `${h.host}:${h.port}` : h.host));
  return [...(policy.loopback ? ['loopback'] : []), ...hosts].join(',');
}
