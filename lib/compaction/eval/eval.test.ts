import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { countText, entryTokens, loadSessions } from '@/lib/testing/compactionData';
import { FIXTURES, type FixtureName } from '@/lib/testing/fixtures';
import { loadAgentCompactions } from '../../../scripts/evalSetup';
import { PROBE_KINDS } from '../probes/probes';
import { compareWithAgent, type Comparison } from './agentCompare';
import { formatComparison, formatReport, pool } from './report';
import { evaluateSubject, type EvalRow } from './run';

/**
 * What `npm run eval` must show, asserted: on every compaction a real agent
 * wrote in the fixtures, our extractive summary of the same span answers at
 * least as many probes of every kind as the agent's own summary, at no more
 * than twice its size; a trivial summary answers none; and no compaction the
 * app would append grows the context.
 */

const deps = { countText, tokensOf: entryTokens };

async function comparisons(): Promise<Comparison[]> {
  const out: Comparison[] = [];
  for (const c of loadAgentCompactions()) out.push(await compareWithAgent(c, deps));
  return out;
}

describe('npm run eval: ours beside the agents’ own summaries', () => {
  it('pooled over every real agent compaction: at or above the agents on every probe kind, at most twice their size', async () => {
    const all = await comparisons();
    const p = pool(all);
    expect(p.compared).toBeGreaterThanOrEqual(5);
    for (const k of PROBE_KINDS) {
      if (p.theirs[k].total === 0) continue;
      expect(p.oursWhole[k].hit / p.oursWhole[k].total, k).toBeGreaterThanOrEqual(p.theirs[k].hit / p.theirs[k].total);
    }
    expect(p.worstSizeRatio).toBeLessThanOrEqual(2);
    expect(formatComparison(all)).toContain("Ours (whole) is at or above the agents' own on every probe kind.");
  });

  it('a summary of headings only answers nothing of any kind: the probes measure the summary, not themselves', async () => {
    const p = pool(await comparisons());
    for (const k of PROBE_KINDS) expect(p.headingsOnly[k].hit, k).toBe(0);
  });
});

function longestMessagePath(name: FixtureName): SessionEntry[] {
  return loadSessions(name)
    .map((s) => s.path.filter((e) => e.type === 'message'))
    .sort((a, b) => b.length - a.length)[0]!;
}

describe('npm run eval: one compaction of every fixture as the app would make it', () => {
  it('no appended compaction grows the context, every appended summary is smaller than its span, and the agent transcripts are all compacted', async () => {
    const rows: EvalRow[] = [];
    for (const name of Object.keys(FIXTURES) as FixtureName[]) rows.push(...(await evaluateSubject({ name, path: longestMessagePath(name) }, { ...deps, window: 128_000 })));
    expect(rows).toHaveLength(Object.keys(FIXTURES).length);
    for (const r of rows.filter((r) => !r.skipped)) {
      if (r.appended) {
        expect(r.contextAfter, r.fixture).toBeLessThan(r.contextBefore);
        expect(r.summaryTokens, r.fixture).toBeLessThan(r.spanTokens);
      } else expect(r.contextAfter, r.fixture).toBe(r.contextBefore);
    }
    for (const name of ['piV1', 'claudeLog', 'claudeViewer', 'codexRollout', 'geminiSession', 'sweTraj', 'claudeSpotter258']) expect(rows.find((r) => r.fixture === name)!.appended, name).toBe(true);
    const pi = rows.find((r) => r.fixture === 'piV1')!;
    expect(pi.coverage.fileModified.hit).toBe(pi.coverage.fileModified.total);
    expect(pi.compression).toBeGreaterThan(0.95);
    expect(formatReport(rows)).toContain('Appended compactions that grow the context: 0.');
  });
});
