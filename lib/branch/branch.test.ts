import { describe, expect, it, vi } from 'vitest';
import { countText, entryTokens, loadSession } from '@/lib/testing/compactionData';
import { TreeBuilder } from '@/lib/testing/builder';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { BranchSummaryEntry, SessionEntry } from '@/lib/session/types';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { isAbortError } from '@/lib/compaction/summarizer';
import { EXTRACTIVE_LABEL } from '@/lib/compaction/extractive';
import { collectBranchEntries } from './collect';
import { prepareBranchSummary } from './prepare';
import { branchSummaryEntryFrom, planBranchSummary, summarizeBranch } from './summarize';

const len = (e: SessionEntry) => (e.type === 'message' ? e.message.content.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 10), 0) : e.type === 'branch_summary' || e.type === 'compaction' ? e.summary.length : 0);

/**
 *   u1 - a1 - u2 - a2 - u3 - a3        (old leaf a3)
 *          \- v2 - b2                   (another branch)
 */
function tree() {
  const b = new TreeBuilder();
  b.user('start', 'u1');
  b.assistant('ok', 'a1');
  b.user('try approach A', 'u2');
  b.toolCall('read', { path: '/src/a.ts' }, 'c1', 'a2');
  b.toolResult('c1', 'read', 'export const a = 1', 't2');
  b.user('now edit it', 'u3');
  b.toolCall('edit', { path: '/src/a.ts', oldText: '1', newText: '2' }, 'c2', 'a3');
  b.at('a1');
  b.user('try approach B', 'v2');
  b.assistant('B is simpler', 'b2');
  return { b, tree: new SessionTree(b.entries) };
}

describe('collectBranchEntries', () => {
  it('collects from the old leaf back to, not including, the common ancestor', () => {
    const { tree: t } = tree();
    const c = collectBranchEntries(t, 'a3', 'b2');
    expect(c.commonAncestorId).toBe('a1');
    expect(c.entries.map((e) => e.id)).toEqual(['u2', 'a2', 't2', 'u3', 'a3']);
  });

  it('moving up the same line abandons what is below the target; moving down abandons nothing', () => {
    const { tree: t } = tree();
    expect(collectBranchEntries(t, 'a3', 'u2').entries.map((e) => e.id)).toEqual(['a2', 't2', 'u3', 'a3']);
    expect(collectBranchEntries(t, 'a2', 'a3').entries).toEqual([]);
    expect(collectBranchEntries(t, 'a3', 'a3').entries).toEqual([]);
    expect(() => collectBranchEntries(t, 'nope', 'a3')).toThrow();
  });
});

describe('prepareBranchSummary', () => {
  it('fits newest first into the budget and keeps file operations of the whole branch', () => {
    const { tree: t } = tree();
    const { entries } = collectBranchEntries(t, 'a3', 'b2');
    const all = prepareBranchSummary(entries, { tokensOf: len, budget: 0 })!;
    expect(all.items.map((i) => i.entryId)).toEqual(['u2', 'a2', 't2', 'u3', 'a3']);
    expect(all.fromId).toBe('a3');
    expect(all.fileOps).toEqual({ readFiles: [], modifiedFiles: ['/src/a.ts'] });

    // 'now edit it' (11) + edit call (10) = 21 fit in 25; the read before them does not.
    const tight = prepareBranchSummary(entries, { tokensOf: len, budget: 25 })!;
    expect(tight.items.map((i) => i.entryId)).toEqual(['u3', 'a3']);
    expect(tight.droppedItems).toBe(3);
    expect(tight.tokens).toBe(21);
    // File ops still cover the dropped read/edit calls.
    expect(tight.fileOps.modifiedFiles).toEqual(['/src/a.ts']);
    // The newest item goes in even when it alone is over budget (the planner cuts it).
    expect(prepareBranchSummary(entries, { tokensOf: len, budget: 5 })!.items.map((i) => i.entryId)).toEqual(['a3']);
  });

  it('carries file lists of nested branch summaries and uses a compaction on the branch instead of what it replaced', () => {
    const b = new TreeBuilder();
    b.user('root', 'u0');
    b.user('q1', 'u1');
    b.assistant('r1', 'a1');
    const nested = b.branchSummary('explored caching', 'zz', 'bs');
    (nested as BranchSummaryEntry).details = { readFiles: ['/cache.ts'], modifiedFiles: ['/cfg.json'], summarizer: { kind: 'extractive' } };
    b.user('q2', 'u2');
    b.assistant('r2', 'a2');
    b.compaction('SUMMARY OF q1..r1', 'u2', 100, 'c1');
    b.user('q3', 'u3');
    b.assistant('r3', 'a3');
    const t = new SessionTree(b.entries);
    const { entries } = collectBranchEntries(t, 'a3', 'u0');
    const p = prepareBranchSummary(entries, { tokensOf: len, budget: 0 })!;
    expect(p.items.map((i) => [i.kind, i.entryId])).toEqual([
      ['compactionSummary', 'c1'],
      ['message', 'u2'],
      ['message', 'a2'],
      ['message', 'u3'],
      ['message', 'a3'],
    ]);
    expect(p.fileOps).toEqual({ readFiles: ['/cache.ts'], modifiedFiles: ['/cfg.json'] });
    // A summary entry that overflows still goes in while the total is under 90 % of the budget.
    const squeezed = prepareBranchSummary(entries, { tokensOf: len, budget: 12 })!;
    expect(squeezed.items[0]!.kind).toBe('compactionSummary');
  });
});

describe('summarizeBranch', () => {
  const { tree: t } = tree();
  const { entries } = collectBranchEntries(t, 'a3', 'b2');
  const prep = prepareBranchSummary(entries, { tokensOf: len, budget: 0 })!;

  it('uses the branch prompt and yields a branch_summary entry for the target position', async () => {
    const { model, calls } = scriptedModel(() => '## Goal\nApproach A: edit /src/a.ts\n\n## Outcome\nIt worked.');
    const plan = planBranchSummary(prep, { window: 16_000, maxOutputTokens: 1000, countText, customInstructions: 'Mention file names.' });
    const r = (await summarizeBranch(prep, { kind: 'model', summarizer: languageModelSummarizer(model), plan }))!;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.prompt).toMatch(/branch of the conversation that the user has just left/);
    expect(calls[0]!.prompt).toContain('[User]: try approach A');
    expect(calls[0]!.prompt).toContain('Mention file names.');
    expect(r.summary).toBe('## Goal\nApproach A: edit /src/a.ts\n\n## Outcome\nIt worked.\n\n<modified-files>\n/src/a.ts\n</modified-files>');
    expect(r.details).toMatchObject({ summarizer: { kind: 'model', model: 'mock:summarizer' }, customInstructions: 'Mention file names.', firstSummarizedEntryId: 'u2', summarizedEntryCount: 5 });
    const entry = { ...branchSummaryEntryFrom(r), id: 'bs1', parentId: 'b2', timestamp: 1 } as BranchSummaryEntry;
    expect(entry.fromId).toBe('a3');
    const ctx = buildSessionContext([...t.entries(), entry], 'bs1');
    expect(ctx.items.map((i) => i.entryId)).toEqual(['u1', 'a1', 'v2', 'b2', 'bs1']);
  });

  it('hooks cancel or supply; abort rejects and produces nothing; extractive works without a model', async () => {
    const { model, calls } = scriptedModel(() => 'x '.repeat(500), { chunkDelayInMs: 5, deltaChars: 4 });
    const plan = planBranchSummary(prep, { window: 16_000, maxOutputTokens: 1000, countText });
    const engine = { kind: 'model' as const, summarizer: languageModelSummarizer(model), plan };
    expect(await summarizeBranch(prep, engine, { hooks: { beforeBranchSummary: () => ({ cancel: true }) } })).toBeNull();
    const supplied = (await summarizeBranch(prep, engine, { hooks: { name: 'ext', beforeBranchSummary: () => ({ summary: 'S' }) } }))!;
    expect(supplied.details.summarizer).toEqual({ kind: 'hook', name: 'ext' });
    expect(calls).toHaveLength(0);

    const ctl = new AbortController();
    const after = vi.fn();
    let n = 0;
    const err = await summarizeBranch(prep, engine, { signal: ctl.signal, hooks: { afterBranchSummary: after }, onDelta: () => void (++n === 2 && ctl.abort()) }).catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(after).not.toHaveBeenCalled();

    const ex = (await summarizeBranch(prep, { kind: 'extractive' }))!;
    expect(ex.summary.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    expect(ex.summary).toContain('## Where this branch stood');
    expect(ex.summary).toContain('> try approach A');
    expect(ex.details.summarizer).toEqual({ kind: 'extractive' });
  });
});

describe('branches in real transcripts', () => {
  it('Claude Code edited prompt (daaain): the abandoned branch is everything below the edited message’s parent', async () => {
    const s = loadSession('claudeLog');
    const [bp] = s.tree.branchPoints();
    expect(bp).toBeDefined();
    const current = s.snapshot.meta.leafId!;
    const others = s.tree.leaves().filter((l) => l.id !== current);
    expect(others.length).toBeGreaterThan(0);
    expect(others.some((o) => collectBranchEntries(s.tree, o.id, current).commonAncestorId === bp!.id)).toBe(true);
    for (const other of others) {
      const c = collectBranchEntries(s.tree, other.id, current);
      expect(c.commonAncestorId).toBe(s.tree.commonAncestor(other.id, current));
      expect(c.entries.length).toBeGreaterThan(0);
      expect(c.entries[0]!.parentId).toBe(c.commonAncestorId);
      expect(c.entries[c.entries.length - 1]!.id).toBe(other.id);
      const onCurrent = new Set(s.tree.pathTo(current).map((e) => e.id));
      for (const e of c.entries) expect(onCurrent.has(e.id)).toBe(false);
      c.entries.forEach((e, i) => i > 0 && expect(e.parentId).toBe(c.entries[i - 1]!.id));
    }
    // The branches are local commands (/doctor, /status, /mcp): notes the model never saw, so nothing to summarise.
    for (const other of others) expect(prepareBranchSummary(collectBranchEntries(s.tree, other.id, current).entries, { tokensOf: entryTokens, budget: 2000 })).toBeNull();
    // Leaving the whole conversation (back to before its first message) with a small budget: newest first, files from all of it.
    const whole = s.tree.pathTo(current);
    const budget = 2000;
    const p = prepareBranchSummary(whole, { tokensOf: entryTokens, budget })!;
    expect(p.tokens).toBeLessThanOrEqual(budget);
    expect(p.items[p.items.length - 1]!.entryId).toBe(whole.filter((e) => e.type === 'message').at(-1)!.id);
    expect(p.droppedItems).toBeGreaterThan(0);
    const r = (await summarizeBranch(p, { kind: 'extractive' }))!;
    expect(r.fromId).toBe(current);
  });

  it('ChatGPT export tree: two branch points; every pair of leaves meets at one of them', () => {
    const s = loadSession('chatgptTree');
    const bps = new Set(s.tree.branchPoints().map((e) => e.id));
    expect(bps.size).toBe(2);
    const leaves = s.tree.leaves();
    expect(leaves.length).toBe(3);
    for (const a of leaves) {
      for (const b of leaves) {
        if (a.id === b.id) continue;
        const c = collectBranchEntries(s.tree, a.id, b.id);
        expect(bps.has(c.commonAncestorId!)).toBe(true);
        expect(c.entries.some((e) => e.id === c.commonAncestorId)).toBe(false);
        expect(c.entries.at(-1)!.id).toBe(a.id);
        const p = prepareBranchSummary(c.entries, { tokensOf: entryTokens, budget: 100_000 })!;
        expect(p.items.length).toBe(c.entries.filter((e) => e.type === 'message').length);
      }
    }
  });
});
