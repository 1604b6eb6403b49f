import { guardRequest } from '@/lib/http/requestGuard';
import { readServerConfig } from '@/lib/providers/env';
import { handleListProvider } from '@/lib/providers/listHandler';
import { createModelsCache, listModels } from '@/lib/providers/listing';
import { serverDeps } from '../_lib/serverDeps';

const cache = createModelsCache();

/** GET /api/models[?refresh=1]: configured providers and the models they offer (see docs/providers.md). */
export async function GET(request: Request): Promise<Response> {
  const deps = serverDeps();
  const refused = guardRequest(request, 'get', deps.env);
  if (refused) return refused;
  const config = readServerConfig(deps.env);
  const refresh = new URL(request.url).searchParams.has('refresh');
  const body = await cache.get(config, () => listModels(config, deps.fetch), refresh);
  return Response.json(body, { headers: { 'cache-control': 'no-store' } });
}

/** POST /api/models: one provider entered in the browser, its state and models, asked through this server. */
export async function POST(request: Request): Promise<Response> {
  const deps = serverDeps();
  return guardRequest(request, 'json-post', deps.env) ?? handleListProvider(request, deps);
}
