import closeWithGrace from 'close-with-grace';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { OPEN_ACCESS_ENV, readAccessPolicy, startupRefusal, withExposedDefaults, type Env } from '@/lib/access/policy';
import { parseBaseUrlPolicy, describePolicy } from '@/lib/providers/urlPolicy';
import { accessGate } from './accessGate';
import { createAppServer } from './httpServer';
import { createServerLogger } from './requestLog';
import { runShutdownClosers, setServerRuntime } from './runtime';

/**
 * `npm start` after the build: decide whether this server may start, then
 * serve Next.js from our own HTTP server (httpServer.ts) and stop cleanly.
 *
 * Stopping (SIGTERM, SIGINT, SIGHUP; a second signal exits at once):
 * the health check turns 503, no new connections are taken, live streams are
 * closed (their clients reconnect, to another server behind a load balancer),
 * requests in flight get LONGCTX_SHUTDOWN_GRACE_MS (10 s) to finish and are
 * cut after that, then Next and the sync database are closed (the embedded
 * database's lock is released) and the process exits. close-with-grace owns
 * the signals and a last deadline: if all that hangs, it exits anyway.
 */

/** What the launcher needs from Next: `next({ … })` returns it (injected so lib/ does not import Next). */
export interface NextAppLike {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  env: Env;
  dir: string;
  createNext(opts: { dev: false; dir: string; hostname: string; port: number; httpServer: Server }): NextAppLike;
  /** Where the human-readable refusal goes (stderr). */
  report?: (text: string) => void;
}

export const LIVE_STREAM_PATHS = ['/api/sync/live'];
const DEFAULT_GRACE_MS = 10_000;

function graceMs(env: Env): number {
  const n = Number(env.LONGCTX_SHUTDOWN_GRACE_MS);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_GRACE_MS;
}

function banner(lines: string[]): string {
  return `\n  ${lines.join('\n  ')}\n`;
}

/** Resolves once the server listens; returns the exit code when it must not start (nothing was started then). */
export async function launch(opts: LaunchOptions): Promise<number | null> {
  const { env } = opts;
  const report = opts.report ?? ((t: string) => process.stderr.write(`${t}\n`));
  const logger = createServerLogger(env);
  const host = env.HOST?.trim() || '127.0.0.1';
  const port = Number(env.PORT?.trim() || '3000');

  const access = readAccessPolicy(env, host);
  const refusal = startupRefusal(access);
  if (refusal) {
    logger.fatal({ exposed: access.exposed }, 'refusing to start: no usable access secret');
    report(banner(['Longctx did not start.', '', ...refusal.split('\n')]));
    return 1;
  }
  if (access.exposed && access.openAccess) {
    logger.warn({ exposed: true }, `${OPEN_ACCESS_ENV} is set: this server is reachable from other machines and asks nobody to sign in`);
    report(banner([`WARNING: ${OPEN_ACCESS_ENV} is set. This server is reachable from other machines`, 'and anyone who reaches it can use its provider keys and its sync storage.']));
  }

  const runtime = { listenHost: host, draining: false, startedAt: Date.now() };
  setServerRuntime(runtime);
  const app = createAppServer({
    logger,
    trustProxy: /^(1|true|yes)$/i.test(env.LONGCTX_TRUST_PROXY?.trim() ?? ''),
    endlessPaths: LIVE_STREAM_PATHS,
    gate: access.required ? accessGate(access) : undefined,
  });
  const next = opts.createNext({ dev: false, dir: opts.dir, hostname: host, port, httpServer: app.server });

  const listening = new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(port, host, () => {
      app.server.off('error', reject);
      resolve();
    });
  });
  try {
    // Listen first (requests get 503 "starting" for the second Next takes to prepare), so a port in use fails fast.
    await listening;
  } catch (err) {
    logger.fatal({ err: err instanceof Error ? err.message : String(err), port, host }, 'could not listen');
    report(`Longctx could not listen on ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }

  const grace = graceMs(env);
  closeWithGrace(
    {
      delay: grace + 10_000,
      logger: { error: (m: unknown) => logger.error(typeof m === 'string' ? m : { err: String(m) }, 'shutdown') },
      // Next logs a failed promise and goes on serving; a stray one should not take the server down.
      skip: ['unhandledRejection', 'beforeExit'],
    },
    async ({ signal, err }) => {
      if (err) logger.error({ err: err.message }, 'uncaught exception; shutting down');
      logger.info({ signal, inFlight: app.inFlight(), graceMs: grace }, 'shutting down');
      runtime.draining = true;
      const { finished, cut } = await app.drain(grace);
      await next.close().catch((e: unknown) => logger.error({ err: String(e) }, 'closing Next failed'));
      const closed = await runShutdownClosers(5_000);
      for (const c of closed) if (!c.ok) logger.error({ closer: c.name, err: c.error }, 'release failed');
      logger.info({ finished, cut, released: closed.filter((c) => c.ok).map((c) => c.name) }, 'stopped');
    },
  );

  await next.prepare();
  app.setHandler(next.getRequestHandler());
  const clientUrls = parseBaseUrlPolicy(withExposedDefaults(env, access.exposed).ALLOW_CLIENT_BASE_URLS);
  logger.info(
    {
      host,
      port,
      exposed: access.exposed,
      signIn: access.required ? 'required' : 'off',
      clientBaseUrls: describePolicy(clientUrls),
    },
    'listening',
  );
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  report(banner([`Longctx is ready at http://${shown}:${port}${access.required ? '  (sign in with the access passphrase)' : ''}`]));
  return null;
}
