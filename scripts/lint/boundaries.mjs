/**
 * The architecture's boundaries as ESLint rules (docs/architecture.md):
 *
 *   lib/ (domain and flows, pure)  ←  lib/db (IndexedDB)  ←  lib/browser (browser adapters)
 *        ↑                                   ↑                      ↑
 *   workers/ (hosts lib off the main thread)      components/ + app/ (React)
 *   app/api/* (server) depends on lib/ only, never on the browser side.
 *
 * Packages are checked by name (no-restricted-imports, both the bare and the
 * sub-path form), local files by where an import resolves to
 * (import/no-restricted-paths, through the TypeScript resolver), so `@/lib/db`,
 * `@/lib/db/sessions` and `../db/sessions` are the same import. Each rule has a
 * test in scripts/lint/*.test.ts that lints a violating snippet and expects it
 * to fail.
 */

const REACT = ['react', 'react-dom', 'zustand', '@tanstack/react-query', '@tanstack/react-virtual', 'react-markdown', 'sonner'];
const NEXT = ['next'];
const DEXIE = ['dexie', 'dexie-react-hooks'];
/** The sync server's database clients: PGlite and node-postgres. */
const SERVER_DB = ['@electric-sql/pglite', 'pg'];
const SERVER_DB_MESSAGE = 'Only lib/syncServer talks to the sync database (PGlite or Postgres).';
/** The sync server's code runs in route handlers; nothing on the browser side may pull it (or its database) in. */
const SYNC_SERVER = { './lib/syncServer': 'lib/syncServer is the sync server: only app/api routes (and its own tests) import it.' };

/**
 * The server's own code: the access check (it holds the operator's secret) and the server process
 * (logs, shutdown). Marked `import 'server-only'` where Next bundles it; this says it before a build does.
 */
const SERVER_SIDE = {
  './lib/access': 'lib/access is the server’s access check: only the proxy, the routes and server pages import it.',
  './lib/server': 'lib/server is the server process (launcher, logs, shutdown): the browser side never imports it.',
};

/** The packages in `names`, each with everything under it, refused with `message`. */
const packages = (names, message) => names.map((name) => ({ group: [name, `${name}/*`], message }));

const restrictPackages = (...groups) => ['error', { patterns: groups.flat() }];

/** `target` may not import from any folder or file of `from` (path → why not). */
const forbid = (target, from) => Object.entries(from).map(([path, message]) => ({ target, from: path, message }));

const restrictPaths = (...zones) => ['error', { basePath: import.meta.dirname + '/../..', zones: zones.flat() }];

const BROWSER_GLOBALS = [
  { name: 'fetch', message: 'lib/ has no network: inject a transport (lib/flows/ports.ts) instead.' },
  { name: 'window', message: 'lib/ runs outside the page too: inject what you need.' },
  { name: 'document', message: 'lib/ runs outside the page too: inject what you need.' },
  { name: 'navigator', message: 'lib/ runs outside the page too: browser APIs belong in lib/browser.' },
  { name: 'indexedDB', message: 'IndexedDB is lib/db’s alone.' },
  { name: 'localStorage', message: 'Browser storage belongs in lib/db or lib/browser.' },
  { name: 'sessionStorage', message: 'Browser storage belongs in lib/db or lib/browser.' },
  { name: 'XMLHttpRequest', message: 'lib/ has no network: inject a transport instead.' },
  { name: 'WebSocket', message: 'lib/ has no network: inject a transport instead.' },
  { name: 'EventSource', message: 'lib/ has no network: inject a transport instead.' },
];

/** What no part of lib/ may import, tests included. */
const LIB_OUTSIDE = {
  './lib/browser': 'lib/ may not import lib/browser: the browser adapters plug into the ports from outside.',
  './workers': 'lib/ may not import workers/: workers host lib, not the other way round.',
  './components': 'lib/ may not import components/.',
  './app': 'lib/ may not import app/.',
};

/** Where lib/ code may not reach (every file of lib/ but lib/db and lib/browser). */
const LIB_ZONES = [
  forbid('./lib', { './lib/db': 'lib/ may not import lib/db: depend on the SessionStore port (lib/flows/ports.ts).' }),
  forbid('./lib', LIB_OUTSIDE),
  // The sync client (the engine, the flows) runs in the browser: the server's code stays out of its bundle.
  forbid(['./lib/sync', './lib/flows'], SYNC_SERVER),
  forbid(['./lib/sync', './lib/flows'], SERVER_SIDE),
];

/**
 * The summarizers may not use the probes that judge them: a summary written
 * from the judge's own extraction would score well by construction, which is
 * how the first eval came to rate an empty model summary at 95 %.
 */
const PROBES = { './lib/compaction/probes': 'The summarizers may not use the probes that score them (lib/compaction/probes): that would make the eval circular.' };

export const boundaryConfigs = [
  {
    // The pure domain and the flows: no framework, no storage, no network, no browser.
    files: ['lib/**/*.ts'],
    ignores: ['lib/db/**', 'lib/browser/**'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'lib/ is pure TypeScript: React and UI libraries belong in components/.'),
        packages(NEXT, 'lib/ does not know it runs in Next.js.'),
        packages(DEXIE, 'Only lib/db touches IndexedDB: inject the store port instead.'),
        packages(['comlink'], 'Workers are reached through ports, not imported by lib/.'),
        packages(SERVER_DB, SERVER_DB_MESSAGE),
      ),
      'no-restricted-globals': ['error', ...BROWSER_GLOBALS],
      'import/no-restricted-paths': restrictPaths(...LIB_ZONES),
    },
  },
  {
    // The summarizers (compaction and branch summaries), with everything lib/ may not reach.
    files: ['lib/compaction/**/*.ts', 'lib/branch/**/*.ts'],
    ignores: ['lib/compaction/probes/**', 'lib/compaction/eval/**', '**/*.test.ts'],
    rules: { 'import/no-restricted-paths': restrictPaths(...LIB_ZONES, forbid(['./lib/compaction', './lib/branch'], PROBES)) },
  },
  {
    // The sync server: pure like the rest of lib/, plus its database clients.
    files: ['lib/syncServer/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'lib/ is pure TypeScript: React and UI libraries belong in components/.'),
        packages(NEXT, 'lib/ does not know it runs in Next.js.'),
        packages(DEXIE, 'The sync server has no IndexedDB.'),
        packages(['comlink'], 'Workers are reached through ports, not imported by lib/.'),
      ),
    },
  },
  {
    // Tests of lib/ (and their kit in lib/testing) may wire the real store, on fake-indexeddb:
    // the flows are tested against lib/db as well as against fakes.
    files: ['lib/**/*.test.ts', 'lib/testing/**/*.ts'],
    rules: { 'import/no-restricted-paths': restrictPaths(forbid('./lib', LIB_OUTSIDE)) },
  },
  {
    // Storage: Dexie lives here and nowhere else; it serves lib/, it does not know the UI.
    files: ['lib/db/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'lib/db serves every layer: no React or UI libraries.'),
        packages(NEXT, 'lib/db does not know it runs in Next.js.'),
        packages(SERVER_DB, SERVER_DB_MESSAGE),
      ),
      'import/no-restricted-paths': restrictPaths(
        forbid('./lib/db', {
          './lib/browser': 'lib/db may not import lib/browser.',
          './workers': 'lib/db may not import workers/.',
          './components': 'lib/db may not import components/.',
          './app': 'lib/db may not import app/.',
          ...SYNC_SERVER,
          ...SERVER_SIDE,
        }),
      ),
    },
  },
  {
    // Browser adapters: fetch, Web Locks, downloads, the worker clients. Still no React, no Dexie.
    files: ['lib/browser/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'lib/browser adapts browser APIs for the flows: no React or UI libraries.'),
        packages(NEXT, 'lib/browser does not know it runs in Next.js.'),
        packages(DEXIE, 'Only lib/db touches IndexedDB: call its functions.'),
        packages(SERVER_DB, SERVER_DB_MESSAGE),
      ),
      'import/no-restricted-paths': restrictPaths(
        forbid('./lib/browser', { './components': 'lib/browser may not import components/.', './app': 'lib/browser may not import app/.', ...SYNC_SERVER, ...SERVER_SIDE }),
      ),
    },
  },
  {
    // Workers host lib/ off the main thread: no UI, no browser adapters, IndexedDB only through lib/db.
    files: ['workers/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'A worker has no UI.'),
        packages(NEXT, 'A worker does not know it runs in Next.js.'),
        packages(DEXIE, 'Only lib/db touches IndexedDB: call its functions.'),
        packages(SERVER_DB, SERVER_DB_MESSAGE),
      ),
      'import/no-restricted-paths': restrictPaths(
        forbid('./workers', {
          './components': 'workers/ may not import components/.',
          './app': 'workers/ may not import app/.',
          './lib/browser': 'workers/ may not import lib/browser: adapters wire workers in, not out.',
          ...SYNC_SERVER,
          ...SERVER_SIDE,
        }),
      ),
    },
  },
  {
    // React: render state, call flows. Storage only through lib/db's functions, workers only through the flows.
    files: ['components/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    ignores: ['app/api/**'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(DEXIE, 'Components reach IndexedDB only through lib/db (its watch… observers and the flows).'),
        packages(SERVER_DB, SERVER_DB_MESSAGE),
      ),
      'import/no-restricted-paths': restrictPaths(
        forbid(['./components', './app'], {
          ...SYNC_SERVER,
          './workers': 'Components reach the workers through the flows (lib/flows), not directly.',
          './lib/tokens/exact.ts': 'The tokenizer tables load in the token worker only.',
          './lib/sessionTokens': 'The token service runs in the token worker only.',
        }),
        // Server pages (app/signin) may read the access policy; components run in the browser too.
        forbid('./components', SERVER_SIDE),
        { target: ['./components', './app'], from: './lib/db', except: ['./index.ts'], message: 'Components use lib/db’s public surface (lib/db/index.ts), not its internals.' },
      ),
    },
  },
  {
    // The server: thin handlers over lib/, never the browser side.
    files: ['app/api/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictPackages(
        packages(REACT, 'Route handlers render nothing.'),
        packages(DEXIE, 'The server has no IndexedDB.'),
        packages(SERVER_DB, 'Route handlers reach the sync database through lib/syncServer.'),
      ),
      'import/no-restricted-paths': restrictPaths(
        forbid('./app/api', {
          './components': 'Route handlers depend on lib/ only.',
          './lib/db': 'Route handlers depend on lib/ only (lib/db is the browser’s storage).',
          './lib/browser': 'Route handlers depend on lib/ only (lib/browser is the browser side).',
          './lib/flows': 'Route handlers depend on lib/ only (lib/flows are the browser’s flows).',
          './workers': 'Route handlers depend on lib/ only.',
        }),
      ),
    },
  },
];
