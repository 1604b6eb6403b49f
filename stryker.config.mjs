// Mutation testing of the core: `npm run mutation` (scripts/mutation.mjs) runs Stryker once per module
// with MUTATION_MODULE set, so each module keeps its own incremental file (docs/mutation/<module>.json):
// a re-run only tests the mutants whose code or covering tests changed. Not part of `npm test`.
import { MODULES, incrementalFile, isolated, mutateGlobs } from './scripts/mutation/modules.mjs';

const only = process.env.MUTATION_MODULE;
if (only !== undefined && !(only in MODULES)) throw new Error(`MUTATION_MODULE: unknown module ${only}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: only ? mutateGlobs(only) : Object.keys(MODULES).flatMap(mutateGlobs),
  // The module's own tests are chosen in vitest.mutation.config.ts, not with `testFiles`: Stryker 10.1.1
  // turns `testFiles` into a test filter, and with a filter it activates a static mutant (a module-level
  // constant: a pattern list, a regex, a Set) only after the module has loaded, so every static mutant
  // survives whatever the tests say (stryker-js#6144).
  // Only what the unit tests read goes into the sandbox.
  ignorePatterns: ['/docs/screenshots', '/docs/mutation', '/e2e/**/*.spec.ts', '/public', '/.next', '/test-results', '/bench-results', '/reports'],
  // The machine is shared: each mutant runs only the tests that reach it, on at most two workers.
  coverageAnalysis: 'perTest',
  // Unisolated tests never evaluate a module again, so a static mutant would never be active: it is left to the
  // isolated pass that follows (scripts/mutation.mjs), which re-runs exactly the mutants ignored here.
  ignoreStatic: only !== undefined && !isolated(only),
  concurrency: 2,
  incremental: true,
  incrementalFile: incrementalFile(only ?? 'all'),
  // Stryker's time limit per mutant is 1.5 × the covering tests' net time plus this. A static mutant runs the whole
  // suite isolated, where importing the module graph for every file takes longer than the tests themselves and is
  // not in the net time: with 10 s, 21 of the flows' 52 static mutants "timed out" (counted as detected) under load.
  timeoutMS: process.env.MUTATION_STATIC_PASS === '1' ? 120_000 : 10_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${only ?? 'all'}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
