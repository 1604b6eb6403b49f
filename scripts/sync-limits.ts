/**
 * Sync server limits, measured from the outside:
 * `npx tsx scripts/sync-limits.ts [--before <dir or git ref>] [--postgres] [--quick] [--no-build]`.
 *
 * Starts this tree's production build (`next start`, rebuilt first when
 * stale) on loopback, a fresh server and database for each probe, and drives
 * it over HTTP as the reports did (scripts/syncProbe.ts):
 *
 * 1. pull memory: a new space, 8 entries of 8 MB pushed, one
 *    `GET /api/sync/pull?limit=1000`, then everything page by page; the
 *    server's RSS sampled every 20 ms;
 * 2. 1,500 anonymous space creations at 33 per second;
 * 3. 2,000 joins with a wrong code to one space;
 * 4. one device opening 2,000 live streams: accepted, refused, the server's
 *    RSS and open files with them open;
 * 5. one client pushing 1 MB records as fast as the server lets it for a
 *    minute: what the database took.
 *
 * `--app <dir or git ref>` probes another build instead of this tree's.
 * With `--before`, the same probes run first against another build (a folder
 * with a build, or a git ref, which is extracted to /tmp, installed and built
 * once) and the table shows both. `--postgres` runs the servers on a real
 * Postgres (Debian's, started for the run) instead of the embedded database.
 * `--only pull,create,join,live,growth` runs some of the probes.
 * Writes bench-results/sync-limits.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '@/lib/testing/postgresServer';
import { args, fmt, machine, machineLine, numArg, QUICK, table } from './benchReport';
import { createSpace, MiB, probeCreations, probeLiveStreams, probePull, probePushGrowth, probeWrongJoins, startProbeServer, type ProbeServer, type StatusCounts } from './syncProbe';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const strArg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const RECORDS = numArg('--records') ?? 8;
const RECORD_BYTES = (numArg('--record-mb') ?? 8) * MiB;
const CREATIONS = numArg('--creations') ?? (QUICK ? 300 : 1500);
const CREATION_RATE = numArg('--rate') ?? 33;
const JOINS = numArg('--joins') ?? (QUICK ? 400 : 2000);
const STREAMS = numArg('--streams') ?? (QUICK ? 500 : 2000);
const GROWTH_SECONDS = numArg('--growth-seconds') ?? (QUICK ? 15 : 60);
const ONLY = new Set((strArg('--only') ?? 'pull,create,join,live,growth').split(','));

let postgres: PostgresServer | null = null;
let databases = 0;
const servers = new Set<ProbeServer>();

async function cleanup() {
  for (const s of servers) await s.stop().catch(() => {});
  servers.clear();
  await postgres?.stop().catch(() => {});
  postgres = null;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => void cleanup().then(() => process.exit(130)));

/** A fresh server (and database): every probe starts from nothing, so one's rate limits do not spill into the next. */
async function server(appDir: string): Promise<ProbeServer> {
  const env: Record<string, string> = {};
  if (args.includes('--postgres')) {
    postgres ??= await startPostgres();
    const name = `probe_${++databases}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    env.DATABASE_URL = postgres.url.replace(/\/postgres$/, `/${name}`);
  }
  const s = await startProbeServer(appDir, env);
  servers.add(s);
  return s;
}

async function done(s: ProbeServer) {
  servers.delete(s);
  await s.stop();
}

/** The build to probe: a folder with a build, or a git ref extracted, installed and built once under /tmp. */
function prepare(target: string): string {
  if (existsSync(target)) {
    const dir = resolve(target);
    if (!existsSync(join(dir, '.next', 'BUILD_ID'))) execFileSync(join(dir, 'node_modules/.bin/next'), ['build'], { cwd: dir, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    return dir;
  }
  const sha = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${target}^{commit}`]).toString().trim();
  const dir = `/tmp/longctx-ref-${sha.slice(0, 12)}`;
  if (!existsSync(join(dir, '.next', 'BUILD_ID'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${sha} | tar -x -C "${dir}"`], { stdio: 'inherit' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    execFileSync(join(dir, 'node_modules/.bin/next'), ['build'], { cwd: dir, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  }
  return dir;
}

const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;
const statuses = (c: StatusCounts) =>
  Object.entries(c)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${n} × ${s === '0' ? 'failed' : s}`)
    .join(', ');

async function probeAll(appDir: string) {
  const out: Record<string, unknown> = {};
  const rows: [string, string][] = [];
  const row = (name: string, value: string) => rows.push([name, value]);

  if (ONLY.has('pull')) {
    const s = await server(appDir);
    const pull = await probePull(s, { records: RECORDS, recordBytes: RECORD_BYTES });
    await done(s);
    out.pull = pull;
    row('server RSS at rest (after the pushes)', mb(pull.restingRss));
    row(`one pull?limit=1000 of ${RECORDS} × ${RECORD_BYTES / MiB} MB: response`, `${mb(pull.one.bytes)}, ${pull.one.records} records`);
    row('  peak RSS growth during it', mb(pull.one.peakRss - pull.restingRss));
    row('  time', `${fmt(pull.one.ms / 1000, 1)} s`);
    row('pulling everything: pages, largest page', `${pull.all.pages}, ${mb(pull.all.largestPage)}`);
    row('  peak RSS growth, time', `${mb(pull.all.peakRss - pull.restingRss)}, ${fmt(pull.all.ms / 1000, 1)} s`);
    row('  peak RSS growth / largest page', `${fmt((pull.all.peakRss - pull.restingRss) / pull.all.largestPage, 2)} ×`);
  }

  if (ONLY.has('create')) {
    const s = await server(appDir);
    const creations = await probeCreations(s.url, { n: CREATIONS, perSecond: CREATION_RATE });
    await done(s);
    out.creations = creations;
    row(`${CREATIONS} space creations at ${CREATION_RATE}/s`, statuses(creations.statuses));
    row('  Retry-After (s)', creations.retryAfter.length ? `${creations.retryAfter[0]}…${creations.retryAfter.at(-1)}` : '–');
  }

  if (ONLY.has('join')) {
    const s = await server(appDir);
    const { device } = await createSpace(s.url);
    const joins = await probeWrongJoins(s.url, device!, { n: JOINS, concurrency: 20 });
    await done(s);
    out.joins = joins;
    row(`${JOINS} joins with a wrong code`, statuses(joins.statuses));
  }

  if (ONLY.has('live')) {
    const s = await server(appDir);
    const streamDevice = (await createSpace(s.url)).device!;
    const live = await probeLiveStreams(s, streamDevice, { n: STREAMS, concurrency: 50 });
    await done(s);
    out.live = live;
    row(`${STREAMS} live streams from one device`, statuses(live.statuses));
    row('  held open; server RSS growth; open files growth', `${live.held}; ${mb(live.rssGrowth)}; ${live.fdsGrowth}`);
  }

  if (ONLY.has('growth') && GROWTH_SECONDS > 0) {
    const s = await server(appDir);
    const pusher = (await createSpace(s.url)).device!;
    const growth = await probePushGrowth(s.url, pusher, { seconds: GROWTH_SECONDS, recordBytes: MiB, perPush: 4, parallel: 4 });
    await done(s);
    out.growth = growth;
    row(`one client pushing 1 MB records for ${GROWTH_SECONDS} s: database growth`, `${mb(growth.perMinute)} per minute`);
    row('  answers', statuses(growth.statuses));
  }
  return { rows, out };
}

try {
  if (!args.includes('--no-build')) execFileSync('node', ['-e', "import('./scripts/lib.mjs').then(async (m) => process.exit(await m.buildIfStale()))"], { cwd: ROOT, stdio: 'inherit' });
  console.log(`Sync limits probe. ${machineLine()}; ${args.includes('--postgres') ? 'Postgres' : 'embedded PGlite'}\n`);
  const beforeArg = strArg('--before');
  const before = beforeArg ? await probeAll(prepare(beforeArg)) : null;
  const appArg = strArg('--app');
  const after = await probeAll(appArg ? prepare(appArg) : ROOT);
  if (before) table(['probe', `before (${beforeArg})`, `after (${appArg ?? 'this tree'})`], after.rows.map(([name, value], i) => [name, before.rows[i]?.[1] ?? '–', value]));
  else table(['probe', appArg ?? 'this tree'], after.rows);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'sync-limits.json'), JSON.stringify({ ...machine(), before: before?.out ?? null, after: after.out }, null, 2));
} finally {
  await cleanup();
}
