import { describe, expect, it } from 'vitest';
import type { EntryId, PinEntry, SessionEntry, ToolMaskEntry } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { entryTokens, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { MIN_MASK_SAVING, planToolMask } from './mask';

/** A stub costs 20 tokens whatever it replaces (the app counts its one line). */
const STUB = 20;
const stubTokens = () => STUB;
const x = (n: number) => 'x'.repeat(n);

const pin = (targetId: EntryId, id: string): PinEntry => ({ type: 'pin', targetId, pinned: true, id, parentId: null, timestamp: 0 });
const mask = (maskedIds: EntryId[], id: string): ToolMaskEntry => ({ type: 'tool_mask', maskedIds, tokensBefore: 0, tokensAfter: 0, protectTokens: 0, id, parentId: null, timestamp: 0 });

/** u1, then `n` calls each answered by a result of `size` tokens, then a short closing turn. */
function toolWork(n: number, size: number): TreeBuilder {
  const b = new TreeBuilder();
  b.user(x(100), 'u1');
  for (let i = 1; i <= n; i++) {
    b.toolCall('bash', { command: `step ${i}` }, `c${i}`, `a${i}`);
    b.toolResult(`c${i}`, 'bash', x(size), `t${i}`);
  }
  b.user(x(50), 'u2');
  b.assistant(x(50), 'aEnd');
  return b;
}

const plan = (path: SessionEntry[], protectTokens: number, extra: { contextTokens?: number; countedTokens?: number } = {}) =>
  planToolMask(path, pathTokensFromCounts(path.map(textLengthTokens)), { protectTokens, stubTokens, ...extra });

describe('observation masking plan', () => {
  it('masks every old result before the protected window, none inside it, and the figures add up', () => {
    // u1 100 | a1 10 t1 500 | a2 10 t2 500 | a3 10 t3 500 | u2 50 | aEnd 50
    const path = toolWork(3, 500).entries.slice();
    // The protected window is walked back from the leaf until it holds protectTokens: aEnd and u2 hold 100.
    // 600 is reached at t3, so t3 is protected and t1, t2 are masked.
    const p = plan(path, 600)!;
    expect(p.maskedIds).toEqual(['t1', 't2']);
    expect(p.saved).toBe(2 * (500 - STUB));
    const context = path.reduce((n, e) => n + textLengthTokens(e), 0);
    expect(p.tokensBefore).toBe(context);
    expect(p.tokensAfter).toBe(context - p.saved);
    expect(p.protectTokens).toBe(600);
    // 101 needs t3 too; exactly 100 is held by aEnd and u2 alone, so t3 is old enough to mask.
    expect(plan(path, 101)!.maskedIds).toEqual(['t1', 't2']);
    expect(plan(path, 100)!.maskedIds).toEqual(['t1', 't2', 't3']);
    // Protecting everything masks nothing.
    expect(plan(path, 10_000)).toBeNull();
  });

  it('a result whose stub saves less than the minimum is left alone; one that saves exactly the minimum is masked', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.toolCall('bash', { command: 'ls' }, 'c1', 'a1');
    b.toolResult('c1', 'bash', x(STUB + MIN_MASK_SAVING - 1), 't1');
    b.toolCall('bash', { command: 'ls -la' }, 'c2', 'a2');
    b.toolResult('c2', 'bash', x(STUB + MIN_MASK_SAVING), 't2');
    b.user(x(50), 'u2');
    const p = plan(b.entries.slice(), 1)!;
    expect(p.maskedIds).toEqual(['t2']);
    expect(p.saved).toBe(MIN_MASK_SAVING);
  });

  it('results already masked, results with an image, and results of a pinned call are not masked again', () => {
    const b = toolWork(4, 500);
    const path = b.entries.slice();
    // t2 carries an image besides its text: a stub would drop it.
    const t2 = path.find((e) => e.id === 't2')!;
    if (t2.type === 'message' && t2.message.role === 'toolResult') t2.message.content.push({ type: 'image', mimeType: 'image/png', data: '' });
    path.push(mask(['t1'], 'm1'), pin('a3', 'p1'));
    const p = plan(path, 1)!;
    expect(p.maskedIds).toEqual(['t4']);
    // Undoing the earlier mask makes t1 maskable again; unpinning frees t3.
    const undone = [...path, { type: 'summary_revision', targetId: 'm1', action: 'undo', id: 'r1', parentId: null, timestamp: 0 } as SessionEntry];
    expect(plan(undone, 1)!.maskedIds).toEqual(['t1', 't4']);
    const unpinned = [...path, { ...pin('a3', 'p2'), pinned: false }];
    expect(plan(unpinned, 1)!.maskedIds).toEqual(['t3', 't4']);
  });

  it('only the context after the compaction in effect is masked; the summary and pinned messages count in the figure', () => {
    const b = toolWork(4, 500);
    // Compacted with a2 as the first kept entry: t1 is summarised and no longer in the context.
    b.compaction(x(300), 'a2', 2000, 'cmp');
    b.user(x(40), 'u3');
    const path = b.entries.slice();
    const p = plan(path, 1)!;
    expect(p.maskedIds).toEqual(['t2', 't3', 't4']);
    const idx = (id: string) => path.findIndex((e) => e.id === id);
    const len = (from: number, to: number) => path.slice(from, to).reduce((n, e) => n + textLengthTokens(e), 0);
    // Context: the summary (300), then what reaches the model from a2 on (the compaction entry is not part of it).
    expect(p.tokensBefore).toBe(300 + len(idx('a2'), idx('cmp')) + len(idx('cmp') + 1, path.length));
    // A pinned message before the cut is carried after the summary: it counts in the context, its result is not masked.
    const pinned = [...path, pin('a1', 'p1')];
    const q = plan(pinned, 1)!;
    expect(q.tokensBefore).toBe(p.tokensBefore + len(idx('a1'), idx('a2')));
    expect(q.maskedIds).toEqual(['t2', 't3', 't4']);
    // An undone compaction gives the whole path back to the context.
    const undone = [...path, { type: 'summary_revision', targetId: 'cmp', action: 'undo', id: 'r1', parentId: null, timestamp: 0 } as SessionEntry];
    expect(plan(undone, 1)!.maskedIds).toEqual(['t1', 't2', 't3', 't4']);
  });

  it('a kept pointer off the path keeps only what follows the compaction', () => {
    const b = toolWork(2, 500);
    b.compaction(x(300), 'nowhere', 2000, 'cmp');
    b.toolCall('bash', { command: 'after' }, 'c9', 'a9');
    b.toolResult('c9', 'bash', x(500), 't9');
    b.user(x(40), 'u9');
    const p = plan(b.entries.slice(), 1)!;
    expect(p.maskedIds).toEqual(['t9']);
    expect(p.tokensBefore).toBe(300 + 10 + 500 + 40);
  });

  it('where the context starts: a compaction at the very start, one keeping from the first entry, one whose pointer lies after it', () => {
    // A session that begins with a summary (continued from another session): its summary and what follows are the context.
    const b = new TreeBuilder();
    b.compaction(x(300), 'cmp', 2000, 'cmp');
    b.toolCall('bash', { command: 'one' }, 'c1', 'a1');
    b.toolResult('c1', 'bash', x(500), 't1');
    b.user(x(40), 'u9');
    const first = plan(b.entries.slice(), 1)!;
    expect(first.maskedIds).toEqual(['t1']);
    expect(first.tokensBefore).toBe(300 + 10 + 500 + 40);
    // Kept from the path's first entry: everything before the compaction is still in the context.
    const k = toolWork(2, 500);
    k.compaction(x(300), 'u1', 2000, 'cmp');
    k.user(x(40), 'u9');
    const all = plan(k.entries.slice(), 1)!;
    expect(all.maskedIds).toEqual(['t1', 't2']);
    expect(all.tokensBefore).toBe(300 + 100 + 2 * 510 + 100 + 40);
    // A pointer to an entry after the compaction is damaged: the context is what follows the compaction.
    const d = toolWork(1, 500);
    d.compaction(x(300), 'late', 2000, 'cmp');
    d.toolCall('bash', { command: 'two' }, 'c2', 'a2');
    d.toolResult('c2', 'bash', x(500), 't2');
    d.user(x(40), 'late');
    const damaged = plan(d.entries.slice(), 1)!;
    expect(damaged.tokensBefore).toBe(300 + 10 + 500 + 40);
    expect(damaged.maskedIds).toEqual(['t2']);
  });

  it('the protected window counts only what reaches the model: the summary entry and empty failed replies do not protect anything', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.compaction(x(900), 'u1', 2000, 'cmp');
    b.toolCall('bash', { command: 'one' }, 'c1', 'a2');
    b.toolResult('c1', 'bash', x(500), 't1');
    b.assistant([], 'dead', { stopReason: 'error' });
    b.user(x(50), 'u2');
    const path = b.entries.slice();
    // The failed reply gets 400 tokens here, as a stale count might: it never reaches the model.
    const counts = path.map((e) => (e.id === 'dead' ? 400 : textLengthTokens(e)));
    const p = planToolMask(path, pathTokensFromCounts(counts), { protectTokens: 450, stubTokens })!;
    // 450 protected tokens: u2 (50) then t1 (500) — t1 is protected, nothing is old enough.
    expect(p).toBeNull();
    const q = planToolMask(path, pathTokensFromCounts(counts), { protectTokens: 50, stubTokens })!;
    expect(q.maskedIds).toEqual(['t1']);
    // The summary in effect counts in the figure, but lies before its kept messages: it never protects them.
    expect(q.tokensBefore).toBe(900 + 100 + 100 + 10 + 500 + 50);
  });

  it('the caller’s figures: tokensAfter is the counted figure minus the saving, never below zero', () => {
    const path = toolWork(3, 500).entries.slice();
    const p = plan(path, 1, { contextTokens: 5000 })!;
    expect(p.tokensBefore).toBe(5000);
    expect(p.tokensAfter).toBe(5000 - p.saved);
    const q = plan(path, 1, { contextTokens: 5000, countedTokens: 4000 })!;
    expect(q.tokensBefore).toBe(5000);
    expect(q.tokensAfter).toBe(4000 - q.saved);
    expect(plan(path, 1, { contextTokens: 100, countedTokens: 100 })!.tokensAfter).toBe(0);
  });

  it('refuses token counts that do not match the path', () => {
    const path = toolWork(1, 500).entries.slice();
    expect(() => planToolMask(path, pathTokensFromCounts([1, 2]), { protectTokens: 1, stubTokens })).toThrow(/2 counts for a path of/);
  });

  it('on the real pi session: masked results are old tool outputs outside the protected tail, each saving at least the minimum', () => {
    // Its messages without its own compactions: hundreds of real tool outputs in the context.
    const path = loadSession('piV1').path.filter((e) => e.type === 'message');
    const tokens = pathTokens(path);
    const stub = (e: SessionEntry) => Math.min(entryTokens(e), 30);
    const protect = 20_000;
    const p = planToolMask(path, tokens, { protectTokens: protect, stubTokens: stub })!;
    expect(p.maskedIds.length).toBeGreaterThan(10);
    const at = new Map(path.map((e, i) => [e.id, i]));
    const newest = Math.max(...p.maskedIds.map((id) => at.get(id)!));
    // The protected tail lies after the newest masked result and holds at least protectTokens.
    let tail = 0;
    for (let i = newest + 1; i < path.length; i++) tail += tokens.counts[i]!;
    expect(tail).toBeGreaterThanOrEqual(protect);
    let saved = 0;
    for (const id of p.maskedIds) {
      const e = path[at.get(id)!]!;
      expect(e.type === 'message' && e.message.role).toBe('toolResult');
      const saving = tokens.counts[at.get(id)!]! - stub(e);
      expect(saving).toBeGreaterThanOrEqual(MIN_MASK_SAVING);
      saved += saving;
    }
    expect(p.saved).toBe(saved);
    expect(p.tokensAfter).toBe(p.tokensBefore - saved);
    // Masked ids are oldest first.
    expect([...p.maskedIds].sort((a, b) => at.get(a)! - at.get(b)!)).toEqual(p.maskedIds);
  });
});
