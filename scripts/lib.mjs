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
  const sources = ['app', 'components', 'lib', 'workers', 'public', 'proxy.ts', 'instrumentation-client.ts', 'next.config.mjs', 'package.json', 'tsconfig.json'];
  return newestMtime(sources) > built;
}

/** Runs a command with inherited stdio; resolves with its exit code. */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: ROOT, ...opts, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...opts.env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(127));
  });
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
