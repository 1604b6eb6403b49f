/** Shared by the bench scripts: their command-line options, the machine they ran on, summary statistics and the plain-text tables they print. */

import { availableParallelism, cpus, loadavg } from 'node:os';

export const args = process.argv.slice(2);
export const QUICK = args.includes('--quick');
/** The number after `--name`, if given. */
export const numArg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) || undefined : undefined;
};

export interface Stats {
  n: number;
  min: number;
  median: number;
  /** Same as median, under the name latency tables use. */
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

/** Nearest-rank quantiles; NaN everywhere for no samples. */
export function stats(samples: number[]): Stats {
  if (samples.length === 0) return { n: 0, min: NaN, median: NaN, p50: NaN, p95: NaN, max: NaN, mean: NaN };
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const median = q(0.5);
  return { n: s.length, min: s[0]!, median, p50: median, p95: q(0.95), max: s.at(-1)!, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** A number with fixed decimals and thousands separators; "–" for NaN or infinity. */
export const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '–');

export const pct = (x: number) => `${fmt(100 * x, 1)}%`;

/** Prints a table: first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: (string | number)[][]) {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
  console.log();
}

/** Where and when a bench ran, recorded in every results file: figures only compare on the same machine. */
export function machine() {
  return { generatedAt: new Date().toISOString(), node: process.version, cores: availableParallelism(), cpu: cpus()[0]?.model };
}

/** The same for the heading a bench prints, with the load average: a busy machine explains slow figures. */
export function machineLine(): string {
  return `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((x) => fmt(x, 2)).join(' ')}`;
}
