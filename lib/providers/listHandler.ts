import { readJsonBody } from './body';
import { readServerConfig } from './env';
import { jsonError } from './errors';
import { listBrowserProvider, type ListTimeouts } from './listing';
import { describeZodError, listProviderRequestSchema } from './requests';
import type { ServerDeps } from './streamHandlers';

/** A provider's settings are a few short strings; anything larger is not one. */
export const LIST_BODY_LIMIT = 16 * 1024;

/**
 * POST /api/models: the logic, with the environment and fetch injected. The
 * answer is 200 with the provider's state whatever the provider said (a
 * rejected key, no answer, a base URL this server may not call are states the
 * Providers panel shows); only a malformed request is an HTTP error. Nothing
 * is cached: the user asks when they add a provider or press "Check again".
 */
export async function handleListProvider(request: Request, deps: ServerDeps, timeouts?: ListTimeouts): Promise<Response> {
  const body = await readJsonBody(request, LIST_BODY_LIMIT);
  if (!body.ok) return jsonError(body.status, { kind: 'invalid_request', status: body.status, message: body.message });
  const parsed = listProviderRequestSchema.safeParse(body.value);
  if (!parsed.success) return jsonError(400, { kind: 'invalid_request', status: 400, message: describeZodError(parsed.error) });
  const result = await listBrowserProvider(parsed.data, readServerConfig(deps.env), deps.fetch, timeouts);
  if (result.provider.state !== 'connected') deps.log?.(`[api/models] ${result.provider.id}@${parsed.data.instance}: ${result.provider.state}`);
  return Response.json(result, { headers: { 'cache-control': 'no-store' } });
}
