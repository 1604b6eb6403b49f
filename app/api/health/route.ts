import { healthResponse } from '@/lib/server/health';
import { serverRuntime } from '@/lib/server/runtime';
import { processSyncServer } from '@/lib/syncServer/instance';
import { serverDeps } from '../_lib/serverDeps';

/**
 * GET /api/health: liveness and database readiness, JSON, no secrets; open
 * without the access secret and without the Host check, since load balancers
 * call it by whatever address they know the server under (lib/server/health.ts).
 */
export async function GET(): Promise<Response> {
  return healthResponse({
    runtime: serverRuntime(),
    now: Date.now(),
    probeSyncDatabase: async () => {
      const server = await processSyncServer(serverDeps().env);
      await server.ping();
      return server.kind;
    },
  });
}
