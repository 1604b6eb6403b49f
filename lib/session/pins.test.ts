import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { loadSession } from '@/lib/testing/compactionData';
import { buildSessionContext } from './context';
import { maskedMessage } from './masks';
import { carriedPositions, isPinnable, resolvePins } from './pins';
import { SessionTree } from './tree';
import type { EntryId, MessageEntry, NewEntry, SessionEntry, ToolResultMessage } from './types';

/**
 * Pins on the real pi session, at a leaf where its first compaction is in
 * effect: a pinned message from before the kept part reaches the model
 * verbatim right after the summary, in path order, with the results of its
 * tool calls; pins are path state, the latest per target wins.
 */

function piAfterFirstCompaction() {
  const { snapshot, path: full } = loadSession('piV1');
  const compactionAt = full.findIndex((e) => e.type === 'compaction');
  const leaf = full[compactionAt + 32]!;
  const entries = [...snapshot.entries];
  let clock = Math.max(...entries.map((e) => e.timestamp));
  let n = 0;
  const add = (parentId: EntryId, e: NewEntry): SessionEntry => {
    const entry = { ...e, id: `p${++n}`, parentId, timestamp: ++clock } as SessionEntry;
    entries.push(entry);
    return entry;
  };
  const plain = buildSessionContext(snapshot.entries, leaf.id);
  const path = plain.path;
  /** Appends `pins` ([target, pinned]) in order under `from`; returns the last one. */
  const pin = (from: EntryId, ...pins: [EntryId, boolean][]) => pins.reduce((at, [targetId, pinned]) => add(at, { type: 'pin', targetId, pinned }).id, from);
  return { entries, leaf: leaf.id, path, plain, add, pin };
}

const message = (e: SessionEntry | undefined) => (e as MessageEntry).message;
const callIds = (e: SessionEntry) => {
  const m = message(e);
  return m.role === 'assistant' ? m.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : [])) : [];
};

describe('pins in the context (real pi session, first compaction in effect)', () => {
  it('carries pinned messages from before the kept part after the summary, in path order, with the results of their calls; nothing else changes', () => {
    const { entries, leaf, path, plain, pin } = piAfterFirstCompaction();
    const kept = plain.keptFromIndex;
    expect(plain.compaction).not.toBeNull();
    expect(kept).toBeGreaterThan(100);
    const firstUser = path.find((e) => e.type === 'message' && e.message.role === 'user')!;
    // A call late in the summarised part, whose result comes right after it.
    const call = path.slice(0, kept - 1).findLast((e) => e.type === 'message' && callIds(e).length > 0)!;
    const results = path.filter((e) => e.type === 'message' && e.message.role === 'toolResult' && callIds(call).includes(e.message.toolCallId));
    expect(results.length).toBeGreaterThan(0);
    // Pinned last, then first: order on the path decides, not order of pinning.
    const at = pin(leaf, [call.id, true], [firstUser.id, true]);

    const ctx = buildSessionContext(entries, at);
    expect(ctx.pinned).toEqual(new Set([firstUser.id, call.id]));
    const carried = [firstUser, call, ...results];
    expect(ctx.items[0]).toEqual(plain.items[0]);
    expect(ctx.items.slice(1, 1 + carried.length)).toEqual(carried.map((e) => ({ kind: 'message', entryId: e.id, message: message(e), carried: true })));
    expect(ctx.items.slice(1 + carried.length)).toEqual(plain.items.slice(1));
    expect(ctx.keptFromIndex).toBe(kept);
  });

  it('carries nothing for: an unpinned message, a tool result pinned alone, a pinned message already in the kept part, a pin on another branch, an empty failed reply', () => {
    const { entries, leaf, path, plain, add, pin } = piAfterFirstCompaction();
    const kept = plain.keptFromIndex;
    const users = path.slice(0, kept).filter((e) => e.type === 'message' && e.message.role === 'user');
    const result = path.slice(0, kept).find((e) => e.type === 'message' && e.message.role === 'toolResult')!;
    const aborted = path.slice(0, kept).find((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content.length === 0 && e.message.stopReason === 'aborted')!;
    expect(aborted).toBeDefined();
    const inKept = path[kept]!;
    expect(isPinnable(inKept)).toBe(true);

    const branch = add(leaf, { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'elsewhere' }] } });
    pin(branch.id, [users[2]!.id, true]);
    const at = pin(leaf, [users[1]!.id, true], [result.id, true], [inKept.id, true], [aborted.id, true], [users[1]!.id, false]);

    const ctx = buildSessionContext(entries, at);
    expect(ctx.pinned).toEqual(new Set([result.id, inKept.id, aborted.id]));
    expect(ctx.items).toEqual(plain.items);
    expect(ctx.items.filter((it) => it.entryId === inKept.id)).toHaveLength(1);
  });

  it('a carried tool result that is masked reaches the model as its stub, still carried', () => {
    const { entries, leaf, path, plain, add, pin } = piAfterFirstCompaction();
    const call = path.slice(0, plain.keptFromIndex - 1).findLast((e) => e.type === 'message' && callIds(e).length > 0)!;
    const result = path.find((e) => e.type === 'message' && e.message.role === 'toolResult' && callIds(call).includes(e.message.toolCallId))!;
    const mask = add(pin(leaf, [call.id, true]), { type: 'tool_mask', maskedIds: [result.id], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const ctx = buildSessionContext(entries, mask.id);
    expect(ctx.items.find((it) => it.entryId === result.id)).toEqual({
      kind: 'message',
      entryId: result.id,
      message: maskedMessage(message(result) as ToolResultMessage),
      masked: true,
      carried: true,
    });
  });
});

describe('pin rules', () => {
  it('the latest pin entry per target on the path wins', () => {
    const { entries, leaf, path, pin } = piAfterFirstCompaction();
    const [a, b] = path.filter((e) => e.type === 'message' && e.message.role === 'user');
    const tree = () => new SessionTree(entries);
    const on = pin(leaf, [a!.id, true], [b!.id, true]);
    const off = pin(on, [a!.id, false]);
    const again = pin(off, [a!.id, true], [b!.id, false]);
    expect(resolvePins(tree().pathTo(leaf))).toEqual(new Set());
    expect(resolvePins(tree().pathTo(on))).toEqual(new Set([a!.id, b!.id]));
    expect(resolvePins(tree().pathTo(off))).toEqual(new Set([b!.id]));
    expect(resolvePins(tree().pathTo(again))).toEqual(new Set([a!.id]));
  });

  it('a label, a revision or another entry naming a pinned message does not unpin it; entries that are no message before the kept part are passed over', () => {
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    const u1 = b.user('q1');
    b.label(u1.id, 'start');
    b.assistant('r1');
    const u2 = b.user('q2');
    const c = b.compaction('S', u2.id);
    b.entries.push({ id: 'pin', parentId: b.cursor, timestamp: 1, type: 'pin', targetId: u1.id, pinned: true });
    b.at('pin');
    b.label(u1.id, 'renamed');
    b.revision(u1.id, 'undo');
    const ctx = buildSessionContext(b.entries, b.cursor);
    expect(ctx.pinned).toEqual(new Set([u1.id]));
    expect(ctx.items.map((it) => it.entryId)).toEqual([c.id, u1.id, u2.id]);
  });

  it('what a user writes and what the model answers can be pinned; tool results and other entries cannot', () => {
    const { snapshot } = loadSession('piV1');
    const byKind = new Map<string, boolean>();
    for (const e of snapshot.entries) byKind.set(e.type === 'message' ? e.message.role : e.type, isPinnable(e));
    expect(Object.fromEntries(byKind)).toEqual({ user: true, assistant: true, toolResult: false, compaction: false });
  });

  it('carried positions lie before the kept part: a pinned entry at the boundary is not carried, nor a result past it', () => {
    const { path } = piAfterFirstCompaction();
    const call = path.findIndex((e) => e.type === 'message' && callIds(e).length > 0);
    const resultAt = path.findIndex((e) => e.type === 'message' && e.message.role === 'toolResult' && callIds(path[call]!).includes(e.message.toolCallId));
    const user = path.findIndex((e) => e.type === 'message' && e.message.role === 'user');
    expect(user).toBeLessThan(call);
    const pinned = new Set([path[user]!.id, path[call]!.id]);
    expect(carriedPositions(path, resultAt + 1, pinned)).toEqual([user, call, resultAt]);
    expect(carriedPositions(path, resultAt, pinned)).toEqual([user, call]);
    expect(carriedPositions(path, call, pinned)).toEqual([user]);
    expect(carriedPositions(path, 0, pinned)).toEqual([]);
    expect(carriedPositions(path, path.length, new Set())).toEqual([]);
  });

  it('without an explicit set, the pins on the path are used', () => {
    const { entries, leaf, path, plain, pin } = piAfterFirstCompaction();
    const user = path.find((e) => e.type === 'message' && e.message.role === 'user')!;
    const pinAt = pin(leaf, [user.id, true]);
    const at = new SessionTree(entries).pathTo(pinAt);
    expect(carriedPositions(at, plain.keptFromIndex)).toEqual([path.indexOf(user)]);
  });
});
