// `npm test`: typecheck, lint, unit tests, production build, end-to-end tests in Chromium.
// Every stage runs even when an earlier one failed, so one run shows everything that
// is wrong; the last line is the total from the test runners: "N passed, N failed, N skipped".
// A Playwright test that failed and then passed on a retry (flaky) counts as failed: it would
// fail again on another run, so it is not a pass.
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
  const result = { skipped: 0, ...r, seconds };
  results.push({ name, ...result });
  const skipped = result.skipped ? `, ${result.skipped} skipped` : '';
  const flaky = result.flaky ? ` (${result.flaky} of the failures flaky: passed only on retry)` : '';
  console.log(`--- ${name}: ${result.passed} passed, ${result.failed} failed${skipped}${flaky} (${seconds}s)`);
}

// Titles of the Playwright tests that did not pass first time (failed, or flaky).
function failedSpecs(report) {
  const names = [];
  const walk = (suite, trail) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? [])
        if (test.status === 'unexpected' || test.status === 'flaky')
          names.push(`${spec.file} › ${[...trail, spec.title].join(' › ')} [${test.projectName}] (${test.status})`);
    for (const child of suite.suites ?? []) walk(child, [...trail, child.title]);
  };
  // The top-level suites are the spec files; their titles are the file names already shown.
  for (const suite of report.suites ?? []) walk(suite, []);
  return names;
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
  const names = (json.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((t) => t.status === 'failed')
      .map((t) => `${file.name.replace(ROOT + '/', '')} › ${t.fullName}`),
  );
  return { passed: json.numPassedTests, failed, skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0), names };
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
  const bad = (s.unexpected ?? 0) + (s.flaky ?? 0);
  const failed = bad + (code !== 0 && bad === 0 ? 1 : 0);
  return { passed: s.expected ?? 0, failed, skipped: s.skipped ?? 0, flaky: s.flaky ?? 0, names: failedSpecs(json) };
});

console.log('\n=== summary ===');
for (const r of results)
  console.log(`${r.name.padEnd(42)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed ${String(r.skipped).padStart(3)} skipped  ${r.seconds}s`);
// The names of what failed go above the closing line, so the tail of a CI log says which test it was.
for (const r of results) for (const name of r.names ?? []) console.log(`FAILED ${r.name}: ${name}`);
const total = (key) => results.reduce((n, r) => n + r[key], 0);
console.log(`${total('passed')} passed, ${total('failed')} failed, ${total('skipped')} skipped`);
const failed = total('failed');
process.exit(failed === 0 ? 0 : 1);
