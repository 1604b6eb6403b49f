import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/** The unit suite as mutation testing runs it (stryker.config.mjs): lib/ only. */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['lib/**/*.test.ts'],
    },
  }),
);
