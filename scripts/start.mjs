// `npm start`: build when sources changed since the last build, then serve the app.
// Binds to 127.0.0.1 by default: sessions and typed API keys live in this browser,
// and the server proxies model calls, so it is not exposed to the network unless HOST says so.
// Exposed (HOST other than loopback, or ALLOWED_HOSTS set), it requires LONGCTX_ACCESS_SECRET:
// see lib/access/policy.ts. The server itself is lib/server/launch.ts, in this process, so a
// signal to this process reaches the server directly and nothing is left running after it.
import { join } from 'node:path';
import { buildIfStale, ROOT, stopWithParent } from './lib.mjs';

process.env.NODE_ENV ??= 'production';
process.env.NEXT_TELEMETRY_DISABLED = '1';

const code = await buildIfStale();
if (code !== 0) process.exit(code);

// .env.local and friends, as `next start` would read them, before deciding whether this server may start.
const { default: { loadEnvConfig } } = await import('@next/env');
loadEnvConfig(ROOT, false, { info: () => {}, error: (...args) => console.error(...args) });

// The launcher is TypeScript in lib/server (tested with the rest of lib); tsx loads it without a build step.
const { tsImport } = await import('tsx/esm/api');
const { launch } = await tsImport('../lib/server/launch.ts', { parentURL: import.meta.url, tsconfig: join(ROOT, 'tsconfig.json') });
const { default: next } = await import('next');
const refused = await launch({ env: process.env, dir: ROOT, createNext: (opts) => next(opts) });
if (refused !== null) process.exit(refused);

// Under `npm start`, npm is the supervisor: if it is killed outright (SIGKILL, a test runner torn down), nothing
// would tell this server to stop, and it would keep the port and the embedded database. Stop when npm is gone.
// (Run by hand, `node scripts/start.mjs &` from a shell that then exits is left running, as one would expect.)
if (process.env.npm_lifecycle_event === 'start') stopWithParent();
