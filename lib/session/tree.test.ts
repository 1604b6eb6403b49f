import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { loadSession } from '@/lib/testing/compactionData';
import { SessionTree, walkDepthFirst } from './tree';
import type { SessionEntry } from './types';

describe('SessionTree on damaged input', () => {
  it('a truncated import (the first entries lost): the orphans are roots, so every entry stays reachable', () => {
    const { snapshot } = loadSession('claudeLog');
    const cut = snapshot.entries.slice(5);
    const tree = new SessionTree(cut);
    const lost = new Set(snapshot.entries.slice(0, 5).map((e) => e.id));
    const orphans = cut.filter((e) => e.parentId !== null && lost.has(e.parentId));
    expect(orphans.length).toBeGreaterThan(0);
    for (const o of orphans) expect(tree.roots()).toContain(o);
    expect([...walkDepthFirst(tree)].map((x) => x.entry.id).sort()).toEqual(cut.map((e) => e.id).sort());
    // A path stops at the missing parent instead of failing.
    const leaf = tree.newestLeaf()!;
    expect(tree.pathTo(leaf)[0]!.parentId === null || lost.has(tree.pathTo(leaf)[0]!.parentId!)).toBe(true);
  });

  it('a cycle of parents is reported, not followed forever', () => {
    const a = { id: 'a', parentId: 'b', timestamp: 1, type: 'model_change', model: 'm' } as SessionEntry;
    const b = { id: 'b', parentId: 'a', timestamp: 2, type: 'model_change', model: 'm' } as SessionEntry;
    expect(() => new SessionTree([a, b]).pathTo('a')).toThrow(/Cycle in session tree at a/);
  });
});

describe('the newest leaf', () => {
  it('follows the newest child (on a tie, the one added last); the whole tree’s newest leaf ignores entries with children', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    b.at(u1);
    const a2 = b.assistant('r2');
    const tree = new SessionTree(b.entries);
    expect(tree.newestLeafUnder(u1.id)).toBe(a2.id);
    // Same time as a2, added after it.
    const twin = { ...a2, id: 'twin' } as SessionEntry;
    const withTwin = new SessionTree([...b.entries, twin]);
    expect(withTwin.newestLeafUnder(u1.id)).toBe('twin');
    expect(withTwin.newestLeaf()).toBe('twin');
    // A parent newer than every leaf (its child was written with an older clock) is no leaf.
    const newerParent = { ...a1, timestamp: a2.timestamp + 10_000 } as SessionEntry;
    const child = { ...u1, id: 'child', parentId: a1.id, timestamp: a1.timestamp + 1 } as SessionEntry;
    const skewed = new SessionTree([b.entries[0]!, newerParent, b.entries[2]!, child]);
    expect(skewed.newestLeaf()).toBe(a2.id);
    expect(new SessionTree([]).newestLeaf()).toBeNull();
    // A child added last but written with an older clock is not the newest.
    const older = { ...a1, id: 'older', parentId: u1.id, timestamp: a1.timestamp - 1 } as SessionEntry;
    expect(new SessionTree([...b.entries, older]).newestLeafUnder(u1.id)).toBe(a2.id);
  });

  it('counts its entries', () => {
    const { snapshot } = loadSession('claudeLog');
    const tree = new SessionTree();
    expect(tree.size).toBe(0);
    for (const e of snapshot.entries) tree.add(e);
    expect(tree.size).toBe(snapshot.entries.length);
    tree.replace(snapshot.entries[3]!);
    expect(tree.size).toBe(snapshot.entries.length);
  });
});
