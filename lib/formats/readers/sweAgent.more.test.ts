import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { readSweAgent } from './sweAgent';

/** What a SWE-agent trajectory can hold beyond the real one: a second system message, a submitted patch, unnamed files. */
const real = JSON.parse(readFixture('sweTraj')) as Raw & { history: Raw[]; info: Raw };

describe('SWE-agent trajectory fields', () => {
  it('keeps a later system message as a note, and counts the lines of a submitted patch', () => {
    const doc = structuredClone(real);
    doc.history.splice(2, 0, { role: 'system', content: `Reminder: ${'x'.repeat(300)}` });
    doc.info = { exit_status: 'submitted', submission: 'diff --git a/x b/x\n+1\n-2' };
    const s = readSweAgent(JSON.stringify(doc), { fileName: 'run.traj' }).sessions[0]!;
    expectWellFormed(s);
    expect(s.meta.systemPrompt).toBe(real.history[0]!.content);
    expect(s.entries.find((e) => e.id === 'swe-2')).toMatchObject({ type: 'custom', customType: 'swe-agent:system', data: { content: `Reminder: ${'x'.repeat(300)}` }, display: `Reminder: ${'x'.repeat(190)}` });
    expect(s.entries.at(-1)).toMatchObject({ type: 'custom', customType: 'swe-agent:info', display: 'Exit status: submitted · patch of 3 lines submitted' });
  });

  it('says the exit status is unknown when the run recorded none', () => {
    const doc = { ...structuredClone(real), info: {} };
    const s = readSweAgent(JSON.stringify(doc)).sessions[0]!;
    expect(s.entries.at(-1)).toMatchObject({ customType: 'swe-agent:info', display: 'Exit status: unknown' });
  });
});
