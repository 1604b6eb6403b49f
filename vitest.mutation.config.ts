import { defineConfig } from 'vitest/config';
import base from './vitest.config';
import { MODULES, isolated, testGlobs } from './scripts/mutation/modules.mjs';

/**
 * The unit suite as mutation testing runs it (stryker.config.mjs): under MUTATION_MODULE only that
 * module's own tests, otherwise every module's (see stryker.config.mjs for why they are chosen here).
 */
const only = process.env.MUTATION_MODULE;
if (only !== undefined && !(only in MODULES)) throw new Error(`MUTATION_MODULE: unknown module ${only}`);
const modules = only ? [only] : Object.keys(MODULES);

// Not mergeConfig: it would append these globs to the normal suite's instead of replacing them.
export default defineConfig({ ...base, test: { ...base.test, include: modules.flatMap(testGlobs), isolate: modules.every(isolated) } });
