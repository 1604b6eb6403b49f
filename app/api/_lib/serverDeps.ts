import type { ServerDeps } from '@/lib/providers/streamHandlers';

/**
 * What the route handlers run with: the process environment and the global
 * fetch in production; whatever a test installs otherwise. Tests must be able
 * to replace the environment wholesale, or a developer's real OPENAI_API_KEY
 * would leak into test requests.
 */
let override: Partial<ServerDeps> | undefined;

export function serverDeps(): ServerDeps {
  return {
    env: override?.env ?? process.env,
    fetch: override?.fetch ?? ((input, init) => fetch(input, init)),
    log: override?.log ?? ((line) => console.warn(line)),
  };
}

/** Test hook: install an environment (and optionally fetch/log); call with no argument to restore. */
export function setServerDepsForTesting(deps?: Partial<ServerDeps>): void {
  override = deps;
}
