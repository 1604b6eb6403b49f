import { describe, expect, it } from 'vitest';
import { firedRules, rulesOf } from './probe';

/** The eval's probes judge the summarizers; the summarizers may not read the judge's notes. */
describe('lint boundary: summarizers do not use the probes', () => {
  const probes = "import { probesFor } from '@/lib/compaction/probes/probes';\nexport const probe = probesFor;\n";

  it.each(['lib/compaction/probe.ts', 'lib/branch/probe.ts'])('refuses lib/compaction/probes in %s', async (at) => {
    expect(rulesOf(await firedRules(at, probes))).toEqual(['import/no-restricted-paths']);
  });

  it('refuses it by a relative path too', async () => {
    expect(rulesOf(await firedRules('lib/compaction/probe.ts', "import { probesFor } from './probes/probes';\nexport const probe = probesFor;\n"))).toEqual(['import/no-restricted-paths']);
  });

  it('still applies every rule of lib/ to the summarizers', async () => {
    expect(rulesOf(await firedRules('lib/compaction/probe.ts', "import { getSession } from '@/lib/db/sessions';\nexport const probe = getSession;\n"))).toEqual(['import/no-restricted-paths']);
  });

  it('lets the eval, the flows and the probes themselves use them', async () => {
    for (const at of ['lib/compaction/eval/probe.ts', 'lib/flows/probe.ts', 'lib/compaction/probes/probe.ts']) expect(await firedRules(at, probes)).toEqual([]);
  });
});
