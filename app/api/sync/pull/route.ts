import { guardRequest } from '@/lib/http/requestGuard';
import { syncHandlers } from '@/lib/syncServer/instance';
import { serverDeps } from '../../_lib/serverDeps';

/** GET /api/sync/pull: records after a checkpoint, paged (docs/sync.md). */
export async function GET(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return guardRequest(request, 'get', env) ?? syncHandlers(env).pull(request);
}
