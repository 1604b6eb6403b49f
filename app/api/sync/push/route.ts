import { guardRequest } from '@/lib/http/requestGuard';
import { syncHandlers } from '@/lib/syncServer/instance';
import { serverDeps } from '../../_lib/serverDeps';

/** POST /api/sync/push: store a batch of encrypted records (docs/sync.md). */
export async function POST(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return guardRequest(request, 'json-post', env) ?? syncHandlers(env).push(request);
}
