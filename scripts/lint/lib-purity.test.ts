import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** lib/ outside lib/db and lib/browser: pure TypeScript, ports injected. */
describe('lint boundary: lib/ is pure', () => {
  const at = 'lib/flows/probe.ts';

  it('accepts what lib/ may use: other lib modules, zod, the AI SDK', async () => {
    expect(await firedRules(at, "import { z } from 'zod';\nimport { SessionTree } from '@/lib/session/tree';\nexport const x = [z, SessionTree];\n")).toEqual([]);
  });

  it.each([
    ["import { useState } from 'react';", 'React'],
    ["import { createRoot } from 'react-dom/client';", 'a react-dom sub-path'],
    ["import { create } from 'zustand';", 'zustand'],
    ["import { toast } from 'sonner';", 'sonner'],
    ["import { NextResponse } from 'next/server';", 'a next sub-path'],
    ["import { Dexie } from 'dexie';", 'Dexie'],
    ["import { useLiveQuery } from 'dexie-react-hooks';", 'dexie-react-hooks'],
    ["import { wrap } from 'comlink';", 'comlink'],
  ])('refuses %s (%s)', async (code) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual(['no-restricted-imports']);
  });

  it.each([
    ["import { getSession } from '@/lib/db';", 'the bare @/lib/db barrel'],
    ["import { getSession } from '@/lib/db/sessions';", 'a lib/db module'],
    ["import { getSession } from '../db/sessions';", 'lib/db by a relative path'],
    ["import { routeTransport } from '@/lib/browser/routeTransport';", 'lib/browser'],
    ["import { getTokensClient } from '@/workers/tokensClient';", 'workers/'],
    ["import { SessionView } from '@/components/chat/SessionView';", 'components/'],
  ])('refuses %s (%s)', async (code) => {
    expect(rulesOf(await firedRules(at, `${code}\nexport const probe = 1;\n`))).toEqual(['import/no-restricted-paths']);
  });

  it.each(['fetch', 'window', 'document', 'navigator', 'indexedDB', 'localStorage'])('refuses the global %s', async (name) => {
    expect(rulesOf(await firedRules(at, `export const probe = () => ${name};\n`))).toEqual(['no-restricted-globals']);
  });

  it('lets a test of lib/ wire the real store, and nothing else from outside lib/', async () => {
    expect(await firedRules('lib/flows/probe.test.ts', "import { createSessionStore } from '@/lib/db/store';\nexport const probe = createSessionStore;\n")).toEqual([]);
    expect(rulesOf(await firedRules('lib/flows/probe.test.ts', "import { routeTransport } from '@/lib/browser/routeTransport';\nexport const probe = routeTransport;\n"))).toEqual(['import/no-restricted-paths']);
  });
});
