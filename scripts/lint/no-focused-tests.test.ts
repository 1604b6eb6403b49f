import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** `.only` hides the rest of a suite: refused in every file, unit tests and end-to-end specs alike. */
describe('lint: no focused tests', () => {
  it.each([
    ['lib/tokens/probe.test.ts', "import { it } from 'vitest';\nit.only('x', () => {});\n"],
    ['lib/tokens/probe.test.ts', "import { describe } from 'vitest';\ndescribe.only('x', () => {});\n"],
    ['lib/tokens/probe.test.ts', "import { it } from 'vitest';\nit.skipIf(false).only('x', () => {});\n"],
    ['lib/tokens/probe.test.ts', "import { it } from 'vitest';\nit['only']('x', () => {});\n"],
    ['e2e/probe.spec.ts', "import { test } from '@playwright/test';\ntest.only('x', async () => {});\n"],
    ['e2e/probe.spec.ts', "import { test } from '@playwright/test';\ntest.describe.only('x', () => {});\n"],
    ['e2e/probe.spec.ts', "import { test } from '@playwright/test';\ntest.describe.serial.only('x', () => {});\n"],
  ])('%s: refuses %s', async (at, code) => {
    expect(rulesOf(await firedRules(at, code))).toEqual(['tests/no-focused']);
  });

  it.each([
    ["import { it } from 'vitest';\nit.skip('x', () => {});\nit.each([1])('x %s', () => {});\n"],
    ['const only = { only: 1 };\nexport const probe = only.only;\n'],
    ["import { test } from '@playwright/test';\ntest('x', async () => {});\ntest.describe.configure({ mode: 'serial' });\n"],
  ])('lets through %s', async (code) => {
    expect(await firedRules('lib/tokens/probe.test.ts', code)).toEqual([]);
  });
});
