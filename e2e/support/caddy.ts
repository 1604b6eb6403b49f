import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../lib/testing/freePort';

/**
 * Caddy from the machine's installation (Debian's `caddy` package), as
 * docs/deploy.md runs it in front of the app servers: TLS from its internal
 * CA (`tls internal`, what a server without a public name uses), everything
 * it writes (CA, certificates, autosave) in a temporary directory, no admin
 * endpoint, no redirect listener on port 80. Started as the current user.
 */

export function caddyBinary(): string | null {
  if (process.env.CADDY_BIN) return existsSync(process.env.CADDY_BIN) ? process.env.CADDY_BIN : null;
  try {
    return execFileSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export interface Site {
  /** The https port this site listens on (on 127.0.0.1). */
  port: number;
  /** The app servers' loopback addresses ("127.0.0.1:3001"); more than one is load-balanced. */
  upstreams: string[];
}

export interface Caddy {
  /** The internal CA's root, PEM: what a client must trust to verify these sites. */
  rootPem: string;
  /**
   * Base64 SHA-256 of the SubjectPublicKeyInfo of the certificates the sites
   * present above the leaf (the internal CA's intermediate, and its root): what
   * Chromium's --ignore-certificate-errors-spki-list takes to accept them as
   * valid, so the origin counts as a secure context (a mere "ignore HTTPS
   * errors" does not, and service workers refuse such origins).
   */
  spkiHashes: string[];
  log(): string;
  stop(): Promise<void>;
}

function caddyfile(host: string, dir: string, httpPort: number, sites: Site[]): string {
  const blocks = sites.map(
    (s) => `${host}:${s.port} {
\tbind 127.0.0.1
\ttls internal
\treverse_proxy ${s.upstreams.join(' ')} {
\t\tlb_policy round_robin
\t\thealth_uri /api/health
\t\thealth_interval 2s
\t}
}`,
  );
  return `{
\tadmin off
\tskip_install_trust
\tauto_https disable_redirects
\thttp_port ${httpPort}
\tstorage file_system ${dir}/data
}

${blocks.join('\n\n')}
`;
}

const spkiHash = (pem: string) => createHash('sha256').update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');

/** Resolves once every site answers over TLS with a certificate from the internal CA. */
export async function startCaddy(host: string, sites: Site[]): Promise<Caddy> {
  const bin = caddyBinary();
  if (!bin) throw new Error('Caddy is not installed (apt-get install caddy, or set CADDY_BIN).');
  const dir = mkdtempSync(join(tmpdir(), 'longctx-caddy-'));
  const config = join(dir, 'Caddyfile');
  writeFileSync(config, caddyfile(host, dir, await freePort(), sites));
  // HOME and the XDG directories too: Caddy puts its config and data under them by default, never /root here.
  const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'production' as const, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  const child: ChildProcess = spawn(bin, ['run', '--config', config, '--adapter', 'caddyfile'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    // Caddy waits for open connections (a sync live stream never ends by itself) up to its grace_period; then it must go.
    const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(late);
    rmSync(dir, { recursive: true, force: true });
  };

  const authority = join(dir, 'data', 'pki', 'authorities', 'local');
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Caddy exited (${child.exitCode}):\n${output.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`Caddy did not serve within 30 s:\n${output.slice(-2000)}`);
      if (existsSync(join(authority, 'root.crt')) && existsSync(join(authority, 'intermediate.crt'))) {
        const rootPem = readFileSync(join(authority, 'root.crt'), 'utf8');
        const answered = await Promise.all(sites.map((s) => httpsRequest(`https://${host}:${s.port}/api/health`, { ca: rootPem }).then((r) => r.status > 0, () => false)));
        if (answered.every(Boolean)) {
          const intermediatePem = readFileSync(join(authority, 'intermediate.crt'), 'utf8');
          return { rootPem, spkiHashes: [spkiHash(intermediatePem), spkiHash(rootPem)], log: () => output, stop };
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request to one of Caddy's sites from Node, verified against the given CA
 * (a failed verification rejects), with the name in the URL sent as SNI and
 * Host while the connection goes to 127.0.0.1: the name need not resolve.
 */
export function httpsRequest(url: string, opts: { ca: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<HttpsAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(u.port || 443),
        servername: u.hostname,
        path: u.pathname + u.search,
        method: opts.method ?? 'GET',
        headers: { host: u.host, ...opts.headers },
        ca: opts.ca,
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(opts.body);
  });
}
