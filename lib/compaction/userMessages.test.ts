import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type SessionEntry } from '@/lib/session/types';
import { countText, loadSession, loadSessions, pathTokens } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { compact, compactionEntryFrom } from './compact';
import { planSummary } from './plan';
import { prepareCompaction } from './prepare';
import { renderUserMessages, splitUserMessages, type UserMessageRecord } from './userMessages';

/** The user's words as the test reads them from a transcript: text parts only, joined by newlines. */
function userTexts(path: readonly SessionEntry[]): string[] {
  const out: string[] = [];
  for (const e of path) {
    if (e.type !== 'message' || e.message.role !== 'user') continue;
    const text = e.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n').trim();
    if (text && e.message.content.every((p) => p.type === 'text')) out.push(text);
  }
  return out;
}

describe('the user-messages section', () => {
  const real = [...userTexts(loadSession('piV1').path), ...loadSessions('claudeLog').flatMap((s) => userTexts(s.path))];

  it('reads back exactly what it wrote, for every real user message of pi and Claude Code (multi-line, quotes, code, blank lines)', () => {
    expect(real.length).toBeGreaterThan(70);
    expect(real.some((t) => t.includes('\n\n'))).toBe(true);
    const records: UserMessageRecord[] = real.map((text) => ({ text, full: true }));
    const section = renderUserMessages(records, 10_000_000);
    const back = splitUserMessages(`## Goal\nSomething.\n\n${section}\n\n<modified-files>\n/a.ts\n</modified-files>`);
    expect(back.records).toEqual(records);
    expect(back.rest).toBe('## Goal\nSomething.\n\n<modified-files>\n/a.ts\n</modified-files>');
  });

  it('over budget: the newest are verbatim, older ones by their first line, oldest first in order; the size holds', () => {
    const records: UserMessageRecord[] = real.map((text) => ({ text, full: true }));
    const budget = 16_000;
    const section = renderUserMessages(records, budget);
    expect(section.length).toBeLessThanOrEqual(budget);
    const back = splitUserMessages(section).records;
    expect(back).toHaveLength(records.length);
    // When even the shortened first lines do not fit, the oldest but the first are left out, and the section says how many.
    const tight = renderUserMessages(records, 4000);
    expect(tight.length).toBeLessThanOrEqual(4000);
    const kept = splitUserMessages(tight).records;
    const leftOut = kept.filter((r) => r.leftOut).length;
    expect(leftOut).toBeGreaterThan(0);
    expect(tight).toContain(`… ${leftOut} user messages left out for space …`);
    expect(kept).toHaveLength(records.length);
    // The first request stays, verbatim or by its first line.
    expect(kept[0]!.leftOut).toBeFalsy();
    expect(records[0]!.text.trimStart().startsWith(kept[0]!.text.replace(/…$/, ''))).toBe(true);
    expect(kept.at(-1)).toEqual(records.at(-1));
    const verbatim = back.map((r, i) => (r.full ? i : -1)).filter((i) => i >= 0);
    expect(verbatim.length).toBeGreaterThan(3);
    // The newest message is verbatim; every shortened one is its message's first line.
    expect(back.at(-1)).toEqual(records.at(-1));
    back.forEach((r, i) => {
      if (r.full) expect(r.text).toBe(records[i]!.text);
      else expect(records[i]!.text.split('\n').find((l) => l.trim())!.trim().startsWith(r.text.replace(/…$/, ''))).toBe(true);
    });
    // Newest first: a message newer than a verbatim one was shortened only because it is bigger than that one.
    const oldestVerbatim = Math.min(...verbatim);
    for (let i = oldestVerbatim + 1; i < back.length; i++) if (!back[i]!.full) expect(records[i]!.text.length).toBeGreaterThan(records[oldestVerbatim]!.text.length);
  });

  it('a model summary that leaves the user messages out gets them attached; the next compaction merges them (real pi regions)', async () => {
    const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
    const { model, calls } = scriptedModel(() => '## Goal\nWork on pi.\n\n## Next Steps\n1. Continue.');
    const path: SessionEntry[] = [];
    const summaries: string[] = [];
    const spans: SessionEntry[][] = [];
    for (const stop of [300, 600]) {
      path.push(...messages.slice(path.filter((e) => e.type === 'message').length, stop));
      const prep = prepareCompaction(path, pathTokens(path), DEFAULT_COMPACTION_SETTINGS)!;
      const ids = new Set([...prep.messagesToSummarize, ...prep.turnPrefixMessages].map((i) => i.entryId));
      spans.push(path.filter((e) => ids.has(e.id)));
      const plan = planSummary(prep, { window: 128_000, maxOutputTokens: 8000, countText });
      const r = (await compact(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }, { countTokens: countText }))!;
      summaries.push(r.summary);
      path.push({ ...compactionEntryFrom(r), id: `c${stop}`, parentId: path.at(-1)!.id, timestamp: 0 } as CompactionEntry);
    }
    // The prompt says the app attaches them, and the earlier section is not fed back to the model.
    expect(calls[0]!.prompt).toContain('The application attaches every user message of the transcript');
    for (const c of calls) expect(c.prompt).not.toContain('## User messages');
    // Every user message of the first span is in the first summary, verbatim (the budget is ample here).
    const firstRegion = userTexts(spans[0]!);
    expect(firstRegion.length).toBeGreaterThan(5);
    for (const t of firstRegion) expect(summaries[0]).toContain(t.split('\n').map((l) => (l === '' ? '>' : `> ${l}`)).join('\n'));
    // Everything verbatim in the first summary is still in the second (verbatim, or its first line when the budget ran out).
    const second = splitUserMessages(summaries[1]!).records;
    for (const t of firstRegion) expect(second.some((r) => (r.full ? r.text === t : t.startsWith(r.text.replace(/…$/, ''))))).toBe(true);
    expect(summaries[1]!.split('## User messages')).toHaveLength(2);
    expect(summaries[1]!.startsWith('## Goal\nWork on pi.')).toBe(true);
  });
});
