import type { ServerRuntime } from './runtime';

/**
 * GET /api/health: is this server alive, and can it reach its database? For
 * load balancers and uptime checks, so it answers without the access secret,
 * costs one `SELECT 1`, and says nothing an outsider could use: no versions,
 * no addresses, no connection strings, no error texts (a Postgres error can
 * name the user and host it tried).
 *
 * 200 when ready; 503 when shutting down (so a load balancer stops sending new
 * requests here while the ones in flight finish) or when the sync database
 * does not answer within PROBE_TIMEOUT_MS.
 */

export const PROBE_TIMEOUT_MS = 2_000;

export interface HealthDeps {
  runtime: ServerRuntime | undefined;
  now: number;
  /** Opens the sync database if needed and runs one query; returns what kind it is. */
  probeSyncDatabase(): Promise<'pglite' | 'postgres'>;
}

export interface HealthBody {
  status: 'ok' | 'draining' | 'unavailable';
  uptimeS?: number;
  syncDatabase: { status: 'ok' | 'unavailable'; kind?: 'pglite' | 'postgres'; latencyMs?: number };
}

async function probe(deps: HealthDeps): Promise<HealthBody['syncDatabase']> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const kind = await Promise.race([
      deps.probeSyncDatabase(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok', kind, latencyMs: Math.round(performance.now() - started) };
  } catch {
    return { status: 'unavailable' };
  } finally {
    clearTimeout(timer);
  }
}

export async function healthResponse(deps: HealthDeps): Promise<Response> {
  const uptime = deps.runtime ? { uptimeS: Math.max(0, Math.round((deps.now - deps.runtime.startedAt) / 1000)) } : {};
  const headers = { 'cache-control': 'no-store' };
  if (deps.runtime?.draining) {
    const body: HealthBody = { status: 'draining', ...uptime, syncDatabase: { status: 'unavailable' } };
    return Response.json(body, { status: 503, headers });
  }
  const syncDatabase = await probe(deps);
  const body: HealthBody = { status: syncDatabase.status === 'ok' ? 'ok' : 'unavailable', ...uptime, syncDatabase };
  return Response.json(body, { status: syncDatabase.status === 'ok' ? 200 : 503, headers });
}
