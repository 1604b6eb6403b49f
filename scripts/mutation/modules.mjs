// The core that mutation testing covers, one entry per module, in the order a full run visits them.
// `mutate`: the code whose mutants count; `tests`: the unit tests that must catch them, the module's
// own (a mutant only an integration test elsewhere notices does not count as caught).
const notTests = ['!**/*.test.ts', '!**/testdata/**', '!**/types.ts'];

// `isolate: false`: the module's tests share one module graph per worker (the tokenizer, parsed fixtures, the
// code under test), about three times faster per mutant (unit suites of the module, one worker: compaction 49 →
// 17 s, formats 32 → 18 s, flows 81 → 23 s). Safe where no test keeps state in a shared module and the shared
// caches (lib/testing) hold only what other modules compute. Static mutants then need a second, isolated pass
// (scripts/mutation.mjs).
export const MODULES = {
  tokens: {
    mutate: ['lib/tokens/pathIndex.ts', 'lib/tokens/pathTokens.ts', 'lib/tokens/calibration.ts', 'lib/tokens/estimate.ts'],
    tests: ['lib/tokens/**/*.test.ts', 'lib/sessionTokens/**/*.test.ts'],
  },
  providers: {
    mutate: ['lib/providers/errors.ts', 'lib/providers/overflow.ts', 'lib/providers/urlPolicy.ts'],
    tests: ['lib/providers/**/*.test.ts'],
  },
  formats: { mutate: ['lib/formats/readers/**/*.ts'], tests: ['lib/formats/**/*.test.ts'], isolate: false },
  flows: { mutate: ['lib/flows/**/*.ts'], tests: ['lib/flows/**/*.test.ts'], isolate: false },
  session: { mutate: ['lib/session/**/*.ts'], tests: ['lib/session/**/*.test.ts'] },
  compaction: { mutate: ['lib/compaction/**/*.ts'], tests: ['lib/compaction/**/*.test.ts'], isolate: false },
};

/**
 * Whether a module's tests run isolated (a fresh module graph per test file, Vitest's default). A static
 * mutant (module-level code) only takes effect when its module is evaluated again, so it needs isolation:
 * an unisolated module runs once with static mutants ignored, then once isolated for those alone.
 */
export const isolated = (name) => MODULES[name].isolate !== false || process.env.MUTATION_STATIC_PASS === '1';

export const mutateGlobs = (name) => [...MODULES[name].mutate, ...notTests];
export const testGlobs = (name) => MODULES[name].tests;
export const incrementalFile = (name) => `docs/mutation/${name}.json`;

/**
 * Mutants in each module as Stryker 10.1.1 instrumented it at its latest run (tokens and flows 2026-11-27 evening, the others 2026-11-23 to 27). An interrupted
 * or file-limited run stores only the mutants it scored, so the report compares against these to say how
 * much of the module a stored score covers. Update them from a run's "Instrumented N source file(s) with
 * M mutant(s)" line.
 */
export const INSTRUMENTED = { tokens: 1168, providers: 1079, formats: 4199, flows: 2127, session: 800, compaction: 3545 };

