import { guardRequest } from '@/lib/http/requestGuard';
import { syncHandlers } from '@/lib/syncServer/instance';
import { serverDeps } from '../../_lib/serverDeps';

/** POST /api/sync/join: add this device to the space whose code it knows (docs/sync.md). */
export async function POST(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return guardRequest(request, 'json-post', env) ?? syncHandlers(env).join(request);
}
