import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { resolveLabels } from '@/lib/session/revisions';
import { SessionTree } from '@/lib/session/tree';
import type { SessionSnapshot } from '@/lib/session/types';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { passesFilter, type TreeFilter } from './filters';
import { buildForest, flattenForest } from './flatten';
import { formatCount } from '@/lib/format/numbers';
import { entryPreview, isToolCallOnly, previewSearchText } from './preview';
import { expectTruthfulShape, expectWellFormed } from '@/lib/testing/treeShape';

const FILTERS: TreeFilter[] = ['default', 'no-tools', 'user', 'labelled', 'all'];

function load(name: FixtureName): SessionSnapshot[] {
  return importText(readFixture(name), { fileName: FIXTURES[name] }).sessions;
}

function setup(s: SessionSnapshot, filter: TreeFilter = 'default') {
  const tree = new SessionTree(s.entries);
  const labels = resolveLabels(s.entries);
  const forest = buildForest(tree, { filter, labels });
  const active = new Set(tree.pathTo(s.meta.leafId).map((e) => e.id));
  return { tree, labels, forest, active };
}

const ALL = Object.keys(FIXTURES) as FixtureName[];

describe('every real transcript, every filter', () => {
  it.each(ALL)('%s: rows are well formed and hang from the nearest visible ancestor', (name) => {
    for (const s of load(name)) {
      for (const filter of FILTERS) {
        const { tree, labels, forest, active } = setup(s, filter);
        const flat = flattenForest(forest, { leafId: s.meta.leafId, activePathIds: active });
        const visible = (id: string) => passesFilter(tree.get(id)!, filter, labels);
        expect(flat.rows).toHaveLength(tree.entries().filter((e) => visible(e.id)).length);
        expectWellFormed(flat, forest);
        expectTruthfulShape(flat, forest, visible);
        // The current row stands for the leaf and lies on the active path.
        if (flat.currentIndex >= 0) {
          const cur = flat.rows[flat.currentIndex]!;
          expect(cur.onActivePath).toBe(true);
          expect(tree.isAncestor(cur.id, s.meta.leafId!)).toBe(true);
        }
        expect(flat.rows.filter((r) => r.isCurrent).length).toBeLessThanOrEqual(1);
        expect(flat.rows.filter((r) => r.onActivePath).map((r) => r.id)).toEqual(tree.pathTo(s.meta.leafId).filter((e) => visible(e.id)).map((e) => e.id));
      }
    }
  });

  it.each(ALL)('%s: the text filter keeps matches and the branch points above them, nothing else', (name) => {
    for (const s of load(name)) {
      const { forest } = setup(s);
      const full = flattenForest(forest);
      // Queries taken from the data itself: a word of the leaf's preview, a word of a mid-session row, and common words.
      const words = [full.rows.at(-1), full.rows[Math.floor(full.rows.length / 2)]]
        .map((r) => (r ? entryPreview(r.entry).text.split(/\s+/).find((w) => w.length > 4) : undefined))
        .filter((w): w is string => Boolean(w));
      for (const q of [...words, 'the', 'tool result', 'user:']) {
        const flat = flattenForest(forest, { query: q });
        const needle = q.toLowerCase();
        const expectedMatches = full.rows.filter((r) => previewSearchText(r.entry).includes(needle));
        expect(flat.matchCount).toBe(expectedMatches.length);
        expect(flat.rows.filter((r) => r.match).map((r) => r.id)).toEqual(expectedMatches.map((r) => r.id));
        let last = -1;
        for (const [i, row] of flat.rows.entries()) {
          const base = full.rowIndex.get(row.id)!;
          expect(base).toBeGreaterThan(last);
          last = base;
          expect(row.level).toBe(full.rows[base]!.level);
          if (!row.match) {
            // Context rows are branch points with a match somewhere below.
            expect(row.isBranchPoint).toBe(true);
            expect(flat.rows.slice(i + 1).some((r) => r.match && forest.tree.isAncestor(row.id, r.id))).toBe(true);
          }
        }
        expectWellFormed(flat, forest);
      }
    }
  });
});

describe('shapes of particular transcripts', () => {
  it('ChatGPT tree: two branch points of two, each branch indented one level', () => {
    const [s] = load('chatgptTree');
    const { tree, forest, active } = setup(s!);
    const flat = flattenForest(forest, { leafId: s!.meta.leafId, activePathIds: active });
    expect(flat.rows).toHaveLength(tree.size);
    expect(flat.branchRows).toHaveLength(2);
    for (const b of flat.branchRows) {
      const bp = flat.rows[b]!;
      expect(bp.childCount).toBe(2);
      const heads = flat.rows.filter((r) => r.parentIndex === b && r.branchIndex > 0);
      expect(heads.map((h) => [h.level, h.branchIndex, h.branchCount])).toEqual([
        [bp.level + 1, 1, 2],
        [bp.level + 1, 2, 2],
      ]);
    }
    expect(Math.max(...flat.rows.map((r) => r.level))).toBe(3);
    expect(flat.rows[flat.currentIndex]!.id).toBe(s!.meta.leafId);
    // Folding the first branch point leaves only what comes before it.
    const folded = flattenForest(forest, { folded: new Set([flat.rows[flat.branchRows[0]!]!.id]) });
    expect(folded.rows.map((r) => r.id)).toEqual(flat.rows.slice(0, flat.branchRows[0]! + 1).map((r) => r.id));
  });

  it('ChatGPT tree, user filter: the branch between replies moves up to the prompt before it', () => {
    const [s] = load('chatgptTree');
    const { tree, forest: full } = setup(s!);
    const { forest } = setup(s!, 'user');
    const flat = flattenForest(forest);
    const root = tree.roots()[0]!;
    expect(flat.rows[0]!.id).toBe(root.id);
    // The reply that branched is hidden, so the first prompt now has the two follow-up prompts as children.
    const bpBefore = flattenForest(full).branchRows.map((i) => flattenForest(full).rows[i]!.entry);
    const hiddenBp = bpBefore.find((e) => e.type === 'message' && e.message.role === 'assistant' && tree.children(e.id).every((c) => c.type === 'message' && c.message.role === 'user'))!;
    expect(hiddenBp).toBeDefined();
    expect(flat.rows[0]).toMatchObject({ isBranchPoint: true, childCount: tree.children(hiddenBp.id).length });
    // The branch point between two regenerated replies has no prompts below it: no longer a branch point.
    expect(flat.branchRows).toEqual([0]);
  });

  it('Claude Code log: one branch point of three (local commands, notes shown under "all"), everything else a single run', () => {
    const [s] = load('claudeLog');
    // The file branches only among its local commands (/doctor, /status, /mcp after the caveat): notes, hidden by default.
    expect(flattenForest(setup(s!).forest).branchRows).toHaveLength(0);
    const { tree, forest } = setup(s!, 'all');
    const flat = flattenForest(forest);
    expect(flat.branchRows).toHaveLength(1);
    const bp = flat.rows[flat.branchRows[0]!]!;
    expect(bp.childCount).toBe(tree.children(bp.id).length);
    expect(bp.childCount).toBe(3);
    expect(bp.level).toBe(1);
    expect(flat.rows.filter((r) => r.level === 1)).toHaveLength(flat.branchRows[0]! + 1);
    expect(flat.rows.slice(flat.branchRows[0]! + 1).every((r) => r.level === 2)).toBe(true);
    // Hook output and command notes are bookkeeping: hidden by default, shown under "all".
    const customs = s!.entries.filter((e) => e.type === 'custom').length;
    expect(customs).toBeGreaterThan(0);
    const byDefault = flattenForest(setup(s!).forest);
    expect(byDefault.rows).toHaveLength(s!.entries.length - customs);
    expect(byDefault.rows.some((r) => r.entry.type === 'custom')).toBe(false);
    expect(flat.rows.filter((r) => r.entry.type === 'custom')).toHaveLength(customs);
  });

  it('pi session: 1,000+ linear entries stay on one level', () => {
    const [s] = load('piV1');
    const { forest, active } = setup(s!);
    expect(s!.entries.length).toBeGreaterThan(1000);
    const flat = flattenForest(forest, { leafId: s!.meta.leafId, activePathIds: active });
    expect(flat.rows).toHaveLength(s!.entries.length);
    expect(flat.rows.every((r) => r.level === 1 && r.setsize === flat.rows.length && r.onActivePath)).toBe(true);
    expect(flat.branchRows).toEqual([]);
    expect(flat.currentIndex).toBe(flat.rows.length - 1);
    const compactions = flat.rows.filter((r) => r.entry.type === 'compaction');
    expect(compactions).toHaveLength(2);
    for (const c of compactions) {
      if (c.entry.type !== 'compaction') continue;
      expect(entryPreview(c.entry).text).toContain(`[compaction: ${formatCount(c.entry.tokensBefore)} tokens`);
    }
    // SOURCES.md documents the first compaction's size.
    expect(compactions.map((c) => entryPreview(c.entry).text)).toContain('[compaction: 184,525 tokens]');
  });

  it('pi session, no-tools: tool results and tool-only replies go, the chain stays one run', () => {
    const [s] = load('piV1');
    const { forest } = setup(s!, 'no-tools');
    const flat = flattenForest(forest);
    const toolish = s!.entries.filter((e) => e.type === 'message' && (e.message.role === 'toolResult' || (e.message.role === 'assistant' && isToolCallOnly(e.message))));
    expect(toolish.length).toBeGreaterThan(400);
    expect(flat.rows).toHaveLength(s!.entries.length - toolish.length);
    expect(flat.rows.every((r) => r.level === 1)).toBe(true);
    expect(flat.rows.some((r) => r.entry.type === 'message' && r.entry.message.role === 'toolResult')).toBe(false);
  });

  it('pi session previews: tool calls, tool results and errors read as such', () => {
    const [s] = load('piV1');
    const previews = s!.entries.map((e) => entryPreview(e));
    for (const [i, e] of s!.entries.entries()) {
      const p = previews[i]!;
      expect(p.text.length).toBeLessThan(400);
      expect(p.text).not.toMatch(/\n/);
      if (e.type !== 'message') continue;
      const m = e.message;
      if (m.role === 'toolResult') {
        expect(p.text.startsWith(`[tool result: ${m.toolName}${m.isError ? ', error' : ''}]`)).toBe(true);
        expect(p.error).toBe(m.isError);
      } else if (m.role === 'assistant' && isToolCallOnly(m)) {
        const first = m.content.find((c) => c.type === 'toolCall');
        expect(p.text.startsWith(`assistant: [tool: ${first?.type === 'toolCall' ? first.name : ''}`)).toBe(true);
      } else {
        expect(p.text.startsWith(`${m.role}: `)).toBe(true);
      }
    }
    expect(previews.some((p) => p.error)).toBe(true);
  });

  it('Claude Code viewer: several roots (sub-agent transcripts) are top-level branches', () => {
    const [s] = load('claudeViewer');
    const { tree, forest } = setup(s!);
    const flat = flattenForest(forest);
    const roots = tree.roots().length;
    expect(roots).toBeGreaterThan(1);
    const heads = flat.rows.filter((r) => r.level === 1 && r.branchIndex > 0);
    expect(heads.map((h) => h.branchIndex)).toEqual(Array.from({ length: roots }, (_, i) => i + 1));
    expect(heads.every((h) => h.branchCount === roots && h.parentIndex === -1)).toBe(true);
  });
});
