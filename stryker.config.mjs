// Mutation testing of the core: `npm run mutation` (scripts/mutation.mjs) runs Stryker once per module
// with MUTATION_MODULE set, so each module keeps its own incremental file (docs/mutation/<module>.json):
// a re-run only tests the mutants whose code or covering tests changed. Not part of `npm test`.
import { MODULES, incrementalFile, mutateGlobs, testGlobs } from './scripts/mutation/modules.mjs';

const only = process.env.MUTATION_MODULE;
if (only !== undefined && !(only in MODULES)) throw new Error(`MUTATION_MODULE: unknown module ${only}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: only ? mutateGlobs(only) : Object.keys(MODULES).flatMap(mutateGlobs),
  testFiles: only ? testGlobs(only) : Object.keys(MODULES).flatMap(testGlobs),
  // Only what the unit tests read goes into the sandbox.
  ignorePatterns: ['/docs/screenshots', '/docs/mutation', '/e2e/**/*.spec.ts', '/public', '/.next', '/test-results', '/bench-results', '/reports'],
  // The machine is shared: each mutant runs only the tests that reach it, on at most two workers.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  incremental: true,
  incrementalFile: incrementalFile(only ?? 'all'),
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${only ?? 'all'}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
