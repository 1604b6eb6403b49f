import 'server-only';
import { serverRuntime } from '@/lib/server/runtime';
import { readAccessPolicy, resolveListenHost, type AccessPolicy, type Env } from './policy';

/**
 * The access policy in force for this process: where the launcher says it
 * listens (or what `next start` was told, or HOST), and the environment. The
 * callers pass process.env and process.argv; read per request, it is cheap.
 */
export function currentAccessPolicy(env: Env, argv: readonly string[]): AccessPolicy {
  return readAccessPolicy(env, resolveListenHost({ launcher: serverRuntime()?.listenHost, argv, env }));
}
