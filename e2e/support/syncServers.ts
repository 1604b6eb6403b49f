import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../lib/testing/freePort';
import { startPostgres, type PostgresServer } from '../../lib/testing/postgresServer';
import { MOCK_URL } from './fixtures';

/**
 * Extra app servers for the sync tests: `next start` from the build the
 * suite already made, on free loopback ports, pointed at a real Postgres
 * (Debian's, started by the test) or at their own embedded database. They can
 * be killed and started again on the same port, as a crashed or redeployed
 * server would be.
 */
export interface AppServer {
  url: string;
  port: number;
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

async function waitUp(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app server exited (${child.exitCode}):\n${log()}`);
    try {
      const r = await fetch(`${url}/api/models`);
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`app server did not start:\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startAppServer(env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(join(ROOT, 'node_modules/.bin/next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        OPENAI_COMPATIBLE_BASE_URL: `${MOCK_URL}/v1`,
        OPENAI_COMPATIBLE_NAME: 'Scripted test model',
        OLLAMA_BASE_URL: 'off',
        DEFAULT_MODEL: 'compat:mock-large',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += String(d)));
    child.stderr!.on('data', (d) => (output += String(d)));
    await waitUp(url, child, () => output);
  };
  await launch();
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  return { url, port, kill, restart: async () => (await kill(), await launch()) };
}

/** A Postgres for the suite, and a client the tests use to look at (or tamper with) what the server stored. */
export async function startSyncDatabase(): Promise<{ pg: PostgresServer; sql: pg.Pool; stop(): Promise<void> }> {
  const server = await startPostgres();
  const sql = new pg.Pool({ connectionString: server.url, max: 2 });
  return {
    pg: server,
    sql,
    stop: async () => {
      await sql.end();
      await server.stop();
    },
  };
}
