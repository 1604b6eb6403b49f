import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** lib/db: the only home of Dexie; it serves the other layers and knows none of them. */
describe('lint boundary: lib/db', () => {
  const at = 'lib/db/probe.ts';

  it('may use Dexie and the domain', async () => {
    expect(await firedRules(at, "import { Dexie } from 'dexie';\nimport { SessionTree } from '@/lib/session/tree';\nexport const x = [Dexie, SessionTree];\n")).toEqual([]);
  });

  it.each([
    ["import { useEffect } from 'react';", 'no-restricted-imports'],
    ["import { toast } from 'sonner';", 'no-restricted-imports'],
    ["import { getTokensClient } from '@/workers/tokensClient';", 'import/no-restricted-paths'],
    ["import { routeTransport } from '@/lib/browser/routeTransport';", 'import/no-restricted-paths'],
    ["import { useUi } from '@/components/state/uiStore';", 'import/no-restricted-paths'],
  ])('refuses %s', async (code, rule) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual([rule]);
  });

  it('is the only place Dexie may be imported', async () => {
    for (const path of ['lib/flows/probe.ts', 'lib/browser/probe.ts', 'workers/probe.ts', 'components/chat/probe.tsx']) {
      expect(rulesOf(await firedRules(path, "import { liveQuery } from 'dexie';\nexport const probe = liveQuery;\n")), path).toEqual(['no-restricted-imports']);
    }
  });
});
