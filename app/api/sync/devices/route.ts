import { guardRequest } from '@/lib/http/requestGuard';
import { syncHandlers } from '@/lib/syncServer/instance';
import { serverDeps } from '../../_lib/serverDeps';

/** GET /api/sync/devices: the devices of this device's space (docs/sync.md). */
export async function GET(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return guardRequest(request, 'get', env) ?? syncHandlers(env).devices(request);
}
