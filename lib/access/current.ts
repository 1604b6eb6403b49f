import 'server-only';
import { serverRuntime } from '@/lib/server/runtime';
import { ACCESS_SECRET_ENV, OPEN_ACCESS_ENV, readAccessPolicy, resolveListenHost, type AccessPolicy, type Env } from './policy';

/**
 * The access policy in force for this process: where the launcher says it
 * listens (or what `next start` was told, or HOST), and the environment. The
 * callers pass process.env and process.argv; read per request, it is cheap.
 */
export function currentAccessPolicy(env: Env, argv: readonly string[]): AccessPolicy {
  return readAccessPolicy(env, resolveListenHost({ launcher: serverRuntime()?.listenHost, argv, env }));
}

/**
 * Why this Next server must not run: it is exposed, but it was not started
 * by `npm start`, whose server checks access in front of Next (`next start
 * -H 0.0.0.0`, or with no -H at all, which listens everywhere). Null when it
 * may. Called at start by instrumentation.ts.
 */
export function unguardedExposure(env: Env, argv: readonly string[]): string | null {
  if (serverRuntime()) return null;
  const policy = currentAccessPolicy(env, argv);
  if (!policy.exposed || policy.openAccess) return null;
  return [
    `This server is reachable from other machines (${policy.exposedBecause.join('; ')}), but it was not started with npm start,`,
    `which is what asks for ${ACCESS_SECRET_ENV} on every request. Start it with \`npm start\` (HOST and PORT choose where it listens),`,
    `or listen on loopback only (next start -H 127.0.0.1), or set ${OPEN_ACCESS_ENV}=1 if something in front already controls who gets in.`,
  ].join('\n');
}
