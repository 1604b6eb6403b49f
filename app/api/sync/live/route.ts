import { guardRequest } from '@/lib/http/requestGuard';
import { syncHandlers } from '@/lib/syncServer/instance';
import { serverDeps } from '../../_lib/serverDeps';

// A live stream stays open as long as the device is online.
export const maxDuration = 3600;

/** GET /api/sync/live: server-sent events: the space's head, whenever it moves (docs/sync.md). */
export async function GET(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return guardRequest(request, 'get', env) ?? syncHandlers(env).live(request);
}
