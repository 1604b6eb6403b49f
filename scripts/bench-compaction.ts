/**
 * Compaction quality as a benchmark part: our extractive summary beside every
 * compaction a real agent wrote in fixtures/real (the same comparison as
 * `npm run eval`), as ratios against the agents' own summaries in this run,
 * with a headings-only summary as the trivial baseline every figure must beat.
 * Prints a table and writes bench-results/compaction.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareWithAgent, type Comparison } from '@/lib/compaction/eval/agentCompare';
import { formatComparison, pool } from '@/lib/compaction/eval/report';
import { PROBE_KINDS, PROBE_KIND_LABEL } from '@/lib/compaction/probes/probes';
import { ratio } from '@/lib/compaction/probes/score';
import { countText, entryTokens } from '@/lib/testing/compactionData';
import { loadAgentCompactions } from './evalSetup';

const OUT = fileURLToPath(new URL('../bench-results/compaction.json', import.meta.url));

const started = Date.now();
const comparisons: Comparison[] = [];
for (const c of loadAgentCompactions()) comparisons.push(await compareWithAgent(c, { countText, tokensOf: entryTokens }));
const p = pool(comparisons);
console.log(formatComparison(comparisons));

const kinds = Object.fromEntries(
  PROBE_KINDS.filter((k) => p.theirs[k].total > 0).map((k) => {
    const theirs = ratio(p.theirs[k])!;
    const ours = ratio(p.oursWhole[k])!;
    return [k, { label: PROBE_KIND_LABEL[k], theirs, ours, oursBody: ratio(p.oursBody[k]), headingsOnly: ratio(p.headingsOnly[k]), oursOverTheirs: theirs > 0 ? ours / theirs : null }];
  }),
);
const result = {
  compared: p.compared,
  seconds: (Date.now() - started) / 1000,
  sizeRatio: p.oursChars / Math.max(1, p.theirsChars),
  worstSizeRatio: p.worstSizeRatio,
  kinds,
  atOrAboveEveryKind: Object.values(kinds).every((k) => k.ours >= k.theirs),
};
mkdirSync(fileURLToPath(new URL('../bench-results/', import.meta.url)), { recursive: true });
writeFileSync(OUT, JSON.stringify(result, null, 2));
console.log(`\n${result.atOrAboveEveryKind ? 'at or above the agents on every kind' : 'BELOW THE AGENTS ON SOME KIND'} → bench-results/compaction.json`);
