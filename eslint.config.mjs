import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';
import { boundaryConfigs } from './scripts/lint/boundaries.mjs';

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ['.next/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'bench-results/**', 'e2e/scratch/**', '.scratch/**'],
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The layers of docs/architecture.md, each arrow a rule (scripts/lint/boundaries.mjs).
  ...boundaryConfigs,
];

export default config;
