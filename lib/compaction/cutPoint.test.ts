import { describe, expect, it } from 'vitest';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { prepareCompaction, previewCompaction } from './prepare';

const len = textLengthTokens;

const S = (keepRecentTokens: number, extra: Partial<CompactionSettings> = {}): CompactionSettings => ({
  ...DEFAULT_COMPACTION_SETTINGS,
  keepRecentTokens,
  ...extra,
});
const x = (n: number) => 'x'.repeat(n);

function prep(b: TreeBuilder, keep: number, opts: Parameters<typeof prepareCompaction>[3] = {}) {
  const path = b.entries.slice();
  // The builder appends in path order unless `at` was used; tests that branch pass their own path.
  return { path, p: prepareCompaction(path, pathTokensFromCounts(path.map(len)), S(keep), opts) };
}

function kind(e: SessionEntry | undefined): string {
  return e?.type === 'message' ? e.message.role : String(e?.type);
}

describe('cut point rules', () => {
  it('keeps at least keepRecentTokens and cuts at the nearest valid point at or before the budget', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const { p } = prep(b, 250);
    expect(p).not.toBeNull();
    // 300 tokens from a2 on is the smallest suffix ≥ 250 that starts at a valid cut.
    expect(p!.firstKeptEntryId).toBe('a2');
    expect(p!.tokensKept).toBe(300);
    expect(p!.isSplitTurn).toBe(true);
    expect(p!.messagesToSummarize.map((i) => i.entryId)).toEqual(['u1', 'a1']);
    expect(p!.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u2']);
  });

  it('trailing tool results bigger than the budget: walks back to the assistant that owns them (pi 7201 / 6879)', () => {
    const b = new TreeBuilder();
    b.user(x(500), 'u1');
    b.assistant(x(500), 'a1');
    b.user(x(300), 'u2');
    b.assistant([{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: '/a' } }, { type: 'toolCall', id: 'c2', name: 'read', arguments: { path: '/b' } }], 'a2');
    b.toolResult('c1', 'read', x(4000), 't1');
    b.toolResult('c2', 'read', x(4000), 't2');
    const { path, p } = prep(b, 1000);
    expect(p).not.toBeNull();
    const kept = path.find((e) => e.id === p!.firstKeptEntryId);
    expect(kind(kept)).not.toBe('toolResult');
    expect(p!.firstKeptEntryId).toBe('a2');
    expect(p!.tokensKept).toBe(8020); // two calls (10 each) + two results
    // Both results stay with their call.
    expect(p!.messagesToSummarize.some((i) => i.kind === 'message' && i.message.role === 'toolResult')).toBe(false);
    expect(p!.isSplitTurn).toBe(true);
  });

  it('parallel calls written as separate assistant entries (Claude Code) are never cut apart from their results', () => {
    const b = new TreeBuilder();
    b.user(x(500), 'u1');
    b.assistant(x(500), 'a1');
    b.user(x(500), 'u2');
    b.toolCall('Read', { file_path: '/a' }, 'cA', 'aA');
    b.toolCall('Read', { file_path: '/b' }, 'cB', 'aB');
    b.toolResult('cA', 'Read', x(300), 'tA');
    b.toolResult('cB', 'Read', x(300), 'tB');
    b.assistant(x(50), 'a2');
    for (let keep = 1; keep < 1700; keep += 13) {
      const { path, p } = prep(b, keep);
      if (!p) continue;
      // Cutting at aB would keep tA without its call.
      expect(p.firstKeptEntryId, `keep ${keep}`).not.toBe('aB');
      const keptIds = new Set(path.slice(p.firstKeptIndex).map((e) => e.id));
      if (keptIds.has('tA')) expect(keptIds.has('aA')).toBe(true);
    }
  });

  it('a single turn made only of tool work still has a cut: the user message goes to the turn prefix', () => {
    const b = new TreeBuilder();
    b.user(x(200), 'u1');
    b.toolCall('bash', { command: 'ls' }, 'c1', 'a1');
    b.toolResult('c1', 'bash', x(3000), 't1');
    b.toolCall('bash', { command: 'ls -la' }, 'c2', 'a2');
    b.toolResult('c2', 'bash', x(3000), 't2');
    const { p } = prep(b, 2000);
    expect(p).not.toBeNull();
    expect(p!.firstKeptEntryId).toBe('a2');
    expect(p!.isSplitTurn).toBe(true);
    expect(p!.messagesToSummarize).toEqual([]);
    expect(p!.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u1', 'a1', 't1']);
  });

  it('labels, custom records, branch summaries and compactions are never the first kept entry', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.branchSummary(x(100), 'zz', 'bs');
    b.label('u1', 'start', 'l1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    for (let keep = 1; keep <= 450; keep += 7) {
      const { path, p } = prep(b, keep);
      if (!p) continue;
      const kept = path.find((e) => e.id === p.firstKeptEntryId)!;
      expect(kept.type, `keep ${keep}`).toBe('message');
      expect(kind(kept)).not.toBe('toolResult');
    }
    // With keep 150 the budget is reached inside the label / branch summary: the cut goes back to a1,
    // and the branch summary is kept verbatim after it.
    const { p } = prep(b, 250);
    expect(p!.firstKeptEntryId).toBe('a1');
  });

  it('a short turn prefix is kept whole instead of getting its own summary', () => {
    const b = new TreeBuilder();
    b.user(x(2000), 'u1');
    b.assistant(x(2000), 'a1');
    b.user(x(50), 'u2');
    b.assistant(x(1000), 'a2');
    b.assistant(x(1000), 'a3');
    // keep 1800: the budget is reached at a2; u2 (50 ≤ 10 % of 1800) is not worth a summary.
    const { p } = prep(b, 1800);
    expect(p!.firstKeptEntryId).toBe('u2');
    expect(p!.isSplitTurn).toBe(false);
    expect(p!.tokensKept).toBe(2050);
    // A big prefix stays split.
    const b2 = new TreeBuilder();
    b2.user(x(2000), 'u1');
    b2.assistant(x(2000), 'a1');
    b2.user(x(900), 'u2');
    b2.assistant(x(1000), 'a2');
    b2.assistant(x(1000), 'a3');
    const r2 = prep(b2, 1800).p!;
    expect(r2.firstKeptEntryId).toBe('a2');
    expect(r2.isSplitTurn).toBe(true);
    expect(r2.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u2']);
  });

  it('returns null when everything fits in keep-recent, unless forced (then keeps the last turn)', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    expect(prep(b, 10_000).p).toBeNull();
    const path = b.entries.slice();
    const preview = previewCompaction(path, pathTokensFromCounts(path.map(len)), S(10_000));
    expect(preview).toMatchObject({ ok: false, reason: 'below-keep-recent' });
    const forced = prep(b, 10_000, { force: true }).p!;
    expect(forced.firstKeptEntryId).toBe('u2');
    expect(forced.messagesToSummarize.map((i) => i.entryId)).toEqual(['u1', 'a1']);
    expect(forced.force).toBe(true);
  });

  it('an empty path or a path without messages has nothing to compact', () => {
    expect(prepareCompaction([], pathTokensFromCounts([]), S(10))).toBeNull();
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    expect(prep(b, 1, { force: true }).p).toBeNull();
  });

  it('clamps keep-recent to the chat window so a small model still gets a cut that fits', () => {
    const b = new TreeBuilder();
    for (let i = 0; i < 20; i++) {
      b.user(x(500), `u${i}`);
      b.assistant(x(500), `a${i}`);
    }
    const path = b.entries.slice();
    const t = pathTokensFromCounts(path.map(len));
    const settings = S(20_000, { reserveTokens: 2000 });
    // 20 000 keep-recent cannot work in an 8 000 window: clamped to 8000 − 2000 − 1600 = 4400.
    const p = prepareCompaction(path, t, settings, { window: 8000 })!;
    expect(p.keepRecentTokens).toBe(4400);
    // The nearest cut at or before the line would keep 4500, over the room: the window wins, 4000 are kept.
    expect(p.tokensKept).toBe(4000);
    expect(p.estimatedTokensAfter).toBeLessThanOrEqual(8000 - 2000);
  });
});

describe('fitting the chat window', () => {
  it('when stepping back to a valid cut overshoots the window, the window wins over keep-recent', () => {
    const b = new TreeBuilder();
    b.user(x(1000), 'u1');
    b.assistant(x(1000), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(5000), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(500), 'a3');
    const path = b.entries.slice();
    const t = pathTokensFromCounts(path.map(len));
    const settings = S(1000, { reserveTokens: 2000 });
    // No window: keep ≥ 1000 means keeping the 5000-token reply (and its 100-token prompt, too small to summarise apart).
    expect(prepareCompaction(path, t, settings)).toMatchObject({ firstKeptEntryId: 'u2', tokensKept: 5700 });
    // A 5000-token window leaves 5000 − 2000 − 1600 = 1400 for the kept tail: cut after the big reply instead.
    const p = prepareCompaction(path, t, settings, { window: 5000 })!;
    expect(p).toMatchObject({ firstKeptEntryId: 'u3', tokensKept: 600, isSplitTurn: false });
    expect(p.estimatedTokensAfter).toBeLessThanOrEqual(5000 - 2000);
  });
});

describe('previous compactions', () => {
  function compacted() {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.compaction('SUMMARY-ONE', 'u2', 400, 'c1');
    return b;
  }

  it('messages kept by the previous compaction are summarised by the next one (pi PR 1585)', () => {
    const b = compacted();
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    b.user(x(100), 'u4');
    b.assistant(x(100), 'a4');
    const { p } = prep(b, 150);
    expect(p!.summarizeFromIndex).toBe(2);
    expect(p!.messagesToSummarize.map((i) => i.entryId)).toEqual(['u2', 'a2', 'u3', 'a3']);
    expect(p!.previousSummary).toBe('SUMMARY-ONE');
    expect(p!.previousCompactionId).toBe('c1');
    // The compaction entry itself is not summarised as a message.
    expect(p!.messagesToSummarize.some((i) => i.entryId === 'c1')).toBe(false);
    // tokensBefore counts the summary in effect plus what the model sees from its kept start.
    expect(p!.tokensBefore).toBe('SUMMARY-ONE'.length + 600);
  });

  it('an already-compacted tail is not compacted again, even forced or behind a label', () => {
    const b = compacted();
    expect(prep(b, 1).p).toBeNull();
    expect(prep(b, 1, { force: true }).p).toBeNull();
    b.label('a2', 'here', 'l1');
    expect(prep(b, 1, { force: true }).p).toBeNull();
    const path = b.entries.slice();
    expect(previewCompaction(path, pathTokensFromCounts(path.map(len)), S(1))).toMatchObject({ ok: false, reason: 'already-compacted' });
  });

  it('nothing new before the cut: no compaction', () => {
    const b = compacted();
    b.user(x(10), 'u3');
    // Region u2..u3 is 210 tokens; keeping 200 leaves only u2 before a valid cut at a2 — but
    // keep 205 needs the cut at u2 itself, which would summarise nothing.
    expect(prep(b, 205).p).toBeNull();
    const p = prep(b, 100).p!;
    expect(p.firstKeptEntryId).toBe('a2');
  });

  it('an undone compaction is skipped; a regenerated one gives its new text', () => {
    const b = compacted();
    b.revision('c1', 'undo', undefined, 'r1');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const undone = prep(b, 150).p!;
    expect(undone.previousSummary).toBeNull();
    expect(undone.summarizeFromIndex).toBe(0);
    expect(undone.messagesToSummarize[0]!.entryId).toBe('u1');

    const b2 = compacted();
    b2.revision('c1', 'regenerate', 'SUMMARY-TWO', 'r1');
    b2.user(x(100), 'u3');
    b2.assistant(x(100), 'a3');
    expect(prep(b2, 150).p!.previousSummary).toBe('SUMMARY-TWO');
  });

  it('a compaction that kept itself (pi v1 data) starts the next region after it', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.compaction('S', 'c1', 200, 'c1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const { p } = prep(b, 150);
    expect(p!.messagesToSummarize[0]!.entryId).toBe('u2');
  });
});

describe('keep-recent 0', () => {
  const base = () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    return b;
  };

  it('keeps nothing of a conversation at rest: everything is summarised, the cut is past the end', () => {
    const b = base();
    b.assistant(x(100), 'a2');
    b.label('a2', 'done');
    const { path, p } = prep(b, 0);
    expect(p).toMatchObject({ keepsNothing: true, firstKeptIndex: path.length, tokensKept: 0, isSplitTurn: false, summarizedEntryCount: 4 });
    // The caller names the compaction itself as its first kept entry; until then the preparation names the leaf.
    expect(p!.firstKeptEntryId).toBe(path.at(-1)!.id);
    const preview = previewCompaction(path, pathTokensFromCounts(path.map(len)), S(0));
    expect(preview).toMatchObject({ ok: true, keep: { entryCount: 0, messageCount: 0, tokens: 0 }, keptBecause: null });
  });

  it('keeps the prompt that has not been answered yet, and says why', () => {
    const { path, p } = prep(base(), 0);
    expect(p).toMatchObject({ keepsNothing: false, firstKeptEntryId: 'u2', tokensKept: 100 });
    expect(previewCompaction(path, pathTokensFromCounts(path.map(len)), S(0))).toMatchObject({ ok: true, keptBecause: 'unanswered-prompt' });
  });

  it('keeps tool calls with their results while the model is still answering them, and says why', () => {
    const b = base();
    b.toolCall('read', { path: 'a.ts' }, 'c1', 'call');
    b.toolResult('c1', 'read', x(50), 'result');
    const { path, p } = prep(b, 0);
    expect(p).toMatchObject({ keepsNothing: false, firstKeptEntryId: 'call' });
    expect(previewCompaction(path, pathTokensFromCounts(path.map(len)), S(0))).toMatchObject({ ok: true, keptBecause: 'tool-turn' });
    // A call still waiting for its result is pending too.
    const waiting = base();
    waiting.toolCall('read', { path: 'a.ts' }, 'c1', 'call');
    expect(prep(waiting, 0).p).toMatchObject({ keepsNothing: false, firstKeptEntryId: 'call' });
  });

  it('a keep-recent above 0 is unchanged: the last reply is kept', () => {
    const b = base();
    b.assistant(x(100), 'a2');
    expect(prep(b, 1).p).toMatchObject({ keepsNothing: false, firstKeptEntryId: 'a2' });
  });
});
