/**
 * CPU time and resident memory of one Chromium instance's processes, from
 * /proc (Linux only), grouped by process type: the browser process (where
 * IndexedDB writes happen), renderers (the page and its workers run in one),
 * the GPU process and utility processes (network, storage). Found as the
 * descendants of the browser process that was started with `userDataDir`, so
 * other browsers on the machine (other agents' tests) never count.
 */

import { readdirSync, readFileSync } from 'node:fs';

export type ProcessKind = 'browser' | 'renderer' | 'gpu' | 'utility' | 'other';

export interface ProcessSample {
  /** Resident memory per kind, bytes. */
  rss: Record<ProcessKind, number>;
  /** The renderers' resident memory by what backs it (bytes): anonymous (heaps, buffers), file-backed (mapped files, code), shared memory (IPC buffers, data pipes). */
  rendererParts: RssParts;
  /** CPU time (user + system) per kind, seconds; processes that have exited no longer count. */
  cpu: Record<ProcessKind, number>;
}

export interface RssParts {
  anon: number;
  file: number;
  shmem: number;
}

const TICK = 100; // USER_HZ on Linux
const KINDS: ProcessKind[] = ['browser', 'renderer', 'gpu', 'utility', 'other'];

const empty = (): Record<ProcessKind, number> => ({ browser: 0, renderer: 0, gpu: 0, utility: 0, other: 0 });

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // the process exited meanwhile
  }
}

function kindOf(cmdline: string): ProcessKind {
  const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
  if (!type) return 'browser';
  if (type === 'renderer') return 'renderer';
  if (type === 'gpu-process') return 'gpu';
  if (type === 'utility') return 'utility';
  return 'other'; // zygote, crashpad
}

export class ChromiumProcesses {
  private root: number | null = null;

  constructor(private readonly userDataDir: string) {}

  private findRoot(): number | null {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const cmd = read(`/proc/${name}/cmdline`)?.replace(/\0/g, ' ');
      if (cmd && cmd.includes(`--user-data-dir=${this.userDataDir}`) && !cmd.includes('--type=')) return Number(name);
    }
    return null;
  }

  /** The browser process and all its descendants, with their kinds. */
  private tree(): { pid: number; kind: ProcessKind }[] {
    this.root ??= this.findRoot();
    if (this.root === null) return [];
    const children = new Map<number, number[]>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const stat = read(`/proc/${name}/stat`);
      if (!stat) continue;
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    }
    const out: { pid: number; kind: ProcessKind }[] = [];
    const stack = [this.root];
    while (stack.length) {
      const pid = stack.pop()!;
      const cmd = read(`/proc/${pid}/cmdline`);
      if (cmd !== null) out.push({ pid, kind: pid === this.root ? 'browser' : kindOf(cmd.replace(/\0/g, ' ')) });
      stack.push(...(children.get(pid) ?? []));
    }
    return out;
  }

  sample(): ProcessSample {
    const rss = empty();
    const cpu = empty();
    const rendererParts: RssParts = { anon: 0, file: 0, shmem: 0 };
    const kb = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    for (const { pid, kind } of this.tree()) {
      const status = read(`/proc/${pid}/status`);
      const stat = read(`/proc/${pid}/stat`);
      if (!status || !stat) continue;
      rss[kind] += kb(status, 'VmRSS');
      if (kind === 'renderer') {
        rendererParts.anon += kb(status, 'RssAnon');
        rendererParts.file += kb(status, 'RssFile');
        rendererParts.shmem += kb(status, 'RssShmem');
      }
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of /proc/pid/stat; f starts at field 3.
      cpu[kind] += (Number(f[11]) + Number(f[12])) / TICK;
    }
    return { rss, cpu, rendererParts };
  }
}

/** Samples every `intervalMs` until stopped; keeps the peak RSS of each kind and of the sum of renderers. */
export function samplePeaks(procs: ChromiumProcesses, intervalMs = 100) {
  const peak = empty();
  /** The renderers' parts when their total was at its peak. */
  let partsAtPeak: RssParts = { anon: 0, file: 0, shmem: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const s = procs.sample();
      if (s.rss.renderer > peak.renderer) partsAtPeak = s.rendererParts;
      if (process.env.TRACE_RSS) console.log(`rss ${Date.now() % 100000} renderer ${(s.rss.renderer / 1e6).toFixed(0)} browser ${(s.rss.browser / 1e6).toFixed(0)}`);
      for (const k of KINDS) peak[k] = Math.max(peak[k], s.rss[k]);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop(): Promise<Record<ProcessKind, number>> {
      running = false;
      await loop;
      return peak;
    },
    rendererPartsAtPeak: () => partsAtPeak,
  };
}
