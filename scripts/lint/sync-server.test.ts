import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** The sync server (lib/syncServer) owns the sync database; the browser side never imports it. */
describe('lint boundary: the sync server', () => {
  it('lets lib/syncServer use its database clients, and the routes use lib/syncServer', async () => {
    expect(await firedRules('lib/syncServer/probe.ts', "import pg from 'pg';\nimport { PGlite } from '@electric-sql/pglite';\nexport const probe = [pg, PGlite];\n")).toEqual([]);
    expect(await firedRules('app/api/sync/probe/route.ts', "import { syncHandlers } from '@/lib/syncServer/instance';\nexport const probe = syncHandlers;\n")).toEqual([]);
  });

  it.each([
    ['lib/sync/probe.ts', "import pg from 'pg';"],
    ['lib/flows/probe.ts', "import { PGlite } from '@electric-sql/pglite';"],
    ['lib/db/probe.ts', "import pg from 'pg';"],
    ['lib/browser/probe.ts', "import pg from 'pg';"],
    ['workers/probe.ts', "import { PGlite } from '@electric-sql/pglite';"],
    ['components/sync/probe.tsx', "import pg from 'pg';"],
    ['app/api/sync/probe/route.ts', "import pg from 'pg';"],
  ])('refuses the database clients in %s', async (path, code) => {
    expect(rulesOf(await firedRules(path, `${code}\nexport const probe = 1;\n`))).toEqual(['no-restricted-imports']);
  });

  it.each(['lib/sync/probe.ts', 'lib/flows/probe.ts', 'lib/db/probe.ts', 'lib/browser/probe.ts', 'workers/probe.ts', 'components/sync/probe.tsx', 'app/page-probe.tsx'])(
    'refuses lib/syncServer in %s',
    async (path) => {
      expect(rulesOf(await firedRules(path, "import { createSyncStore } from '@/lib/syncServer/store';\nexport const probe = createSyncStore;\n"))).toEqual(['import/no-restricted-paths']);
    },
  );
});
