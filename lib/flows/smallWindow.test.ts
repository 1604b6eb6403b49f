import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry } from '@/lib/session/types';
import { loadSessions } from '@/lib/testing/compactionData';
import { openSession, scriptedTransport, testModel, testPorts } from '@/lib/testing/flowPorts';
import { messageText } from '@/lib/session/messages';
import { AppFlows } from './app';
import { sessionEnv, type SessionEnv } from './session';
import { autoCompactLimit } from './compaction';
import { scaledSettingText } from '@/lib/compaction/policy';

/** Requests and answers of a real agent session (pi), paired in order: what a chat with a small local model looks like. */
function realTurns(): { prompt: string; reply: string }[] {
  const path = loadSessions('piV1')[0]!.path;
  const texts = (role: 'user' | 'assistant') =>
    path.flatMap((e) => (e.type === 'message' && e.message.role === role ? [messageText(e.message).trim()] : [])).filter((t) => t.length >= (role === 'user' ? 200 : 400));
  const prompts = texts('user');
  const replies = texts('assistant');
  return prompts.slice(0, Math.min(prompts.length, replies.length)).map((prompt, i) => ({ prompt, reply: replies[i]! }));
}

/** A summarizer that writes as long as it is allowed (60 % of the request's output limit), from the conversation's own words. */
function writesToBudget(prompt: string, maxOutputTokens: number | undefined): string {
  const words = (/<conversation>([^]*)<\/conversation>/.exec(prompt)?.[1] ?? prompt).split(/\s+/).filter((w) => /^[a-z]{3,}$/i.test(w));
  const chars = Math.floor((maxOutputTokens ?? 1_000) * 0.6 * 4);
  let body = '';
  for (let i = 0; body.length < chars && words.length; i++) body += `${words[i % words.length]} `;
  return `## Goal\n${body.trim()}\n\n## Next Steps\n1. Continue.`;
}

async function replay(window: number, windowed: boolean, turns: number) {
  const ports = testPorts({ transport: scriptedTransport({ summary: writesToBudget }) });
  const flows = new AppFlows(ports);
  const row = await ports.store.createSession();
  const model = testModel('openai:gpt-4o-mini', window, 4_000);
  const raw = { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS };
  const env: SessionEnv = windowed ? sessionEnv(raw) : raw;
  const s = await openSession(flows, row.id, env);
  const source = realTurns();
  const compactedAt: number[] = [];
  let seen = 0;
  for (let t = 0; t < turns; t++) {
    const { prompt, reply } = source[t % source.length]!;
    ports.transport.script({ text: reply.slice(0, 1_000) });
    await s.send(prompt.slice(0, 600));
    await s.idle();
    const n = (await compactions()).length;
    if (n > seen) compactedAt.push(t);
    seen = n;
  }
  async function compactions() {
    return (await ports.store.loadSession(row.id))!.entries.filter((e): e is CompactionEntry => e.type === 'compaction');
  }
  return { compactedAt, compactions: await compactions(), notices: ports.notices, env: s.env() };
}

const consecutive = (turns: number[]) => turns.filter((t, i) => i > 0 && turns[i - 1] === t - 1).length;

describe('a small window (3,000 tokens) with the default settings', () => {
  it('as the settings stand, compactions come turn after turn: the summary may be four times the window and the limit is half of it', async () => {
    const { compactedAt } = await replay(3_000, false, 24);
    expect(compactedAt.length).toBeGreaterThanOrEqual(8);
    expect(consecutive(compactedAt)).toBeGreaterThan(0);
  }, 60_000);

  it('scaled to the window, every compaction leaves room for more than one turn', async () => {
    const { compactedAt, compactions, notices, env } = await replay(3_000, true, 24);
    expect(env.settings).toMatchObject({ reserveTokens: 750, keepRecentTokens: 600 });
    expect(compactedAt.length).toBeGreaterThanOrEqual(3);
    expect(consecutive(compactedAt)).toBe(0);
    const limit = 3_000 - 750;
    // A third of the window stays free below the limit: room for a few turns.
    for (const c of compactions) expect(limit - c.tokensAfter!).toBeGreaterThanOrEqual(1_000);
    // Nothing went wrong on the way: no rejected summary, no refusal.
    expect(notices.filter((n) => n.level !== 'success')).toEqual([]);
  }, 60_000);
});

describe('one set of scaled settings', () => {
  it('the meter’s limit, the Compact dialog’s preview and the worker all get the settings scaled to the window, and say so', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = await ports.store.createSession();
    const model = testModel('compat:mock-small', 8_192);
    const env = sessionEnv({ chatModel: model, settings: DEFAULT_COMPACTION_SETTINGS });
    expect(env.scaled?.map(scaledSettingText)).toEqual([
      'Reserve 16,384 is more than a quarter of this model’s 8,192-token window: 2,048 is used.',
      'Keep recent 20,000 is more than a fifth of this model’s 8,192-token window: 1,638 is used.',
    ]);
    expect(autoCompactLimit(env)).toBe(8_192 - 2_048);
    const s = await openSession(flows, row.id, env);
    for (const { prompt, reply } of realTurns().slice(0, 14)) {
      ports.transport.script({ text: reply });
      await s.send(prompt);
      await s.idle();
    }
    const preview = await s.previewCompaction();
    expect(preview.ok).toBe(true);
    // Kept from the scaled keep-recent on (the nearest valid cut at or before it), not from 20,000.
    if (preview.ok) {
      expect(preview.keep.tokens).toBeGreaterThanOrEqual(1_638);
      expect(preview.keep.tokens).toBeLessThan(preview.tokensBefore);
    }
    // With the settings as written the cut rule clamps keep-recent to a tenth of the window instead.
    s.setEnv({ ...env, settings: DEFAULT_COMPACTION_SETTINGS });
    const raw = await s.previewCompaction();
    expect(raw.ok && preview.ok && raw.keep.tokens < preview.keep.tokens).toBe(true);
  }, 30_000);
});
