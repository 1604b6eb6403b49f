import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { createTokensService } from './service';

function fixturePath(name: 'piV1' | 'claudeLog') {
  const [snap] = importText(readFixture(name), { fileName: `${name}.jsonl` }).sessions;
  return buildSessionContext(snap!.entries, snap!.meta.leafId).path;
}

describe('token worker: timeline support', () => {
  it('splits the context into system, summaries, messages, tool results and attachments', async () => {
    const api = createTokensService();
    const path = fixturePath('claudeLog');
    const update = await api.loadPath('s', path, { model: 'anthropic:claude-sonnet-4-5', systemPrompt: 'Be brief.', contextWindow: 200_000 });
    const b = api.contextBreakdown('s');
    expect(b.system).toBeGreaterThan(0);
    expect(b.messages).toBeGreaterThan(0);
    expect(b.toolResults).toBeGreaterThan(0);
    // The ~1 MB PNG in this transcript is an attachment priced by its pixels, not its base64.
    expect(b.attachments).toBeGreaterThan(100);
    expect(b.attachments).toBeLessThan(5_000);
    expect(b.summaries).toBe(0);
    expect(b.total).toBe(b.system + b.summaries + b.messages + b.toolResults + b.attachments);
    expect(b.free).toBe(200_000 - b.total);
    // The meter here is anchored on Claude Code's reported usage, which includes its hidden system prompt: above our count.
    expect(update.figure.source).toBe('usage+estimate');
    expect(update.figure.tokens).toBeGreaterThan(b.total);
  });

  it('counts the summary in effect as a summary after a compaction', async () => {
    const api = createTokensService();
    await api.loadPath('p', fixturePath('piV1'), { model: 'anthropic:claude-opus-4-5' });
    const b = api.contextBreakdown('p');
    expect(b.summaries).toBeGreaterThan(500);
    expect(b.messages).toBeLessThan(b.summaries * 10);
  });

  it('prepares a regeneration of a real imported compaction with its original cut', async () => {
    const api = createTokensService();
    const path = fixturePath('piV1');
    await api.loadPath('p', path, { model: 'anthropic:claude-opus-4-5' });
    const first = path.find((e) => e.type === 'compaction')!;
    const res = await api.prepareRegeneration('p', first.id, DEFAULT_COMPACTION_SETTINGS, { model: 'anthropic:claude-opus-4-5', window: 200_000, maxOutputTokens: 8000 });
    expect(res).not.toBeNull();
    expect(res!.prep.firstKeptEntryId).toBe(first.type === 'compaction' ? first.firstKeptEntryId : '');
    expect(res!.prep.previousSummary).toBeNull();
    expect(res!.prep.messagesToSummarize.length).toBeGreaterThan(100);
    for (const step of res!.plan!.history) expect(step.inputTokens + step.maxOutputTokens).toBeLessThanOrEqual(200_000);
    // The second compaction updates the first one's summary.
    const second = path.filter((e) => e.type === 'compaction')[1]!;
    const res2 = await api.prepareRegeneration('p', second.id, DEFAULT_COMPACTION_SETTINGS);
    expect(res2!.prep.previousSummary).toContain('Context Checkpoint Summary');
    // It kept nothing (pi wrote its own index as the first kept one): everything since the first cut is summarised.
    expect(res2!.prep.firstKeptEntryId).toBe(second.id);
    expect(res2!.prep.tokensKept).toBe(0);
    expect(res2!.prep.messagesToSummarize.at(-1)!.entryId).toBe(path[path.indexOf(second) - 1]!.id);
    expect(await api.prepareRegeneration('p', 'not-there', DEFAULT_COMPACTION_SETTINGS)).toBeNull();
  });
});
