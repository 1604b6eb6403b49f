import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../lib/testing/freePort';

/**
 * A second app server from the same production build, with an environment of
 * the test's choosing: for what the shared one (configured with the scripted
 * model as a server-side provider) cannot show, such as a new user's server
 * that has no provider at all. The build itself is made (or found fresh) by
 * the main webServer in playwright.config.ts before any test runs.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface AppServer {
  url: string;
  stop(): Promise<void>;
}

export async function startAppServer(env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Only what the app needs from this process's environment: no provider variable leaks in.
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' as const };
  const child: ChildProcess = spawn(process.execPath, [`${ROOT}/node_modules/next/dist/bin/next`, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The app server exited (${child.exitCode}): ${stderr.slice(-500)}`);
    try {
      if ((await fetch(`${url}/api/models`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`The app server did not start within 60 s: ${stderr.slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
