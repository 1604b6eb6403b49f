/**
 * Sync benchmark: `npx tsx scripts/bench-sync.ts [--quick] [--no-build]`.
 *
 * Real app servers (`next start` from the production build, rebuilt first
 * when stale) on loopback: one on the embedded database (PGlite, a temporary
 * data folder), and, when Debian's postgresql is installed, one and two on a
 * real Postgres started for the run. Devices are the real sync engine
 * (lib/sync/engine.ts) over the real IndexedDB store code on fake-indexeddb,
 * talking to the servers with fetch, as the sync worker does.
 *
 * 1. First sync of a generated 10,000-entry coding session (~1M o200k
 *    tokens): device A creates a space and pushes everything, device B joins
 *    and pulls everything. Time, and bytes on the wire (request and response
 *    bodies, the live stream included) against the raw size of the entries
 *    as JSON.
 * 2. A→B latency with both online: A appends one entry, B's live stream
 *    hears of it and pulls; measured until the entry is in B's database.
 *    On PGlite, and on Postgres with A and B on two different app servers
 *    (LISTEN/NOTIFY in between).
 * 3. Server throughput: 50 simulated devices (protocol clients without
 *    storage, records encrypted beforehand so only the server is timed) in
 *    10 spaces, each with a live stream open, push batches of real entries
 *    and pull what the others pushed. Entries stored per second, records
 *    pulled per second, push latency, errors (goal 0). On PGlite (one
 *    server), Postgres with one app server, and Postgres with two.
 *
 * Writes bench-results/sync.json. Servers and Postgres are stopped at the end,
 * also on failure or Ctrl-C.
 */
// First: Dexie captures the global indexedDB when it loads.
import 'fake-indexeddb/auto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppDB } from '@/lib/db/db';
import { createSessionStore } from '@/lib/db/store';
import { createSyncLocalStore } from '@/lib/db/sync';
import type { SessionEntry } from '@/lib/session/types';
import { fromBase64Url, randomBytes, toBase64Url } from '@/lib/sync/crypto/bytes';
import { webCryptoBackend } from '@/lib/sync/crypto/backend';
import { newSyncCode } from '@/lib/sync/crypto/code';
import { authVerifierOf, deriveSpaceKeys, type SpaceKeys } from '@/lib/sync/crypto/keys';
import { SyncEngine } from '@/lib/sync/engine';
import { deviceAuthorization, spaceAuthorization, type PushRecord } from '@/lib/sync/protocol';
import { entryRecord } from '@/lib/sync/records';
import { httpTransport, type SyncTransport } from '@/lib/sync/transport';
import { generateSession } from '@/lib/testing/generate';
import { freePort } from '@/lib/testing/freePort';
import { postgresBinDir, startPostgres, type PostgresServer } from '@/lib/testing/postgresServer';
import { countText } from '@/lib/tokens/exact';
import { countingInput } from '@/lib/tokens/entryText';
import { args, fmt, machine, machineLine, numArg, QUICK, stats, table, type Stats } from './benchReport';

const ENTRIES = numArg('--entries') ?? (QUICK ? 2_000 : 10_000);
const DEVICES = numArg('--devices') ?? (QUICK ? 10 : 50);
const ROUNDS = numArg('--rounds') ?? (QUICK ? 3 : 10);
const BATCH = 20;
const LATENCY_SAMPLES = numArg('--samples') ?? (QUICK ? 20 : 100);
const BUILD = !args.includes('--no-build');
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'bench-results', 'sync.json');
const backend = webCryptoBackend(globalThis.crypto.subtle);
const now = () => performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ servers

const children: ChildProcess[] = [];
const temps: string[] = [];
let postgres: PostgresServer | null = null;

async function cleanup() {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await postgres?.stop().catch(() => {});
  postgres = null;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void cleanup().then(() => process.exit(130)));

function run(cmd: string, argv: string[]): Promise<number> {
  return new Promise((resolve) => spawn(cmd, argv, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } }).on('exit', (c) => resolve(c ?? 1)));
}

const NO_RATE_LIMITS = { SYNC_RATE_CREATE: 'off', SYNC_RATE_CREATE_TOTAL: 'off', SYNC_RATE_JOIN: 'off', SYNC_RATE_PUSH: 'off', SYNC_RATE_PUSH_BYTES: 'off' };

async function startApp(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const proc = spawn(join(ROOT, 'node_modules/.bin/next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Fifty simulated devices from one address measure throughput: the per-client rate limits (which
    // scripts/sync-limits.ts measures) would measure the limits instead.
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', OLLAMA_BASE_URL: 'off', ...NO_RATE_LIMITS, ...env },
  });
  proc.stdout!.on('data', (d) => (log = (log + String(d)).slice(-4000)));
  proc.stderr!.on('data', (d) => (log = (log + String(d)).slice(-4000)));
  children.push(proc);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`app server exited:\n${log}`);
    try {
      // The first sync request opens the database and migrates it; an unauthenticated one is refused after that.
      if ((await fetch(`${url}/api/sync/devices`)).status === 401) return url;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`app server did not start:\n${log}`);
    await sleep(200);
  }
}

function pgliteDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'longctx-bench-sync-'));
  temps.push(dir);
  return dir;
}

// ------------------------------------------------------------------ devices

let dbSeq = 0;
function device(url: string) {
  const db = new AppDB(`bench-${++dbSeq}`);
  const transport = httpTransport({ baseUrl: url, fetch: (input, init) => fetch(input, init) });
  const engine = new SyncEngine({ local: createSyncLocalStore(db), transport, backend, pollMs: 3_600_000 });
  return { db, store: createSessionStore(db), engine, transport };
}

// ------------------------------------------------------------------ 1. first sync

async function firstSync(url: string, entries: SessionEntry[], leafId: string | null) {
  const a = device(url);
  const b = device(url);
  await a.store.importSnapshots([{ meta: { id: 'big', title: 'Benchmark session', createdAt: 1, updatedAt: 1, leafId }, entries }]);
  let t = now();
  const { words } = await a.engine.create('bench A');
  await a.engine.syncNow();
  const pushMs = now() - t;
  t = now();
  await b.engine.join(words, 'bench B');
  await b.engine.syncNow();
  const pullMs = now() - t;
  const onB = (await b.store.listSessions())[0];
  if (onB?.entryCount !== entries.length) throw new Error(`B received ${onB?.entryCount} of ${entries.length} entries`);
  a.db.close();
  b.db.close();
  return { pushMs, pullMs, sentByA: a.transport.traffic.sent, receivedByB: b.transport.traffic.received, receivedByA: a.transport.traffic.received, sentByB: b.transport.traffic.sent };
}

// ------------------------------------------------------------------ 2. latency

async function latency(urlA: string, urlB: string, samples: number): Promise<Stats & { samples: number[] }> {
  const a = device(urlA);
  const b = device(urlB);
  const s = await a.store.createSession({ title: 'Latency' });
  const { words } = await a.engine.create('A');
  await b.engine.join(words, 'B');
  a.engine.start();
  b.engine.start();
  while (!(await b.store.getSession(s.id))) await sleep(20);
  let parent: string | null = null;
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = now();
    const [e] = await a.store.appendEntries(s.id, parent, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `ping ${i}` }] } }]);
    parent = e!.id;
    const deadline = t + 10_000;
    while (!(await b.db.entries.where('[sessionId+id]').equals([s.id, e!.id]).count())) {
      if (now() > deadline) throw new Error(`entry ${i} did not reach B within 10 s`);
      await sleep(2);
    }
    ms.push(now() - t);
    await sleep(30);
  }
  await a.engine.stop();
  await b.engine.stop();
  a.db.close();
  b.db.close();
  return { ...stats(ms), samples: ms };
}

// ------------------------------------------------------------------ 3. throughput

interface SimDevice {
  url: string;
  auth: string;
  transport: SyncTransport;
  batches: PushRecord[][];
  checkpoint: number;
}

async function simulatedDevices(urls: string[], pool: SessionEntry[]): Promise<SimDevice[]> {
  const perSpace = 5;
  const devices: SimDevice[] = [];
  let k = 0;
  for (let space = 0; space < DEVICES / perSpace; space++) {
    const keys: SpaceKeys = await deriveSpaceKeys(newSyncCode(), backend);
    const spaceAuth = spaceAuthorization(keys.spaceId, toBase64Url(keys.authKey));
    for (let d = 0; d < perSpace; d++) {
      const url = urls[devices.length % urls.length]!;
      const transport = httpTransport({ baseUrl: url, fetch: (input, init) => fetch(input, init) });
      const token = toBase64Url(randomBytes(32));
      const registration = { id: toBase64Url(randomBytes(16)), tokenVerifier: await authVerifierOf(fromBase64Url(token), backend), name: toBase64Url(await keys.seal(new TextEncoder().encode(`sim ${d}`), 'device')) };
      if (d === 0) await transport.createSpace({ spaceId: keys.spaceId, authVerifier: await authVerifierOf(keys.authKey, backend), device: registration }, spaceAuth);
      else await transport.join({ spaceId: keys.spaceId, device: registration }, spaceAuth);
      const batches: PushRecord[][] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const batch: PushRecord[] = [];
        for (let j = 0; j < BATCH; j++) {
          const e = pool[k++ % pool.length]!;
          batch.push(await entryRecord(keys, `sim-${space}-${d}`, { ...e, id: `${e.id}-${space}-${d}-${r}-${j}` }));
        }
        batches.push(batch);
      }
      devices.push({ url, auth: deviceAuthorization(registration.id, token), transport, batches, checkpoint: 0 });
    }
  }
  return devices;
}

async function throughput(label: string, urls: string[], pool: SessionEntry[]) {
  const devices = await simulatedDevices(urls, pool);
  const streams = new AbortController();
  let events = 0;
  let errors = 0;
  const errorSamples: string[] = [];
  const fail = (err: unknown) => {
    errors++;
    if (errorSamples.length < 3) errorSamples.push(String((err as Error)?.message ?? err));
  };
  // Every device keeps a live stream open, as a browser tab does.
  const live = devices.map((d) => d.transport.live(d.auth, streams.signal, () => void events++).catch((err) => !streams.signal.aborted && fail(err)));
  await sleep(500);
  const pushMs: number[] = [];
  let pulled = 0;
  const t = now();
  await Promise.all(
    devices.map(async (d) => {
      for (const batch of d.batches) {
        try {
          const p = now();
          await d.transport.push(batch, d.auth);
          pushMs.push(now() - p);
          for (;;) {
            const page = await d.transport.pull(d.checkpoint, 500, d.auth);
            pulled += page.records.length;
            d.checkpoint = page.checkpoint;
            if (!page.more) break;
          }
        } catch (err) {
          fail(err);
        }
      }
    }),
  );
  const seconds = (now() - t) / 1000;
  streams.abort();
  await Promise.all(live);
  const pushed = devices.length * ROUNDS * BATCH;
  return { label, servers: urls.length, devices: devices.length, pushed, pulled, seconds, entriesPerSecond: pushed / seconds, pulledPerSecond: pulled / seconds, pushLatencyMs: stats(pushMs), liveEvents: events, errors, errorSamples };
}

// ------------------------------------------------------------------ main

async function main() {
  console.log(`Sync bench — ${ENTRIES.toLocaleString('en-US')}-entry first sync, ${LATENCY_SAMPLES} latency samples, ${DEVICES} devices × ${ROUNDS} pushes of ${BATCH} entries; ${machineLine()}\n`);
  if (BUILD && (await run(process.execPath, ['-e', "import('./scripts/lib.mjs').then((m) => m.buildIfStale()).then((c) => process.exit(c))"])) !== 0) throw new Error('next build failed');

  const gen = generateSession({ seed: 20_261_116, entries: ENTRIES, compactEvery: 500, usage: true });
  let tokens = 0;
  let raw = 0;
  for (const e of gen.entries) {
    tokens += countingInput(e).pieces.reduce((n, p) => n + countText(p), 0);
    raw += Buffer.byteLength(JSON.stringify(e), 'utf8');
  }

  const t0 = now();
  const pglite = await startApp({ LONGCTX_DATA_DIR: pgliteDir() });
  let pgUrls: string[] = [];
  if (postgresBinDir()) {
    postgres = await startPostgres();
    pgUrls = await Promise.all([startApp({ DATABASE_URL: postgres.url }), startApp({ DATABASE_URL: postgres.url })]);
  } else console.log('(Postgres not installed: only the embedded database is measured. apt-get install postgresql)\n');
  console.log(`Servers up in ${fmt((now() - t0) / 1000, 1)} s: PGlite ${pglite}${pgUrls.length ? `, Postgres ${pgUrls.join(' and ')} → ${postgres!.url.replace(/\/\/[^@]*@/, '//')}` : ''}\n`);

  console.log(`1. First sync of ${ENTRIES.toLocaleString('en-US')} entries (${tokens.toLocaleString('en-US')} o200k tokens, ${fmt(raw / 1e6, 2)} MB as JSON)`);
  const first = [{ server: 'PGlite', ...(await firstSync(pglite, gen.entries, gen.leafId)) }];
  if (pgUrls.length) first.push({ server: 'Postgres', ...(await firstSync(pgUrls[0]!, gen.entries, gen.leafId)) });
  table(
    ['server', 'A pushes all (s)', 'B pulls all (s)', 'entries/s in', 'sent by A', 'received by B', 'wire / raw (A→server)', 'wire / raw (server→B)'],
    first.map((f) => [f.server, fmt(f.pushMs / 1000, 2), fmt(f.pullMs / 1000, 2), fmt(ENTRIES / (f.pullMs / 1000), 0), `${fmt(f.sentByA / 1e6, 2)} MB`, `${fmt(f.receivedByB / 1e6, 2)} MB`, `${fmt(f.sentByA / raw, 2)}×`, `${fmt(f.receivedByB / raw, 2)}×`]),
  );
  console.log('   Devices run the real engine and IndexedDB code on fake-indexeddb in Node (slower than a browser’s IndexedDB); bytes are the HTTP bodies (deflated, encrypted, base64 in JSON) before any transport compression.\n');

  console.log(`2. A→B latency while both are online (${LATENCY_SAMPLES} appends; A writes, B’s live stream hears, B pulls and stores)`);
  const lat = [{ setup: 'PGlite, one app server', ...(await latency(pglite, pglite, LATENCY_SAMPLES)) }];
  if (pgUrls.length) lat.push({ setup: 'Postgres, A and B on two app servers', ...(await latency(pgUrls[0]!, pgUrls[1]!, LATENCY_SAMPLES)) });
  table(['setup', 'p50 ms', 'p95 ms', 'max ms'], lat.map((l) => [l.setup, fmt(l.p50, 1), fmt(l.p95, 1), fmt(l.max, 1)]));

  console.log(`3. Server throughput: ${DEVICES} simulated devices in ${DEVICES / 5} spaces, each with a live stream, ${ROUNDS} pushes of ${BATCH} entries and a pull after each`);
  const pool = gen.entries.slice(0, 2_000);
  const thr = [await throughput('PGlite, one app server', [pglite], pool)];
  if (pgUrls.length) {
    thr.push(await throughput('Postgres, one app server', [pgUrls[0]!], pool));
    thr.push(await throughput('Postgres, two app servers', pgUrls, pool));
  }
  table(
    ['setup', 'entries pushed', 's', 'entries/s stored', 'records/s pulled', 'push p50 ms', 'push p95 ms', 'live events', 'errors'],
    thr.map((r) => [r.label, r.pushed.toLocaleString('en-US'), fmt(r.seconds, 2), fmt(r.entriesPerSecond, 0), fmt(r.pulledPerSecond, 0), fmt(r.pushLatencyMs.p50, 0), fmt(r.pushLatencyMs.p95, 0), r.liveEvents.toLocaleString('en-US'), r.errors]),
  );
  const errors = thr.reduce((n, r) => n + r.errors, 0);
  if (errors) console.log(`   ERRORS: ${thr.flatMap((r) => r.errorSamples).join(' | ')}`);

  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ ...machine(), quick: QUICK, entries: ENTRIES, tokens, rawBytes: raw, firstSync: first, latency: lat.map(({ samples: _s, ...l }) => l), throughput: thr, postgres: pgUrls.length > 0 }, null, 2));
  console.log(`Wrote bench-results/sync.json`);
  if (errors) throw new Error(`${errors} errors under load (goal 0)`);
}

main()
  .then(cleanup)
  .catch(async (err) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  });
