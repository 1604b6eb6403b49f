import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { RunKind } from './runs';

/**
 * A summary job that reports on a run already on screen (the reply's, during
 * an overflow recovery) leaves that run to its owner: the retried reply
 * streams into the same run, which ends only with the reply.
 */

/** A stored session of three long question-and-answer turns, keeping 300 recent tokens, on a 128k model. */
async function threeTurns() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const model = testModel('compat:mock-large', 128_000, 4_000);
  const s = await openSession(flows, row.id, { chatModel: model, summarizer: model, settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 300 }, title: row.title });
  for (let i = 0; i < 3; i++) {
    ports.transport.script({ text: `Answer ${i + 1}: ${'lifetimes, borrows and moves in Rust. '.repeat(30)}` });
    await s.send(`Question ${i + 1}: ${'tell me more about ownership. '.repeat(5)}`);
    await s.idle();
  }
  return { ports, flows, row, model, s };
}

describe('a summary on the reply’s run', () => {
  it('the overflow recovery does not end the reply’s run: the retry streams into it', async () => {
    const { ports, flows, row, s } = await threeTurns();
    const seen: { kind: RunKind; status?: string; text: string }[] = [];
    flows.runs.subscribe(() => {
      const r = flows.runs.get(row.id);
      seen.push(r ? { kind: r.kind, ...(r.status ? { status: r.status } : {}), text: r.text } : { kind: 'reply', status: 'ended', text: '' });
    });
    const retry = 'Now it fits, after the compaction made room.';
    ports.transport.script({ error: { kind: 'context_overflow', message: 'prompt is too long: 230000 tokens > 128000 maximum' } }, { text: retry, chunk: 6, delayMs: 40 });
    await s.send('One more thing.');
    await s.idle();
    const recovering = seen.findIndex((r) => r.status?.startsWith('The provider said the context is too long'));
    expect(recovering).toBeGreaterThanOrEqual(0);
    const after = seen.slice(recovering + 1);
    const firstEnd = after.findIndex((r) => r.status === 'ended');
    // Before the run ends, the retried reply has shown in it.
    expect(after.slice(0, firstEnd === -1 ? undefined : firstEnd).some((r) => r.kind === 'reply' && r.text.length > 0 && retry.startsWith(r.text))).toBe(true);
    expect(flows.runs.get(row.id)).toBeUndefined();
  });
});

describe('the summary engine', () => {
  it('a summarizer without a chat model writes the summary with the model', async () => {
    const { ports, row, model, s } = await threeTurns();
    s.setEnv({ ...s.env(), chatModel: undefined });
    const id = (await s.compact({ reason: 'manual' }))!;
    expect(id).not.toBeNull();
    const entry = (await ports.store.loadSession(row.id))!.entries.find((e) => e.id === id)!;
    expect(entry.type === 'compaction' && entry.details.summarizer).toEqual({ kind: 'model', model: model.id });
    expect(ports.transport.summaryPrompts.length).toBeGreaterThan(0);
  });
});
