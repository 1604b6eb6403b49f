import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { loadSession } from '@/lib/testing/compactionData';
import { advanceSessionContext, buildSessionContext, type SessionContext } from './context';
import { SessionTree } from './tree';
import type { AssistantMessage, EntryId, MessageEntry, SessionEntry } from './types';

/**
 * advanceSessionContext is a shortcut: whatever it returns must be exactly the
 * context built from scratch, and where it cannot follow a change it must say
 * so (null) rather than return something else. Here on changes around masks,
 * pins, compactions and failed replies, where a patched item would differ from
 * a built one.
 */

/** Applies `changed` to the tree and advances; the result, if any, must equal a build from scratch. Returns it. */
function step(prev: SessionContext, tree: SessionTree, leafId: EntryId | null, changed: SessionEntry[]): SessionContext | null {
  const prevPath = prev.path.slice();
  const prevItems = prev.items.slice();
  for (const e of changed) tree.replace(e);
  const next = advanceSessionContext(prev, tree, leafId, changed);
  if (next) expect(next).toEqual(buildSessionContext(tree, leafId));
  // The context it started from is left as it was (a derived snapshot may still be shown).
  expect(prev.path).toEqual(prevPath);
  expect(prev.items).toEqual(prevItems);
  return next;
}

const reply = (id: string, parentId: string, message: Partial<AssistantMessage>): MessageEntry => ({
  id,
  parentId,
  timestamp: 10,
  type: 'message',
  message: { role: 'assistant', content: [], ...message },
});
const prompt = (id: string, parentId: string | null, text: string): MessageEntry => ({ id, parentId, timestamp: 10, type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });

/** The real pi session past its first compaction, with a pinned prompt from before the kept part and a masked result. */
function piWithPinAndMask() {
  const { snapshot, path } = loadSession('piV1');
  const compactionAt = path.findIndex((e) => e.type === 'compaction');
  const leaf = path[compactionAt + 32]!;
  const tree = new SessionTree(snapshot.entries);
  const firstUser = path.find((e) => e.type === 'message' && e.message.role === 'user')!;
  const result = path.slice(compactionAt, compactionAt + 32).find((e) => e.type === 'message' && e.message.role === 'toolResult')!;
  tree.add({ id: 'pin', parentId: leaf.id, timestamp: 1, type: 'pin', targetId: firstUser.id, pinned: true });
  tree.add({ id: 'mask', parentId: 'pin', timestamp: 2, type: 'tool_mask', maskedIds: [result.id], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
  return { tree, leaf: 'mask' };
}

describe('advanceSessionContext follows a streamed turn where pins, a mask and a compaction are in effect', () => {
  it('real pi session: every saved chunk and the final reply are followed, not rebuilt', () => {
    const { tree, leaf } = piWithPinAndMask();
    let ctx = buildSessionContext(tree, leaf);
    expect(ctx.pinned.size).toBe(1);
    expect(ctx.masked.size).toBe(1);
    expect(ctx.compaction).not.toBeNull();
    let text = '';
    const steps: { changed: SessionEntry[]; leafId: string }[] = [{ changed: [prompt('p', leaf, 'go on'), reply('r', 'p', { status: 'streaming' })], leafId: 'r' }];
    for (let k = 0; k < 3; k++) steps.push({ changed: [reply('r', 'p', { content: [{ type: 'text', text: (text += `chunk ${k}. `) }], status: 'streaming' })], leafId: 'r' });
    steps.push({ changed: [reply('r', 'p', { content: [{ type: 'text', text }], stopReason: 'stop' })], leafId: 'r' });
    for (const s of steps) {
      const next = step(ctx, tree, s.leafId, s.changed);
      expect(next).not.toBeNull();
      ctx = next!;
    }
  });

  it('the first prompt of an empty session is followed', () => {
    const tree = new SessionTree([]);
    const next = step(buildSessionContext(tree, null), tree, 'p', [prompt('p', null, 'hello')]);
    expect(next?.items.map((it) => it.entryId)).toEqual(['p']);
  });
});

describe('advanceSessionContext gives up rather than return another context', () => {
  it('a masked result written again (its token cache filled in) keeps its stub', () => {
    const b = new TreeBuilder();
    b.user('q');
    b.toolCall('bash', { command: 'ls' }, 'call-1');
    const t = b.toolResult('call-1', 'bash', 'a\nb\nc');
    b.assistant('done');
    b.entries.push({ id: 'mask', parentId: b.cursor, timestamp: 1, type: 'tool_mask', maskedIds: [t.id], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, 'mask');
    step(prev, tree, 'mask', [{ ...t, tokens: { v: 1, o200k: 5, chars4: 2 } }]);
  });

  it('a carried (pinned) reply from before the kept part, written again, stays what the model sees', () => {
    const b = new TreeBuilder();
    b.user('q1');
    const a1 = b.assistant('draft', undefined, { status: 'streaming' });
    const u2 = b.user('q2');
    b.assistant('r2');
    b.compaction('S', u2.id);
    b.entries.push({ id: 'pin', parentId: b.cursor, timestamp: 1, type: 'pin', targetId: a1.id, pinned: true });
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, 'pin');
    expect(prev.items.find((it) => it.entryId === a1.id)).toMatchObject({ carried: true });
    step(prev, tree, 'pin', [{ ...a1, message: { role: 'assistant', content: [{ type: 'text', text: 'final answer' }], stopReason: 'stop' } }]);
  });

  it('a reply that fails before any output leaves the context; one that had failed and is retried in place comes back', () => {
    const b = new TreeBuilder();
    b.user('q');
    const r = b.assistant([], undefined, { status: 'streaming' });
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, r.id);
    expect(prev.items.map((it) => it.entryId)).toEqual(['u1', r.id]);
    const failed = reply(r.id, 'u1', { stopReason: 'error', errorMessage: '500' });
    const afterFail = step(prev, tree, r.id, [failed]);
    const now = afterFail ?? buildSessionContext(tree, r.id);
    expect(now.items.map((it) => it.entryId)).toEqual(['u1']);
    step(now, tree, r.id, [reply(r.id, 'u1', { content: [{ type: 'text', text: 'ok' }], stopReason: 'stop' })]);
  });

  it('an empty failed reply appended under the leaf is not sent', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    const tree = new SessionTree(b.entries);
    const next = step(buildSessionContext(tree, u.id), tree, 'r', [reply('r', u.id, { stopReason: 'aborted' })]);
    expect(next?.items.map((it) => it.entryId)).toEqual([u.id]);
  });

  it('an entry between the old leaf and the new one that was not announced (another tab’s compaction) is not skipped', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const u2 = b.user('q2');
    const a2 = b.assistant('r2');
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, a2.id);
    tree.add({ id: 'c', parentId: a2.id, timestamp: 20, type: 'compaction', summary: 'S', firstKeptEntryId: u2.id, tokensBefore: 9, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } });
    expect(step(prev, tree, 'p', [prompt('p', 'c', 'q3')])).toBeNull();
  });

  it('a new root, a null leaf, or a change that is not only messages', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, u.id);
    expect(step(prev, tree, 'other', [prompt('other', null, 'a second conversation')])).toBeNull();
    expect(advanceSessionContext(prev, tree, null, [])).toBeNull();
    const mask: SessionEntry = { id: 'k', parentId: 'p2', timestamp: 1, type: 'tool_mask', maskedIds: [], tokensBefore: 1, tokensAfter: 1, protectTokens: 0 };
    expect(step(prev, tree, 'k', [prompt('p2', u.id, 'q2'), mask])).toBeNull();
  });

  it('another tab’s label under the leaf, not announced, while this tab rewrites a message', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    const a = b.assistant('r', undefined, { status: 'streaming' });
    const tree = new SessionTree(b.entries);
    const prev = buildSessionContext(tree, a.id);
    tree.add({ id: 'l', parentId: a.id, timestamp: 30, type: 'label', targetId: u.id, label: 'start' });
    step(prev, tree, 'l', [{ ...a, message: { role: 'assistant', content: [{ type: 'text', text: 'r, finished' }], stopReason: 'stop' } }]);
  });
});

describe('advanceSessionContext follows any message written again near the leaf', () => {
  const tokens = { v: 1, o200k: 3, chars4: 1 };

  it('the first prompt, the message before the leaf, the first kept message and a summarised one', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    const u2 = b.user('q2');
    const a2 = b.assistant('r2');
    const tree = new SessionTree(b.entries);
    let ctx = buildSessionContext(tree, a2.id);
    for (const e of [u1, u2]) {
      const next = step(ctx, tree, a2.id, [{ ...e, tokens }]);
      expect(next).not.toBeNull();
      ctx = next!;
    }
    b.at(a2);
    const c = b.compaction('S', u2.id);
    const u3 = b.user('q3');
    tree.add(c);
    tree.add(u3);
    ctx = buildSessionContext(tree, u3.id);
    expect(ctx.keptFromIndex).toBe(2);
    for (const e of [a1, { ...u2, message: { role: 'user' as const, content: [{ type: 'text' as const, text: 'q2, corrected' }] } }]) {
      const next = step(ctx, tree, u3.id, [{ ...e, tokens }]);
      expect(next).not.toBeNull();
      ctx = next!;
    }
  });
});
