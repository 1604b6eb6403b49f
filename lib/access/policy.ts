/**
 * Who must sign in, decided from the environment and where the server listens.
 *
 * On loopback (127.0.0.1, ::1, localhost) only this machine reaches the app,
 * and the app needs no sign-in, as it always did. Anywhere else (HOST=0.0.0.0,
 * ::, a LAN address), or with ALLOWED_HOSTS set (the app is served under a
 * name, so behind a reverse proxy that may forward the world to a loopback
 * port), the server is *exposed*: anyone who reaches it could spend the
 * operator's provider keys, use the Ollama on this machine and fill the sync
 * database. Then every route but the health check and the sign-in itself
 * requires the operator's access secret.
 *
 * An operator who sets the secret gets sign-in wherever the server listens: a
 * reverse proxy on the same machine reaching 127.0.0.1 makes a loopback server
 * public without anything here being able to tell.
 *
 * Exposed without a secret, the server refuses to start, unless the operator
 * says in so many words that it should run open
 * (LONGCTX_INSECURE_NO_ACCESS_SECRET=1): a trusted network, or an auth proxy in
 * front that does the job.
 *
 * Pure: the caller passes the environment and the listen address, so the
 * launcher (scripts/start.mjs), the proxy and the tests all decide alike.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export const ACCESS_SECRET_ENV = 'LONGCTX_ACCESS_SECRET';
export const OPEN_ACCESS_ENV = 'LONGCTX_INSECURE_NO_ACCESS_SECRET';
/** Long enough that guessing at the rate the sign-in allows takes longer than anyone waits. */
export const MIN_SECRET_LENGTH = 12;

export interface AccessPolicy {
  /** Reachable by others than this machine, as far as the configuration says. */
  exposed: boolean;
  /** Why it counts as exposed, for messages ("listening on 0.0.0.0", "ALLOWED_HOSTS is set"). */
  exposedBecause: string[];
  /** Whether requests must carry the secret (a cookie from the sign-in, or Authorization: Bearer). */
  required: boolean;
  /** The operator's secret, when set (trimmed; blank counts as unset). */
  secret: string | null;
  /** The explicit opt-out: exposed, and no secret on purpose. */
  openAccess: boolean;
  /** A configuration the server must not run with (a secret too short to be one); null when fine. */
  problem: string | null;
}

/** A listen address that only this machine can reach. An empty one means every interface. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (/^127(?:\.\d{1,3}){3}$/.test(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // IPv4-mapped loopback.
  return /^::ffff:127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * The hostname `next start` was given on its command line (-H, --hostname), or
 * every interface when it was given none (Next's default). Null when this
 * process is not `next start` at all (the launcher, a dev server, a test).
 */
export function listenHostFromArgv(argv: readonly string[]): string | null {
  const script = argv[1] ?? '';
  if (!/(?:^|[/\\])next(?:\.js)?$/.test(script) || !argv.includes('start')) return null;
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-H' || a === '--hostname') return argv[i + 1] ?? '0.0.0.0';
    const m = /^--hostname=(.*)$/.exec(a);
    if (m) return m[1]!;
  }
  return '0.0.0.0';
}

/**
 * Where this server listens: what the launcher recorded (it opened the socket),
 * else what `next start` was told on its command line, else HOST. Null when
 * nothing says (a development server, a unit test): treated as loopback, which
 * is where `npm run dev` listens.
 */
export function resolveListenHost(sources: { launcher?: string | null; argv?: readonly string[]; env: Env }): string | null {
  if (sources.launcher != null) return sources.launcher;
  const fromArgv = sources.argv ? listenHostFromArgv(sources.argv) : null;
  if (fromArgv !== null) return fromArgv;
  const host = sources.env.HOST?.trim();
  return host ? host : null;
}

const truthy = (v: string | undefined) => /^(1|true|yes)$/i.test(v?.trim() ?? '');

export function readAccessPolicy(env: Env, listenHost: string | null): AccessPolicy {
  const exposedBecause: string[] = [];
  if (listenHost !== null && !isLoopbackHost(listenHost)) exposedBecause.push(`it listens on ${listenHost || 'every interface'}`);
  if (env.ALLOWED_HOSTS?.trim()) exposedBecause.push('ALLOWED_HOSTS is set (it is served under a name)');
  const exposed = exposedBecause.length > 0;
  const secret = env[ACCESS_SECRET_ENV]?.trim() || null;
  const openAccess = !secret && truthy(env[OPEN_ACCESS_ENV]);
  const problem =
    secret && secret.length < MIN_SECRET_LENGTH
      ? `${ACCESS_SECRET_ENV} is ${secret.length} characters long; use at least ${MIN_SECRET_LENGTH} (a few random words make a good one).`
      : null;
  return { exposed, exposedBecause, required: !!secret || (exposed && !openAccess), secret, openAccess, problem };
}

/** Why the server must not start with this policy, or null. */
export function startupRefusal(policy: AccessPolicy): string | null {
  if (policy.problem) return policy.problem;
  if (policy.required && !policy.secret) {
    return [
      `This server is reachable from other machines (${policy.exposedBecause.join('; ')}), and ${ACCESS_SECRET_ENV} is not set.`,
      'Anyone who reaches it could use its provider keys, the model servers on this machine and its sync storage.',
      `Set ${ACCESS_SECRET_ENV} to a passphrase of at least ${MIN_SECRET_LENGTH} characters (people sign in with it once per browser),`,
      `or listen on loopback only (HOST=127.0.0.1), or, if something in front already controls who gets in, set ${OPEN_ACCESS_ENV}=1.`,
    ].join('\n');
  }
  return null;
}

/**
 * Defaults that change when the server is exposed: base URLs typed in a
 * browser may not point the server anywhere (ALLOW_CLIENT_BASE_URLS=none)
 * unless the operator says otherwise. On loopback the default stays
 * `loopback`: a user's own Ollama or LM Studio on their own machine.
 */
export function withExposedDefaults<E extends Env>(env: E, exposed: boolean): E {
  if (!exposed || env.ALLOW_CLIENT_BASE_URLS?.trim()) return env;
  return { ...env, ALLOW_CLIENT_BASE_URLS: 'none' };
}
