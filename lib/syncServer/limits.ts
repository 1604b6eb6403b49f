/**
 * What one client, one space and one app server may take of the sync server,
 * read from the environment (docs/sync.md, "Limits and quotas", lists every
 * variable with its default). A value that does not parse stops the sync
 * server with a sentence naming the variable, rather than running with a
 * limit the operator did not mean.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** A token bucket: `capacity` at once, refilled at `perSecond`. */
export interface RateRule {
  capacity: number;
  perSecond: number;
}

export interface SyncLimits {
  /** Bytes of record bodies per pull page (a single larger record still goes, alone). */
  pullPageBytes: number;
  /** Per space; Infinity when off. */
  quota: { bytes: number; records: number; devices: number };
  /** Null when off. Kept in the database, so they hold across app servers. */
  rate: {
    /** Space creations per client address. */
    create: RateRule | null;
    /** Space creations by all clients together: what binds a client that hides its address. */
    createTotal: RateRule | null;
    /** Joins (right code or wrong) per client address. */
    join: RateRule | null;
    /** Pushes per device. */
    push: RateRule | null;
    /** Bytes pushed per client address. */
    pushBytes: RateRule | null;
  };
  /** Per app server (each process counts its own streams). */
  live: { perDevice: number; perServer: number; maxAgeMs: number; idleMs: number };
  /** How many X-Forwarded-For entries, from the right, were written by machines the operator trusts. */
  forwardedHops: number;
}

export class SyncConfigError extends Error {
  override name = 'SyncConfigError';
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** The defaults, as the variables would spell them (docs/sync.md shows this table). */
export const LIMIT_DEFAULTS = {
  SYNC_PULL_PAGE_BYTES: '4m',
  SYNC_QUOTA_BYTES: '1g',
  SYNC_QUOTA_RECORDS: '1000000',
  SYNC_QUOTA_DEVICES: '20',
  SYNC_RATE_CREATE: '10/h',
  SYNC_RATE_CREATE_TOTAL: '100/h',
  SYNC_RATE_JOIN: '30/h',
  SYNC_RATE_PUSH: '120/min',
  SYNC_RATE_PUSH_BYTES: '256m/h',
  SYNC_LIVE_PER_DEVICE: '4',
  SYNC_LIVE_PER_SERVER: '1000',
  SYNC_LIVE_MAX_AGE: '30min',
  SYNC_LIVE_IDLE: '5min',
  SYNC_FORWARDED_HOPS: '1',
} as const;

type Name = keyof typeof LIMIT_DEFAULTS;

const UNITS: Record<string, number> = { '': 1, b: 1, k: KiB, kb: KiB, kib: KiB, m: MiB, mb: MiB, mib: MiB, g: GiB, gb: GiB, gib: GiB };
const PERIODS: Record<string, number> = { ms: 0.001, s: 1, sec: 1, second: 1, min: 60, minute: 60, h: 3600, hour: 3600, d: 86_400, day: 86_400 };

/** `4m`, `1g`, `512k`, `1048576` (binary units). */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!m) return null;
  const unit = UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const n = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(n) ? n : null;
}

/** `30min`, `5s`, `1h`, `250ms`, in milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(text.trim());
  if (!m) return null;
  const period = PERIODS[m[2]!.toLowerCase()];
  if (period === undefined) return null;
  return Math.round(Number(m[1]) * period * 1000);
}

/** `10/h`, `120/min`, `256m/h`, `5/10min`: so many (or so many bytes) per period; the whole amount may be taken at once. */
export function parseRate(text: string, sizes: boolean): RateRule | null {
  const m = /^([^/]+)\/\s*(\d*(?:\.\d+)?)\s*([a-z]+)$/i.exec(text.trim());
  if (!m) return null;
  const amount = sizes ? parseSize(m[1]!) : /^\s*\d+\s*$/.test(m[1]!) ? Number(m[1]) : null;
  const period = PERIODS[m[3]!.toLowerCase()];
  const seconds = (m[2] ? Number(m[2]) : 1) * (period ?? NaN);
  if (!amount || !(seconds > 0)) return null;
  return { capacity: amount, perSecond: amount / seconds };
}

const OFF = /^(off|none|unlimited)$/i;

export function readSyncLimits(env: Env): SyncLimits {
  const raw = (name: Name) => env[name]?.trim() || LIMIT_DEFAULTS[name];
  const fail = (name: Name, what: string): never => {
    throw new SyncConfigError(`${name}=${env[name]} is not ${what} (default ${LIMIT_DEFAULTS[name]}).`);
  };
  const size = (name: Name, min: number, max = Infinity) => {
    const n = parseSize(raw(name));
    return n !== null && n >= min && n <= max ? n : fail(name, `a size from ${min / KiB} KiB${max < Infinity ? ` to ${max / MiB} MiB` : ''}, such as 4m or 1g`);
  };
  const count = (name: Name, min = 1) => {
    const text = raw(name);
    return /^\d+$/.test(text) && Number(text) >= min ? Number(text) : fail(name, `a whole number of at least ${min}`);
  };
  const quota = (name: Name, parse: (name: Name) => number) => (OFF.test(raw(name)) ? Infinity : parse(name));
  const rate = (name: Name, sizes = false) => (OFF.test(raw(name)) ? null : (parseRate(raw(name), sizes) ?? fail(name, `a rate such as ${LIMIT_DEFAULTS[name]}, or off`)));
  const duration = (name: Name) => {
    const ms = parseDuration(raw(name));
    return ms !== null && ms >= 100 ? ms : fail(name, 'a duration such as 30min, 90s or 1h');
  };
  return {
    pullPageBytes: size('SYNC_PULL_PAGE_BYTES', 64 * KiB, 16 * MiB),
    quota: {
      bytes: quota('SYNC_QUOTA_BYTES', (n) => size(n, MiB)),
      records: quota('SYNC_QUOTA_RECORDS', (n) => count(n, 1)),
      devices: quota('SYNC_QUOTA_DEVICES', (n) => count(n, 1)),
    },
    rate: {
      create: rate('SYNC_RATE_CREATE'),
      createTotal: rate('SYNC_RATE_CREATE_TOTAL'),
      join: rate('SYNC_RATE_JOIN'),
      push: rate('SYNC_RATE_PUSH'),
      pushBytes: rate('SYNC_RATE_PUSH_BYTES', true),
    },
    live: {
      perDevice: count('SYNC_LIVE_PER_DEVICE'),
      perServer: count('SYNC_LIVE_PER_SERVER'),
      maxAgeMs: duration('SYNC_LIVE_MAX_AGE'),
      idleMs: duration('SYNC_LIVE_IDLE'),
    },
    forwardedHops: count('SYNC_FORWARDED_HOPS'),
  };
}
