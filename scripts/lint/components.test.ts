import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** components/ and app/: React only. IndexedDB through lib/db's public surface, workers through the flows. */
describe('lint boundary: components/ and app/', () => {
  const at = 'components/chat/probe.tsx';

  it('may use lib/db’s public surface, the flows and React', async () => {
    const code = "import { useState } from 'react';\nimport { watchSessionList } from '@/lib/db';\nimport { AppFlows } from '@/lib/flows/app';\nexport const probe = [useState, watchSessionList, AppFlows];\n";
    expect(await firedRules(at, code)).toEqual([]);
  });

  it.each([
    ["import { Dexie } from 'dexie';", 'no-restricted-imports'],
    ["import { useLiveQuery } from 'dexie-react-hooks';", 'no-restricted-imports'],
    ["import { getDB } from '@/lib/db/db';", 'import/no-restricted-paths'],
    ["import { appendEntries } from '@/lib/db/sessions';", 'import/no-restricted-paths'],
    ["import { getTokensClient } from '@/workers/tokensClient';", 'import/no-restricted-paths'],
    ["import { countText } from '@/lib/tokens/exact';", 'import/no-restricted-paths'],
    ["import { createTokensService } from '@/lib/sessionTokens/service';", 'import/no-restricted-paths'],
  ])('refuses %s', async (code, rule) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual([rule]);
  });

  it('holds for app/ pages too', async () => {
    expect(rulesOf(await firedRules('app/probe.tsx', "import { getDB } from '@/lib/db/db';\nexport const probe = getDB;\n"))).toEqual(['import/no-restricted-paths']);
  });
});
