import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** workers/: host lib/ off the main thread; no UI, no browser adapters. */
describe('lint boundary: workers/', () => {
  const at = 'workers/probe.ts';

  it('may host lib/ and use comlink', async () => {
    expect(await firedRules(at, "import { expose } from 'comlink';\nimport { createTokensService } from '@/lib/sessionTokens/service';\nexpose(createTokensService());\n")).toEqual([]);
  });

  it.each([
    ["import { useState } from 'react';", 'no-restricted-imports'],
    ["import { Dexie } from 'dexie';", 'no-restricted-imports'],
    ["import { NextResponse } from 'next/server';", 'no-restricted-imports'],
    ["import { useUi } from '@/components/state/uiStore';", 'import/no-restricted-paths'],
    ["import { routeTransport } from '@/lib/browser/routeTransport';", 'import/no-restricted-paths'],
  ])('refuses %s', async (code, rule) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual([rule]);
  });
});
