import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The server's log: JSON lines on stdout, one per request (method, route,
 * status, duration, client) plus start and stop. pino because it is the
 * standard structured logger for Node, fast enough to log every request
 * without showing up in a profile, and its lines are what log shippers
 * expect; its HTTP middleware (pino-http) is not used, because by default it
 * logs request headers, and the cookie and Authorization headers must never
 * reach a log. A request line is built from named fields only: never headers,
 * query strings, bodies, keys or sync payloads.
 *
 * LOG_LEVEL picks what is written: trace, debug, info (default), warn, error,
 * fatal or silent. Requests log at info, failures (5xx) at error.
 */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Env = Readonly<Record<string, string | undefined>>;

export function readLogLevel(env: Env): { level: LogLevel; warning?: string } {
  const raw = env.LOG_LEVEL?.trim().toLowerCase();
  if (!raw) return { level: 'info' };
  if ((LOG_LEVELS as readonly string[]).includes(raw)) return { level: raw as LogLevel };
  return { level: 'info', warning: `LOG_LEVEL: "${env.LOG_LEVEL}" is not one of ${LOG_LEVELS.join(', ')}; logging at info.` };
}

export function createServerLogger(env: Env, destination?: DestinationStream): Logger {
  const { level, warning } = readLogLevel(env);
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names, not numbers: people read these lines too.
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
  if (warning) logger.warn(warning);
  return logger;
}

export interface RequestRecord {
  method: string;
  /** The path only (see routeOf). */
  route: string;
  status: number;
  durationMs: number;
  client: string;
  /** The client went away before the response was complete. */
  aborted?: boolean;
}

const MAX_ROUTE = 200;

/**
 * What a request line says about the URL: its path, no query string (a sync
 * pull's session key, a sign-in's next page), cut to 200 characters so a
 * client cannot write megabytes into the log with one request.
 */
export function routeOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.search(/[?#]/);
  const path = q >= 0 ? raw.slice(0, q) : raw;
  return path.length > MAX_ROUTE ? `${path.slice(0, MAX_ROUTE)}…` : path || '/';
}

export function logRequest(logger: Logger, record: RequestRecord): void {
  const line = { method: record.method, route: record.route, status: record.status, durationMs: record.durationMs, client: record.client, ...(record.aborted ? { aborted: true } : {}) };
  if (record.status >= 500) logger.error(line, 'request');
  else logger.info(line, 'request');
}
