import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address a request came from, as the per-address rate limits count it.
 *
 * A route handler does not see the socket: Next.js fills `X-Forwarded-For`
 * with the peer's address when the request has none, and keeps the header
 * when it has one. Each proxy appends the address it was reached from (Caddy
 * replaces an untrusted client's header with that address), so the entry
 * `hops` from the right is the one the nearest machine the operator trusts
 * wrote: 1 with no proxy or one proxy, 2 behind a CDN and a proxy
 * (SYNC_FORWARDED_HOPS). A client that talks to the app directly can write
 * the header itself; docs/sync.md says what that means for the limits.
 *
 * IPv6 addresses count by their /64: one machine usually holds a whole /64,
 * and counting single addresses would let it take 2^64 turns.
 */
export function clientAddress(forwardedFor: string | null, hops: number): string {
  const entries = (forwardedFor ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const entry = entries[Math.max(0, entries.length - hops)];
  return entry ? normalise(entry) : 'unknown';
}

function normalise(entry: string): string {
  // "[::1]:1234", "1.2.3.4:5678", "::ffff:1.2.3.4"
  let a = entry.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1');
  if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  if (isIPv4(a)) return a;
  if (isIPv6(a)) return `${expandIPv6(a).slice(0, 4).join(':')}::/64`;
  // Not an address (a proxy that writes names or "unknown"): counted as written, bounded in length.
  return a.slice(0, 100).toLowerCase();
}

function expandIPv6(a: string): string[] {
  const [head, tail] = a.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}
