/**
 * Probes of a sync server from the outside, as an abusive or just heavy
 * client would drive it: the raw protocol over HTTP against a real app server
 * (`next start` of a build), with the server's resident memory and open files
 * read from /proc while it works. Used by scripts/sync-limits.ts (figures,
 * before and after) and e2e/sync-limits.spec.ts (the same probes, asserted).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes as bulkRandom, webcrypto } from 'node:crypto';
import { fromBase64Url, randomBytes, toBase64Url } from '@/lib/sync/crypto/bytes';
import { webCryptoBackend } from '@/lib/sync/crypto/backend';
import { authVerifierOf, deriveSpaceKeys } from '@/lib/sync/crypto/keys';
import { deviceAuthorization, spaceAuthorization } from '@/lib/sync/protocol';
import { freePort } from '@/lib/testing/freePort';

const backend = webCryptoBackend(webcrypto.subtle as SubtleCrypto);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const MiB = 1024 * 1024;

// ------------------------------------------------------------------ the server

export interface ProbeServer {
  url: string;
  pid: number;
  /** Resident memory of the server process, bytes. */
  rss(): number;
  /** Open file descriptors of the server process. */
  fds(): number;
  log(): string;
  stop(): Promise<void>;
}

/**
 * `next start` of the build in `appDir` on a free loopback port, with the
 * embedded database in a temporary folder unless `env` names DATABASE_URL.
 * Resolves once the sync routes answer (their database open and migrated).
 */
export async function startProbeServer(appDir: string, env: Record<string, string> = {}): Promise<ProbeServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const data = mkdtempSync(join(tmpdir(), 'longctx-probe-'));
  let output = '';
  const child: ChildProcess = spawn(join(appDir, 'node_modules/.bin/next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: appDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', OLLAMA_BASE_URL: 'off', LONGCTX_DATA_DIR: data, ...env },
  });
  child.stdout!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  child.stderr!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
    }
    rmSync(data, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`app server exited (${child.exitCode}):\n${output}`);
    }
    try {
      if ((await fetch(`${url}/api/sync/devices`)).status === 401) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`app server did not start:\n${output}`);
    }
    await sleep(200);
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    rss: () => rssOf(pid),
    fds: () => readdirSync(`/proc/${pid}/fd`).length,
    log: () => output,
    stop,
  };
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Samples the server's RSS every `everyMs` until stopped; the peak and the samples. */
function sampleRss(server: ProbeServer, everyMs = 20) {
  let peak = server.rss();
  const samples: number[] = [];
  const t = setInterval(() => {
    try {
      const r = server.rss();
      samples.push(r);
      if (r > peak) peak = r;
    } catch {
      /* exited */
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      return { peak, samples };
    },
  };
}

/** The server's RSS at rest: the median of a second of samples. */
export async function restingRss(server: ProbeServer, ms = 1000): Promise<number> {
  const s = sampleRss(server, 50);
  await sleep(ms);
  const { samples } = s.stop();
  const sorted = samples.sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? server.rss();
}

// ------------------------------------------------------------------ the protocol, raw

export interface ProbeDevice {
  spaceId: string;
  deviceId: string;
  /** `Device …` */
  auth: string;
  /** `Space …`: what joining with the right code sends. */
  spaceAuth: string;
}

const id = () => toBase64Url(randomBytes(16));

async function registration() {
  const token = toBase64Url(randomBytes(32));
  return { token, device: { id: id(), tokenVerifier: await authVerifierOf(fromBase64Url(token), backend), name: toBase64Url(randomBytes(600)) } };
}

const post = (url: string, path: string, authorization: string, body: unknown) =>
  fetch(`${url}/api/sync/${path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Creates a space with a device in it; resolves with the answer and, when created, the device. */
export async function createSpace(url: string): Promise<{ status: number; retryAfter: string | null; device: ProbeDevice | null }> {
  const keys = await deriveSpaceKeys(randomBytes(16), backend);
  const spaceAuth = spaceAuthorization(keys.spaceId, toBase64Url(keys.authKey));
  const { token, device } = await registration();
  const res = await post(url, 'space', spaceAuth, { spaceId: keys.spaceId, authVerifier: await authVerifierOf(keys.authKey, backend), device });
  await res.arrayBuffer();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    device: res.ok ? { spaceId: keys.spaceId, deviceId: device.id, auth: deviceAuthorization(device.id, token), spaceAuth } : null,
  };
}

/** Joins `spaceId` with the given space credentials (a wrong key for a wrong code). */
export async function joinSpace(url: string, spaceId: string, spaceAuth: string): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  const { device } = await registration();
  const res = await post(url, 'join', spaceAuth, { spaceId, device });
  const body = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.code };
}

const wrongSpaceAuth = (spaceId: string) => spaceAuthorization(spaceId, toBase64Url(randomBytes(32)));

/** Entry records of `bytes` random bytes each (the server cannot tell them from ciphertext). */
function randomEntries(n: number, bytes: number) {
  const sessionKey = id();
  return Array.from({ length: n }, () => ({ kind: 'entry' as const, key: id(), sessionKey, body: bulkRandom(bytes).toString('base64url') }));
}

export async function push(url: string, device: ProbeDevice, records: unknown[]): Promise<{ status: number; retryAfter: string | null; body: { stored?: number; code?: string; error?: string } }> {
  const res = await post(url, 'push', device.auth, { records });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json().catch(() => ({}))) as { stored?: number } };
}

// ------------------------------------------------------------------ probes

export interface PullProbe {
  /** Server RSS at rest after the pushes, before the pull. */
  restingRss: number;
  /** One `GET /api/sync/pull?after=0&limit=1000`. */
  one: { bytes: number; records: number; more: boolean; ms: number; peakRss: number };
  /** Pulling everything, page after page, as a device does. */
  all: { pages: number; records: number; largestPage: number; ms: number; peakRss: number };
}

async function readPull(url: string, device: ProbeDevice, after: number) {
  const res = await fetch(`${url}/api/sync/pull?after=${after}&limit=1000`, { headers: { authorization: device.auth } });
  if (!res.ok) throw new Error(`pull answered ${res.status}: ${await res.text()}`);
  const text = await res.text();
  const page = JSON.parse(text) as { records: unknown[]; checkpoint: number; more: boolean };
  return { bytes: Buffer.byteLength(text), records: page.records.length, checkpoint: page.checkpoint, more: page.more };
}

/**
 * The pull-memory probe of the issue: a new space, `records` entries of
 * `recordBytes` pushed (one per request), then one pull of up to 1,000
 * records, then a full pull page by page; the server's RSS sampled throughout.
 */
export async function probePull(server: ProbeServer, opts: { records: number; recordBytes: number }): Promise<PullProbe> {
  const { device } = await createSpace(server.url);
  if (!device) throw new Error('could not create a space');
  for (let i = 0; i < opts.records; i++) {
    const r = await push(server.url, device, randomEntries(1, opts.recordBytes));
    if (r.status !== 200) throw new Error(`push answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  const resting = await restingRss(server);
  let s = sampleRss(server);
  let t = performance.now();
  const first = await readPull(server.url, device, 0);
  const one = { bytes: first.bytes, records: first.records, more: first.more, ms: performance.now() - t, peakRss: s.stop().peak };
  await restingRss(server, 500);
  s = sampleRss(server);
  t = performance.now();
  let after = 0;
  let pages = 0;
  let records = 0;
  let largestPage = 0;
  for (;;) {
    const page = await readPull(server.url, device, after);
    pages++;
    records += page.records;
    largestPage = Math.max(largestPage, page.bytes);
    after = page.checkpoint;
    if (!page.more) break;
  }
  return { restingRss: resting, one, all: { pages, records, largestPage, ms: performance.now() - t, peakRss: s.stop().peak } };
}

export type StatusCounts = Record<string, number>;
const count = (counts: StatusCounts, status: number) => void (counts[status] = (counts[status] ?? 0) + 1);

/** `n` space creations from one client at `perSecond`: how many the server accepted, refused, and what it said to wait. */
export async function probeCreations(url: string, opts: { n: number; perSecond: number }) {
  const statuses: StatusCounts = {};
  const retryAfter = new Set<string>();
  const t = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < opts.n; i++) {
    const due = t + (i * 1000) / opts.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(
      createSpace(url).then(
        (r) => {
          count(statuses, r.status);
          if (r.retryAfter) retryAfter.add(r.retryAfter);
        },
        () => count(statuses, 0),
      ),
    );
  }
  await Promise.all(running);
  return { statuses, retryAfter: [...retryAfter].sort((a, b) => Number(a) - Number(b)), seconds: (performance.now() - t) / 1000 };
}

/** `n` joins with a wrong key to one existing space, `concurrency` at a time. */
export async function probeWrongJoins(url: string, device: ProbeDevice, opts: { n: number; concurrency: number }) {
  const statuses: StatusCounts = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next++ < opts.n) {
        const r = await joinSpace(url, device.spaceId, wrongSpaceAuth(device.spaceId)).catch(() => ({ status: 0 }));
        count(statuses, r.status);
      }
    }),
  );
  return { statuses };
}

/**
 * One device opens `n` live streams at once (`concurrency` connecting at a
 * time) and holds the ones the server accepts; the server's RSS and open
 * files with all of them open.
 */
export async function probeLiveStreams(server: ProbeServer, device: ProbeDevice, opts: { n: number; concurrency: number }) {
  const statuses: StatusCounts = {};
  const open: AbortController[] = [];
  const rssBefore = await restingRss(server, 500);
  const fdsBefore = server.fds();
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next++ < opts.n) {
        const ctl = new AbortController();
        try {
          const res = await fetch(`${server.url}/api/sync/live`, { headers: { authorization: device.auth, accept: 'text/event-stream' }, signal: ctl.signal });
          count(statuses, res.status);
          if (res.ok && res.body) {
            // Held open: read the first event, then leave the rest unread.
            await res.body.getReader().read();
            open.push(ctl);
          } else {
            await res.arrayBuffer();
          }
        } catch {
          count(statuses, 0);
        }
      }
    }),
  );
  await sleep(500);
  const rssOpen = server.rss();
  const fdsOpen = server.fds();
  for (const c of open) c.abort();
  return { statuses, held: open.length, rssGrowth: rssOpen - rssBefore, fdsGrowth: fdsOpen - fdsBefore };
}

/** One client pushing `recordBytes` records, `parallel` pushes at a time, for `seconds`: what the database took. */
export async function probePushGrowth(url: string, device: ProbeDevice, opts: { seconds: number; recordBytes: number; perPush: number; parallel: number }) {
  const statuses: StatusCounts = {};
  let stored = 0;
  const end = performance.now() + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.parallel }, async () => {
      while (performance.now() < end) {
        const r = await push(url, device, randomEntries(opts.perPush, opts.recordBytes)).catch(() => ({ status: 0, retryAfter: null, body: {} as { stored?: number } }));
        count(statuses, r.status);
        if (r.status === 200) stored += (r.body.stored ?? 0) * opts.recordBytes;
        // A client that honours Retry-After, as the app does; waiting no longer than the probe lasts.
        else if (r.status === 429) await sleep(Math.min(Number(r.retryAfter ?? 1) * 1000, Math.max(0, end - performance.now())));
      }
    }),
  );
  return { statuses, storedBytes: stored, perMinute: (stored / opts.seconds) * 60 };
}
