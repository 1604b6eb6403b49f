import { PROBE_KINDS, type Probe, type ProbeKind } from './probes';
import { containsTerm, normalise } from './text';

export interface Coverage {
  hit: number;
  total: number;
}

export type CoverageByKind = Record<ProbeKind, Coverage>;

/** A summary normalised once, for many probes. */
export interface ProbeAnswer {
  text: string;
}

export function answerOf(summary: string): ProbeAnswer {
  return { text: normalise(summary) };
}

export function answers(a: ProbeAnswer, p: Probe): boolean {
  let hit = 0;
  for (const t of p.terms) if (containsTerm(a.text, t) && ++hit >= p.need) return true;
  return false;
}

export function emptyCoverage(): CoverageByKind {
  return Object.fromEntries(PROBE_KINDS.map((k) => [k, { hit: 0, total: 0 }])) as CoverageByKind;
}

/** Which probes a summary answers, by kind. */
export function coverage(summary: string, probes: readonly Probe[]): CoverageByKind {
  const a = answerOf(summary);
  const out = emptyCoverage();
  for (const p of probes) {
    const c = out[p.kind];
    c.total++;
    if (answers(a, p)) c.hit++;
  }
  return out;
}

/** The probes a summary does not answer, in the order given. */
export function missed(summary: string, probes: readonly Probe[]): Probe[] {
  const a = answerOf(summary);
  return probes.filter((p) => !answers(a, p));
}

export function addCoverage(a: CoverageByKind, b: CoverageByKind): CoverageByKind {
  const out = emptyCoverage();
  for (const k of PROBE_KINDS) out[k] = { hit: a[k].hit + b[k].hit, total: a[k].total + b[k].total };
  return out;
}

export function ratio(c: Coverage): number | null {
  return c.total === 0 ? null : c.hit / c.total;
}

/**
 * One health figure for a summary: the mean over the kinds that have probes,
 * so fifty names do not outweigh the one open task. Null when the span gave no
 * probes at all.
 */
export function health(c: CoverageByKind): number | null {
  const rs = PROBE_KINDS.map((k) => ratio(c[k])).filter((r): r is number => r !== null);
  return rs.length ? rs.reduce((a, b) => a + b, 0) / rs.length : null;
}
