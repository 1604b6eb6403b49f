import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../lib/testing/freePort';
import { MOCK_URL } from './fixtures';

/**
 * An app server as an operator runs it: `node scripts/start.mjs` (what `npm
 * start` execs, with the access check in front of Next), on a loopback port
 * of its own, with the scripted model as its provider. Its stdout is the
 * request log (one JSON line per request), kept so a test can tell which
 * server answered what.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface RequestLine {
  msg: string;
  method?: string;
  route?: string;
  status?: number;
  client?: string;
}

export interface LaunchedServer {
  port: number;
  /** host:port, as a reverse proxy's upstream. */
  upstream: string;
  requests(): RequestLine[];
  stop(): Promise<void>;
}

export async function launchServer(env: Record<string, string>): Promise<LaunchedServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'longctx-launched-'));
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: {
      // Only what a systemd unit would give it: nothing from this process's environment leaks in.
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LONGCTX_DATA_DIR: dataDir,
      LONGCTX_SHUTDOWN_GRACE_MS: '2000',
      OLLAMA_BASE_URL: 'off',
      OPENAI_COMPATIBLE_BASE_URL: `${MOCK_URL}/v1`,
      OPENAI_COMPATIBLE_NAME: 'Scripted test model',
      DEFAULT_MODEL: 'compat:mock-large',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    // The launcher's own deadline is its grace period plus ten seconds; past that, something hangs.
    const late = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(late);
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The app server exited (${child.exitCode}): ${err.slice(-1000)}`);
    }
    // The health check answers without the secret and whatever the Host: what Caddy's health checks call too.
    const status = (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status ?? 0;
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The app server was not healthy within 90 s: ${err.slice(-1000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    port,
    upstream: `127.0.0.1:${port}`,
    requests: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as RequestLine)
        .filter((l) => l.msg === 'request'),
    stop,
  };
}
