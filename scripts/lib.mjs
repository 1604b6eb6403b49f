// Shared helpers for the project's scripts (plain Node, no dependencies).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** Newest modification time below the given paths, skipping build output. */
function newestMtime(paths) {
  let newest = 0;
  const stack = paths.map((p) => join(ROOT, p)).filter(existsSync);
  while (stack.length) {
    const p = stack.pop();
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) {
        if (name === 'node_modules' || name === '.next' || name.endsWith('.test.ts')) continue;
        stack.push(join(p, name));
      }
    } else if (st.mtimeMs > newest) newest = st.mtimeMs;
  }
  return newest;
}

/** True when .next is missing or older than any source that goes into the build. */
export function buildIsStale() {
  const marker = join(ROOT, '.next', 'BUILD_ID');
  if (!existsSync(marker)) return true;
  const built = statSync(marker).mtimeMs;
  const sources = ['app', 'components', 'lib', 'workers', 'public', 'proxy.ts', 'instrumentation.ts', 'instrumentation-client.ts', 'next.config.mjs', 'package.json', 'tsconfig.json'];
  return newestMtime(sources) > built;
}

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs a command with inherited stdio; resolves with its exit code. A signal
 * this process gets while the command runs is passed on to it, and once the
 * command has stopped this process ends by the same signal, as it would have
 * without the command: a SIGTERM to `npm start` during the build stops the
 * build and then the script, and no child outlives the script that started it.
 */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: ROOT, ...opts, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...opts.env } });
    let received = null;
    const forward = (signal) => {
      received = signal;
      child.kill(signal);
    };
    for (const s of FORWARDED_SIGNALS) process.on(s, forward);
    const done = (code) => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward);
      if (received) process.kill(process.pid, received);
      else resolve(code);
    };
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
    child.on('error', () => done(127));
  });
}

/**
 * Stops this process (SIGTERM to itself, so its own shutdown runs) when the
 * process that started it is gone: a test runner or npm killed outright
 * (SIGKILL) tells its children nothing, and a server left behind would keep
 * its port and the embedded database's lock.
 */
export function stopWithParent() {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}

export const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

export async function buildIfStale() {
  if (!buildIsStale()) {
    console.log('> build is up to date');
    return 0;
  }
  console.log('> building the app (next build)…');
  return run(bin('next'), ['build']);
}
