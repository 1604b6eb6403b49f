// `npm test`: typecheck, lint, unit tests, production build, end-to-end tests in Chromium.
// Every stage runs even when an earlier one failed, so one run shows everything that
// is wrong; the last line is the total from the test runners: "N passed, N failed".
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, bin, buildIfStale, run } from './lib.mjs';

const results = [];
const resultsDir = join(ROOT, 'test-results');
mkdirSync(resultsDir, { recursive: true });

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

async function stage(name, fn) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  const r = await fn();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  results.push({ name, ...r, seconds });
  console.log(`--- ${name}: ${r.passed} passed, ${r.failed} failed (${seconds}s)`);
}

const check = async (cmd, args) => ((await run(cmd, args)) === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });

await stage('typecheck', () => check(bin('tsc'), ['--noEmit']));
await stage('lint', () => check(bin('eslint'), ['--max-warnings=0', '.']));

await stage('unit tests (vitest)', async () => {
  const out = join(resultsDir, 'vitest.json');
  const code = await run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile=${out}`]);
  const json = readJson(out);
  if (!json) return { passed: 0, failed: 1 };
  const failed = json.numFailedTests + (code !== 0 && json.numFailedTests === 0 ? 1 : 0);
  return { passed: json.numPassedTests, failed };
});

let built = false;
await stage('build', async () => {
  const code = await buildIfStale();
  built = code === 0;
  return built ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
});

await stage('end-to-end tests (playwright, chromium)', async () => {
  if (!built) return { passed: 0, failed: 1 };
  const out = join(resultsDir, 'playwright.json');
  const code = await run(bin('playwright'), ['test']);
  const json = existsSync(out) ? readJson(out) : null;
  if (!json) return { passed: 0, failed: 1 };
  const s = json.stats ?? {};
  const failed = (s.unexpected ?? 0) + (code !== 0 && !s.unexpected ? 1 : 0);
  return { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed };
});

console.log('\n=== summary ===');
for (const r of results) console.log(`${r.name.padEnd(42)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed  ${r.seconds}s`);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
