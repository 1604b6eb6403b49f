import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** The access check and the server process (lib/access, lib/server) stay on the server. */
describe('lint boundary: server-side code', () => {
  it('lets the routes, server pages, the sync server and each other use them', async () => {
    expect(await firedRules('app/api/probe/route.ts', "import { gateRequest } from '@/lib/access/gate';\nimport { serverRuntime } from '@/lib/server/runtime';\nexport const probe = [gateRequest, serverRuntime];\n")).toEqual([]);
    expect(await firedRules('app/probe/page.tsx', "import { currentAccessPolicy } from '@/lib/access/current';\nexport const probe = currentAccessPolicy;\n")).toEqual([]);
    expect(await firedRules('lib/syncServer/probe.ts', "import { onServerShutdown } from '@/lib/server/runtime';\nexport const probe = onServerShutdown;\n")).toEqual([]);
  });

  it.each(['lib/sync/probe.ts', 'lib/flows/probe.ts', 'lib/db/probe.ts', 'lib/browser/probe.ts', 'workers/probe.ts', 'components/access/probe.tsx'])('refuses lib/access and lib/server in %s', async (path) => {
    expect(rulesOf(await firedRules(path, "import { gateRequest } from '@/lib/access/gate';\nexport const probe = gateRequest;\n"))).toEqual(['import/no-restricted-paths']);
    expect(rulesOf(await firedRules(path, "import { serverRuntime } from '@/lib/server/runtime';\nexport const probe = serverRuntime;\n"))).toEqual(['import/no-restricted-paths']);
  });
});
