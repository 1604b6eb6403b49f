import nextPlugin from '@next/eslint-plugin-next';
import importPlugin from 'eslint-plugin-import';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactPlugin from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { boundaryConfigs } from './scripts/lint/boundaries.mjs';
import { testsPlugin } from './scripts/lint/noFocusedTests.mjs';

const config = [
  {
    ignores: ['.next/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'bench-results/**', 'e2e/scratch/**', '.scratch/**', '.stryker-tmp/**', 'reports/**', 'stryker-setup-*.js'],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    plugins: { react: reactPlugin, 'react-hooks': reactHooks, import: importPlugin, 'jsx-a11y': jsxA11y, '@next/next': nextPlugin },
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
    settings: {
      react: { version: 'detect' },
      // The project's alias, then Node's resolution (scripts/lint/resolver.cjs).
      'import/resolver': { [new URL('./scripts/lint/resolver.cjs', import.meta.url).pathname]: {} },
    },
    rules: {
      ...reactPlugin.configs.recommended.rules,
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs['core-web-vitals'].rules,
      'react/react-in-jsx-scope': 'off',
      'react/prop-types': 'off',
      'react/no-unknown-property': 'off',
      'import/no-anonymous-default-export': 'warn',
      // Inline editors (rename, label, edit message) appear because the user asked for them: focus belongs there.
      'jsx-a11y/no-autofocus': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layers of docs/architecture.md, each arrow a rule (scripts/lint/boundaries.mjs).
  ...boundaryConfigs,
  // No focused test anywhere (scripts/lint/noFocusedTests.mjs): the runners refuse it too, this says it first.
  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    plugins: { tests: testsPlugin },
    rules: { 'tests/no-focused': 'error' },
  },
];

export default config;
