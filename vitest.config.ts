import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('.', import.meta.url)),
      // `import 'server-only'` marks modules that must stay out of browser bundles; Next resolves it to an
      // empty module on the server. Node's default resolution picks the file that throws, so tests do what Next does.
      'server-only': fileURLToPath(new URL('./node_modules/server-only/empty.js', import.meta.url)),
    },
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
