import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

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
  {
    // lib/ is the pure domain: no React, no Dexie (outside lib/db), no direct network.
    files: ['lib/**/*.ts'],
    ignores: ['lib/db/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['react', 'react-dom', 'dexie', 'dexie-react-hooks', 'zustand', 'next', 'next/server'], patterns: ['@/components/*', '@/app/*', '@/lib/db/*'] }],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'lib/ has no network: inject a transport instead.' }, 'indexedDB', 'localStorage', 'window', 'document'],
    },
  },
  {
    files: ['app/api/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@/components/*', '@/lib/db/*', '@/workers/*'] }],
    },
  },
];

export default config;
