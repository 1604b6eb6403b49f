import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** lib/browser: browser adapters for the flows' ports. fetch and the DOM are allowed here, React and Dexie are not. */
describe('lint boundary: lib/browser', () => {
  const at = 'lib/browser/probe.ts';

  it('may use fetch, navigator, lib/db and the worker clients', async () => {
    const code = "import { loadClientCredentials } from '@/lib/db';\nimport { getTokensClient } from '@/workers/tokensClient';\nexport const probe = () => [fetch, navigator, loadClientCredentials, getTokensClient];\n";
    expect(await firedRules(at, code)).toEqual([]);
  });

  it.each([
    ["import { useState } from 'react';", 'no-restricted-imports'],
    ["import { Dexie } from 'dexie';", 'no-restricted-imports'],
    ["import { useFlows } from '@/components/state/FlowsProvider';", 'import/no-restricted-paths'],
    ["import RootLayout from '@/app/layout';", 'import/no-restricted-paths'],
  ])('refuses %s', async (code, rule) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual([rule]);
  });
});
