import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: { '@': fileURLToPath(new URL('.', import.meta.url)) },
  },
  test: {
    include: ['lib/**/*.test.ts', 'components/**/*.test.tsx', 'workers/**/*.test.ts', 'app/**/*.test.ts', 'scripts/**/*.test.ts', 'e2e/mock-llm/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    pool: 'threads',
    // A stray .only would silently skip the rest of the suite (the lint rule tests/no-focused says so earlier).
    allowOnly: false,
  },
});
