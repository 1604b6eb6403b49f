import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort';

/**
 * A throwaway Postgres server for tests and benchmarks, from the machine's own
 * installation (Debian's `postgresql` package: /usr/lib/postgresql/<v>/bin, or
 * PG_BIN): initdb in a temporary directory, started on a free loopback port,
 * removed on stop. Postgres refuses to run as root, so as root it runs as the
 * user `pgtest`, created when missing.
 */
export interface PostgresServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function postgresBinDir(): string | null {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : null;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : null;
}

export const PG_USER = 'pgtest';

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('No Postgres installation found (apt-get install postgresql, or set PG_BIN).');
  const root = process.getuid?.() === 0;
  if (root) {
    try {
      execFileSync('id', ['-u', PG_USER], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--create-home', '--shell', '/bin/sh', PG_USER], { stdio: 'ignore' });
    }
  }
  const as = (cmd: string, args: string[]) => (root ? execFileSync('runuser', ['-u', PG_USER, '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' }));
  const dir = mkdtempSync(join(tmpdir(), 'longctx-pg-'));
  chmodSync(dir, 0o700);
  if (root) {
    const uid = Number(execFileSync('id', ['-u', PG_USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', PG_USER]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // Durability off: a test database is thrown away, and fsync would only make the suite slower.
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  as(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
