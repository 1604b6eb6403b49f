import { describe, expect, it } from 'vitest';
import { clientAddress } from './clientAddress';
import { LIMIT_DEFAULTS, parseDuration, parseRate, parseSize, readSyncLimits } from './limits';

describe('sync limits from the environment', () => {
  it('has the documented defaults', () => {
    const l = readSyncLimits({});
    expect(l.pullPageBytes).toBe(4 * 1024 * 1024);
    expect(l.quota).toEqual({ bytes: 1024 ** 3, records: 1_000_000, devices: 20 });
    expect(l.rate.create).toEqual({ capacity: 10, perSecond: 10 / 3600 });
    expect(l.rate.createTotal).toEqual({ capacity: 100, perSecond: 100 / 3600 });
    expect(l.rate.join).toEqual({ capacity: 30, perSecond: 30 / 3600 });
    expect(l.rate.push).toEqual({ capacity: 120, perSecond: 2 });
    expect(l.rate.pushBytes).toEqual({ capacity: 256 * 1024 * 1024, perSecond: (256 * 1024 * 1024) / 3600 });
    expect(l.live).toEqual({ perDevice: 4, perServer: 1000, maxAgeMs: 30 * 60_000, idleMs: 5 * 60_000 });
    expect(l.forwardedHops).toBe(1);
    // Every default is a value the parser itself accepts: the table in docs/sync.md can be pasted.
    expect(readSyncLimits({ ...LIMIT_DEFAULTS })).toEqual(l);
  });

  it('reads sizes, counts, rates and durations, and "off"', () => {
    const l = readSyncLimits({
      SYNC_PULL_PAGE_BYTES: '512k',
      SYNC_QUOTA_BYTES: 'off',
      SYNC_QUOTA_RECORDS: '5000',
      SYNC_RATE_CREATE: '3/10min',
      SYNC_RATE_PUSH_BYTES: '1g/day',
      SYNC_RATE_JOIN: 'off',
      SYNC_LIVE_MAX_AGE: '90s',
      SYNC_LIVE_IDLE: '250ms',
    });
    expect(l.pullPageBytes).toBe(512 * 1024);
    expect(l.quota.bytes).toBe(Infinity);
    expect(l.quota.records).toBe(5000);
    expect(l.rate.create).toEqual({ capacity: 3, perSecond: 3 / 600 });
    expect(l.rate.pushBytes).toEqual({ capacity: 1024 ** 3, perSecond: 1024 ** 3 / 86_400 });
    expect(l.rate.join).toBeNull();
    expect(l.live.maxAgeMs).toBe(90_000);
    expect(l.live.idleMs).toBe(250);
    expect([parseSize('1.5m'), parseSize('12 KiB'), parseSize('7'), parseSize('3x')]).toEqual([1_572_864, 12_288, 7, null]);
    expect([parseDuration('2h'), parseDuration('5'), parseRate('10/fortnight', false), parseRate('2m/h', false)]).toEqual([7_200_000, null, null, null]);
  });

  it('refuses a value that does not parse, naming the variable', () => {
    expect(() => readSyncLimits({ SYNC_RATE_CREATE: 'ten per hour' })).toThrow(/SYNC_RATE_CREATE=ten per hour is not a rate such as 10\/h/);
    expect(() => readSyncLimits({ SYNC_PULL_PAGE_BYTES: '64m' })).toThrow(/SYNC_PULL_PAGE_BYTES=64m is not a size from 64 KiB to 16 MiB/);
    expect(() => readSyncLimits({ SYNC_QUOTA_DEVICES: '0' })).toThrow(/SYNC_QUOTA_DEVICES/);
    expect(() => readSyncLimits({ SYNC_LIVE_IDLE: 'soon' })).toThrow(/SYNC_LIVE_IDLE/);
  });
});

describe('client address', () => {
  it('is the X-Forwarded-For entry the nearest trusted hop wrote, IPv6 by its /64', () => {
    // No proxy: Next.js wrote the peer's address.
    expect(clientAddress('127.0.0.1', 1)).toBe('127.0.0.1');
    expect(clientAddress('::ffff:192.0.2.7', 1)).toBe('192.0.2.7');
    // nginx appends: what the client wrote itself is to the left and not believed.
    expect(clientAddress('6.6.6.6, 198.51.100.4', 1)).toBe('198.51.100.4');
    // A CDN then a proxy: two trusted hops.
    expect(clientAddress('198.51.100.4, 203.0.113.1', 2)).toBe('198.51.100.4');
    expect(clientAddress('198.51.100.4', 2)).toBe('198.51.100.4');
    expect(clientAddress('2001:db8:1:2:3:4:5:6', 1)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('[2001:db8:1:2::9]:443', 1)).toBe(clientAddress('2001:0db8:0001:0002:ffff::1', 1));
    expect(clientAddress('192.0.2.9:5555', 1)).toBe('192.0.2.9');
    expect(clientAddress(null, 1)).toBe('unknown');
  });
});
