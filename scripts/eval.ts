// npm run eval — compaction quality on the real fixtures.
//   npm run eval                 extractive, and the configured model if the environment names one
//   npm run eval -- --no-model   extractive only
//   npm run eval -- --fixture piV1 --fixture sweTraj
//   npm run eval -- --json out.json   also writes every figure as JSON
// Two parts: (1) every compaction an agent wrote in a fixture (pi, Claude Code, Codex), beside ours on the
// same span, scored by the same probes; (2) one compaction of each fixture as the app would make it.
// The model is the one the app's server would use: SUMMARIZER_MODEL or DEFAULT_MODEL with its provider's
// settings (e.g. OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL=http://127.0.0.1:4010/v1 for `npm run mock-llm`).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareWithAgent, type Comparison } from '@/lib/compaction/eval/agentCompare';
import { formatComparison, formatReport, pool } from '@/lib/compaction/eval/report';
import { evaluateSubject, type EvalRow } from '@/lib/compaction/eval/run';
import { countText, entryTokens } from '@/lib/testing/compactionData';
import type { FixtureName } from '@/lib/testing/fixtures';
import { EVAL_FIXTURES, evalModelFromEnv, loadAgentCompactions, loadEvalSubjects } from './evalSetup';

const WINDOW = 128_000;

const { values } = parseArgs({
  options: { fixture: { type: 'string', multiple: true }, 'no-model': { type: 'boolean' }, json: { type: 'string' } },
  strict: true,
});
const picked = (values.fixture ?? []) as FixtureName[];
const unknown = picked.filter((f) => !EVAL_FIXTURES.includes(f));
if (unknown.length) {
  console.error(`Unknown fixture ${unknown.join(', ')}; known: ${EVAL_FIXTURES.join(', ')}`);
  process.exit(2);
}

const found = values['no-model'] ? null : evalModelFromEnv(process.env, fetch);
if (found && 'error' in found) {
  console.error(`The configured model cannot be used: ${found.error}`);
  process.exit(2);
}
const model = found ?? undefined;
console.log(model ? `Model: ${model.summarizer.info.kind === 'model' ? model.summarizer.info.model : '?'} (window ${model.window.toLocaleString('en-US')})` : 'Model: none configured (extractive only)');
const names = picked.length ? picked : EVAL_FIXTURES;

const comparisons: Comparison[] = [];
for (const c of loadAgentCompactions(names)) comparisons.push(await compareWithAgent(c, { countText, tokensOf: entryTokens }, model));
console.log(`\n${formatComparison(comparisons)}\n`);

const rows: EvalRow[] = [];
for (const subject of loadEvalSubjects(names)) rows.push(...(await evaluateSubject(subject, { countText, tokensOf: entryTokens, window: WINDOW }, model)));
console.log('One compaction of each fixture as the app would make it (default settings):');
console.log(formatReport(rows));

if (values.json) {
  writeFileSync(values.json, JSON.stringify({ pooled: pool(comparisons), comparisons: comparisons.map(({ probes, ...c }) => ({ ...c, probeCount: probes.length })), fixtures: rows }, null, 2));
  console.log(`\nWrote ${values.json}`);
}
