import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';
import { MODULES, testGlobs } from './scripts/mutation/modules.mjs';

/**
 * The unit suite as mutation testing runs it (stryker.config.mjs): lib/ only, and with MUTATION_MODULE
 * set, only that module's own tests (a mutant only another module's tests notice counts as survived).
 */
const only = process.env.MUTATION_MODULE;
const config = mergeConfig(base, defineConfig({}));
// Set, not merged: mergeConfig would append to the normal config's list (components, app, e2e…).
config.test!.include = only ? testGlobs(only) : Object.keys(MODULES).flatMap(testGlobs);
export default config;
