import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { readFixture } from '@/lib/testing/fixtures';
import { countBy, expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { readSweAgent } from './sweAgent';

describe('SWE-agent trajectory fixture (pydicom__pydicom-1458.traj)', () => {
  const text = readFixture('sweTraj');
  const doc = JSON.parse(text) as Raw;
  const history = doc.history as Raw[];
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => readSweAgent(text, { fileName: 'pydicom__pydicom-1458.traj' }).sessions[0]!;

  it('takes the first system message as the system prompt', () => {
    const s = read();
    expect(history[0]!.role).toBe('system');
    expect(s.meta.systemPrompt).toBe(history[0]!.content);
    expect(s.meta.title).toBe('SWE-agent: pydicom__pydicom-1458');
  });

  it('turns actions into bash tool calls and the following observations into their results', () => {
    const s = read();
    expectWellFormed(s);
    const assistants = history.filter((h) => h.role === 'assistant');
    const observations = history.filter((h, i) => h.role === 'user' && history[i - 1]?.role === 'assistant' && typeof history[i - 1]!.action === 'string');
    const plainUsers = history.filter((h) => h.role === 'user').length - observations.length;
    expect(countBy(s.entries)).toEqual({ user: plainUsers, assistant: assistants.length, toolResult: observations.length, custom: 1 });
    expect(assistants).toHaveLength(12);
    const calls = s.entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content : [])).filter((p) => p.type === 'toolCall');
    expect(calls.map((c) => c.type === 'toolCall' && c.arguments.command)).toEqual(assistants.map((a) => (a.action as string).replace(/\n$/, '')));
    expect(expectToolResultsPaired(s)).toBe(observations.length);
  });

  it('keeps the demo and the task as user messages', () => {
    const s = read();
    const users = s.entries.filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => (e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : ''))).toEqual(
      history.filter((h, i) => h.role === 'user' && !(history[i - 1]?.role === 'assistant')).map((h) => h.content),
    );
    expect(history.some((h) => h.is_demo === true)).toBe(true);
  });

  it('ends with the run result and gives a sensible context', () => {
    const s = read();
    const last = s.entries[s.entries.length - 1]!;
    expect(last).toMatchObject({ type: 'custom', customType: 'swe-agent:info', data: { exit_status: (doc.info as Raw).exit_status } });
    expect(s.meta.leafId).toBe(last.id);
    const ctx = buildSessionContext(s.entries, s.meta.leafId);
    expect(ctx.items).toHaveLength(s.entries.length - 1);
  });
});
