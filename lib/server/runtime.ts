/**
 * What the launcher (lib/server/launch.ts, started by `npm start`) tells the
 * app running inside it, and what the app hands back for shutdown. The two
 * sides are separate module graphs (the launcher is loaded by tsx, the app by
 * Next's bundles; the proxy and each route are bundles of their own), so the
 * state lives on globalThis under registered symbols, like the sync server's
 * database handle.
 */

/** The request header the launcher writes the client's address into, after removing any a client sent. */
export const CLIENT_ADDRESS_HEADER = 'x-longctx-client';

export interface ServerRuntime {
  /** The address the server listens on, as given (127.0.0.1, 0.0.0.0, ::, a LAN address). */
  listenHost: string;
  /** Set when shutdown began: the health check answers 503 so load balancers stop sending requests. */
  draining: boolean;
  startedAt: number;
}

export type ShutdownCloser = () => Promise<void>;

const RUNTIME = Symbol.for('longctx.serverRuntime');
const CLOSERS = Symbol.for('longctx.shutdownClosers');

type Holder = { [RUNTIME]?: ServerRuntime; [CLOSERS]?: Map<string, ShutdownCloser> };
const holder = () => globalThis as Holder;

export function setServerRuntime(runtime: ServerRuntime | undefined): void {
  holder()[RUNTIME] = runtime;
}

/** The launcher's state, or undefined when the app runs without it (`next start`, `next dev`, tests). */
export function serverRuntime(): ServerRuntime | undefined {
  return holder()[RUNTIME];
}

/**
 * Something to release when the server stops (the sync database). Registered
 * under a name, so a module evaluated twice (Next's bundles each carry a copy)
 * registers once.
 */
export function onServerShutdown(name: string, closer: ShutdownCloser): void {
  (holder()[CLOSERS] ??= new Map()).set(name, closer);
}

export function forgetShutdownCloser(name: string): void {
  holder()[CLOSERS]?.delete(name);
}

/** Runs every closer (each at most `timeoutMs`), and says which failed or hung. */
export async function runShutdownClosers(timeoutMs: number): Promise<{ name: string; ok: boolean; error?: string }[]> {
  const closers = [...(holder()[CLOSERS] ?? new Map<string, ShutdownCloser>()).entries()];
  holder()[CLOSERS]?.clear();
  return Promise.all(
    closers.map(async ([name, close]) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          close(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`did not finish within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { name, ok: true };
      } catch (err) {
        return { name, ok: false, error: err instanceof Error ? err.message : String(err) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
