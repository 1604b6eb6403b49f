// npm run eval — compaction quality on the real fixtures (issue 17, "Measured").
//   npm run eval                 extractive, and the configured model if the environment names one
//   npm run eval -- --no-model   extractive only
//   npm run eval -- --fixture piV1 --fixture sweTraj
// The model is the one the app's server would use: SUMMARIZER_MODEL or DEFAULT_MODEL with its provider's
// settings (e.g. OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL=http://127.0.0.1:4010/v1 for `npm run mock-llm`).
import { evaluateSubject, type EvalRow } from '@/lib/compaction/eval/run';
import { formatReport } from '@/lib/compaction/eval/report';
import { countText, entryTokens } from '@/lib/testing/compactionData';
import type { FixtureName } from '@/lib/testing/fixtures';
import { EVAL_FIXTURES, evalModelFromEnv, loadEvalSubjects } from './evalSetup';

const WINDOW = 128_000;

const args = process.argv.slice(2);
const picked = args.flatMap((a, i) => (a === '--fixture' && args[i + 1] ? [args[i + 1] as FixtureName] : []));
const unknown = picked.filter((f) => !EVAL_FIXTURES.includes(f));
if (unknown.length) {
  console.error(`Unknown fixture ${unknown.join(', ')}; known: ${EVAL_FIXTURES.join(', ')}`);
  process.exit(2);
}

const found = args.includes('--no-model') ? null : evalModelFromEnv(process.env, fetch);
if (found && 'error' in found) {
  console.error(`The configured model cannot be used: ${found.error}`);
  process.exit(2);
}
const model = found ?? undefined;
console.log(model ? `Model: ${model.summarizer.info.kind === 'model' ? model.summarizer.info.model : '?'} (window ${model.window.toLocaleString('en-US')})` : 'Model: none configured (extractive only)');

const rows: EvalRow[] = [];
for (const subject of loadEvalSubjects(picked.length ? picked : EVAL_FIXTURES)) {
  rows.push(...(await evaluateSubject(subject, { countText, tokensOf: entryTokens, window: WINDOW }, model)));
}
console.log(formatReport(rows));
