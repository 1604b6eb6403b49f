import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** app/api: thin route handlers over lib/; nothing of the browser side. */
describe('lint boundary: app/api', () => {
  const at = 'app/api/probe/route.ts';

  it('may use lib/', async () => {
    expect(await firedRules(at, "import { handleChat } from '@/lib/providers/streamHandlers';\nexport const POST = handleChat;\n")).toEqual([]);
  });

  it.each([
    ["import { getSession } from '@/lib/db';", 'the bare @/lib/db'],
    ["import { getSession } from '@/lib/db/sessions';", 'a lib/db module'],
    ["import { routeTransport } from '@/lib/browser/routeTransport';", 'lib/browser'],
    ["import { AppFlows } from '@/lib/flows/app';", 'lib/flows'],
    ["import { getTokensClient } from '@/workers/tokensClient';", 'workers/'],
    ["import { SessionView } from '@/components/chat/SessionView';", 'components/'],
  ])('refuses %s (%s)', async (code) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual(['import/no-restricted-paths']);
  });

  it.each(["import { useState } from 'react';", "import { Dexie } from 'dexie';"])('refuses the package in %s', async (code) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual(['no-restricted-imports']);
  });
});
