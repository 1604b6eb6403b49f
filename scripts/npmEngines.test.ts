import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What package.json's `engines` and .npmrc promise, checked with the npm and
 * the Node a fresh machine has (Debian's Node 20, npm 11), as `npm install &&
 * npm start` meets them:
 *
 * - on Node 20, npm installs (engine-strict off, even when the user's own
 *   npmrc turns it on), and says that its Node is older than the packages
 *   want (the warning is not hidden);
 * - the Node the scripts run on is the pinned one;
 * - on that pinned Node, npm finds nothing to warn about: `engines` asks for
 *   no more than the packages need, and the pinned Node meets it.
 *
 * Skipped where there is no system Node older than 22 to try it with.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };

function systemNode(): { node: string; npmCli: string; major: number } | null {
  for (const node of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(node)) continue;
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const npm = ['/usr/bin/npm', '/usr/local/bin/npm'].find(existsSync);
    if (!npm) return null;
    return { node, npmCli: realpathSync(npm), major: Number(/^v(\d+)/.exec(version)![1]) };
  }
  return null;
}

const sys = systemNode();
const PATH = '/usr/bin:/bin';

/** npm as a fresh machine runs it: its own Node, a PATH without this project's tools (and no NODE_ENV, which would drop the dev packages). */
function npm(node: string, args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(node, [sys!.npmCli, ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH, HOME: process.env.HOME ?? '/root', ...extraEnv } as Partial<NodeJS.ProcessEnv> as NodeJS.ProcessEnv, timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

const installDryRun = ['install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'];

describe.skipIf(!sys || sys.major >= 22)('npm on an older system Node (the README’s first command)', () => {
  it('installs, and shows that this Node is older than the packages need', () => {
    const r = npm(sys!.node, installDryRun);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/EBADENGINE[\s\S]*package: 'longctx@/);
    expect(r.out).toContain(`required: { node: '${pkg.engines.node}' }`);
  });

  it('installs even when the user’s own npmrc sets engine-strict', () => {
    const dir = mkdtempSync(join(tmpdir(), 'npmrc-'));
    const userconfig = join(dir, '.npmrc');
    writeFileSync(userconfig, 'engine-strict=true\n');
    const r = npm(sys!.node, [...installDryRun, '--userconfig', userconfig]);
    expect(r.status).toBe(0);
    expect(r.out).not.toContain('notsup');
  });

  it('runs the scripts on the pinned Node', () => {
    const r = npm(sys!.node, ['exec', '--no', '--', 'node', '--version']);
    expect(r.status).toBe(0);
    expect(r.out.trim().split('\n')[0]).toBe(`v${pkg.devDependencies.node}`);
  });

  it('on the pinned Node finds no engine any package would refuse', () => {
    const pinned = join(ROOT, 'node_modules', '.bin', 'node');
    const r = npm(pinned, installDryRun);
    expect(r.status).toBe(0);
    expect(r.out).not.toContain('EBADENGINE');
  });
});

describe('.npmrc', () => {
  it('hides no warnings and keeps engine-strict off', () => {
    const settings = readFileSync(join(ROOT, '.npmrc'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(settings.some((l) => /^loglevel\s*=\s*(error|silent)\b/.test(l))).toBe(false);
    expect(settings).toContain('engine-strict=false');
  });
});
