import { currentAccessPolicy } from '@/lib/access/current';
import { withExposedDefaults } from '@/lib/access/policy';
import type { ServerDeps } from '@/lib/providers/streamHandlers';

/**
 * What the route handlers run with: the process environment and the global
 * fetch in production; whatever a test installs otherwise. Tests must be able
 * to replace the environment wholesale, or a developer's real OPENAI_API_KEY
 * would leak into test requests. On an exposed server the environment's
 * defaults are the exposed ones (lib/access/policy.ts: no base URLs from the
 * browser unless ALLOW_CLIENT_BASE_URLS says otherwise).
 */
let override: Partial<ServerDeps> | undefined;

export function serverDeps(): ServerDeps {
  const env = override?.env ?? process.env;
  return {
    env: withExposedDefaults(env, currentAccessPolicy(env, process.argv).exposed),
    fetch: override?.fetch ?? ((input, init) => fetch(input, init)),
    log: override?.log ?? ((line) => console.warn(line)),
  };
}

/** Test hook: install an environment (and optionally fetch/log); call with no argument to restore. */
export function setServerDepsForTesting(deps?: Partial<ServerDeps>): void {
  override = deps;
}
