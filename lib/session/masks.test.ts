import { describe, expect, it } from 'vitest';
import { loadSession } from '@/lib/testing/compactionData';
import { buildSessionContext, type ContextItem } from './context';
import { isMaskUndone, maskedMessage, maskStubText, resolveMasks } from './masks';
import { SessionTree } from './tree';
import type { EntryId, MessageEntry, NewEntry, SessionEntry, ToolResultMessage } from './types';

/**
 * Observation masking as the context builder applies it: a `tool_mask` entry
 * on the path turns the tool results it names into one-line stubs for the
 * model, a later undo (a summary_revision on the path) brings them back and a
 * redo masks them again; the entries themselves never change.
 */

/** A session grown from a real one: entries appended under a leaf, as the app appends them. */
class Grown {
  readonly entries: SessionEntry[];
  private n = 0;
  private clock: number;

  constructor(entries: readonly SessionEntry[]) {
    this.entries = [...entries];
    this.clock = Math.max(...entries.map((e) => e.timestamp));
  }

  add(parentId: EntryId | null, e: NewEntry): SessionEntry {
    const entry = { ...e, id: `x${++this.n}`, parentId, timestamp: ++this.clock } as SessionEntry;
    this.entries.push(entry);
    return entry;
  }

  context(leafId: EntryId) {
    return buildSessionContext(new SessionTree(this.entries), leafId);
  }
}

const isToolResult = (e: SessionEntry): e is MessageEntry & { message: ToolResultMessage } => e.type === 'message' && e.message.role === 'toolResult';

function masked(items: readonly ContextItem[]): EntryId[] {
  return items.filter((it) => it.kind === 'message' && it.masked).map((it) => it.entryId);
}

/** A real agent session at its leaf, and its tool results on the path. */
function agent(name: 'claudeLog' | 'codexRollout') {
  const { snapshot, path } = loadSession(name);
  const results = path.filter(isToolResult);
  return { grown: new Grown(snapshot.entries), leaf: snapshot.meta.leafId!, path, results };
}

describe('masking in the context (real agent sessions)', () => {
  it.each(['claudeLog', 'codexRollout'] as const)('%s: the masked results reach the model as stubs that still answer their calls; everything else is unchanged', (name) => {
    const { grown, leaf, results } = agent(name);
    const before = grown.context(leaf);
    const chosen = results.filter((_, i) => i % 2 === 0);
    const mask = grown.add(leaf, { type: 'tool_mask', maskedIds: chosen.map((e) => e.id), tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const after = grown.context(mask.id);

    expect(after.masked).toEqual(new Set(chosen.map((e) => e.id)));
    expect(masked(after.items)).toEqual(chosen.map((e) => e.id));
    expect(after.items.map((it) => it.entryId)).toEqual(before.items.map((it) => it.entryId));
    const original = new Map(before.items.map((it) => [it.entryId, it]));
    for (const it of after.items) {
      if (!(it.kind === 'message' && it.masked)) {
        expect(it).toEqual(original.get(it.entryId));
        continue;
      }
      const was = original.get(it.entryId)!;
      const message = was.kind === 'message' ? (was.message as ToolResultMessage) : undefined;
      expect(it.message).toEqual({ ...message, content: [{ type: 'text', text: maskStubText(message!) }] });
    }
    // The entries keep their output: the stub exists only in what the model sees.
    for (const e of chosen) expect(grown.entries.find((x) => x.id === e.id)).toBe(e);
  });

  it('a mask names tool results only: a prompt or a reply named in it still reaches the model whole', () => {
    const { grown, leaf, path, results } = agent('claudeLog');
    const others = path.filter((e) => e.type === 'message' && e.message.role !== 'toolResult').slice(0, 4);
    const mask = grown.add(leaf, { type: 'tool_mask', maskedIds: [...others.map((e) => e.id), results[0]!.id], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const ctx = grown.context(mask.id);
    expect(masked(ctx.items)).toEqual([results[0]!.id]);
    for (const e of others) expect(ctx.items.find((it) => it.entryId === e.id)).toEqual({ kind: 'message', entryId: e.id, message: (e as MessageEntry).message });
  });

  it('undo brings the full outputs back, redo masks them again; the toggles are path state, and revisions of other entries do not touch the mask', () => {
    const { grown, leaf, results } = agent('codexRollout');
    const plain = grown.context(leaf);
    const ids = results.slice(0, 5).map((e) => e.id);
    const mask = grown.add(leaf, { type: 'tool_mask', maskedIds: ids, tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const undo = grown.add(mask.id, { type: 'summary_revision', targetId: mask.id, action: 'undo' });
    const redo = grown.add(undo.id, { type: 'summary_revision', targetId: mask.id, action: 'redo' });
    // Another branch from the mask, where it was never undone.
    const elsewhere = grown.add(mask.id, { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'go on' }] } });
    // Revisions that are not a toggle of this mask: an undo of an entry that is no mask, an edit of the mask.
    const otherUndo = grown.add(redo.id, { type: 'summary_revision', targetId: results[0]!.id, action: 'undo' });
    const edit = grown.add(otherUndo.id, { type: 'summary_revision', targetId: mask.id, action: 'edit', summary: 'x' });

    const ctx = (id: EntryId) => grown.context(id);
    expect(masked(ctx(mask.id).items)).toEqual(ids);
    expect(ctx(undo.id).masked.size).toBe(0);
    expect(ctx(undo.id).items.filter((it) => it.kind === 'message')).toEqual(plain.items);
    expect(masked(ctx(redo.id).items)).toEqual(ids);
    expect(masked(ctx(elsewhere.id).items)).toEqual(ids);
    expect(masked(ctx(edit.id).items)).toEqual(ids);

    const tree = new SessionTree(grown.entries);
    expect(isMaskUndone(tree.pathTo(mask.id), mask.id)).toBe(false);
    expect(isMaskUndone(tree.pathTo(undo.id), mask.id)).toBe(true);
    expect(isMaskUndone(tree.pathTo(redo.id), mask.id)).toBe(false);
    expect(isMaskUndone(tree.pathTo(elsewhere.id), mask.id)).toBe(false);
    expect(isMaskUndone(tree.pathTo(edit.id), mask.id)).toBe(false);
    // Only undo and redo toggle: an edit after an undo leaves the outputs back in context.
    const editAfterUndo = grown.add(undo.id, { type: 'summary_revision', targetId: mask.id, action: 'edit', summary: 'x' });
    expect(isMaskUndone(new SessionTree(grown.entries).pathTo(editAfterUndo.id), mask.id)).toBe(true);
    expect(grown.context(editAfterUndo.id).masked.size).toBe(0);
    // An undo of another entry says nothing about this mask.
    expect(isMaskUndone(tree.pathTo(otherUndo.id), results[0]!.id)).toBe(true);
    expect(isMaskUndone(tree.pathTo(otherUndo.id), mask.id)).toBe(false);
  });

  it('two masks: undoing the later one leaves the earlier in effect', () => {
    const { grown, leaf, results } = agent('claudeLog');
    const first = grown.add(leaf, { type: 'tool_mask', maskedIds: [results[0]!.id, results[1]!.id], tokensBefore: 3, tokensAfter: 2, protectTokens: 0 });
    const second = grown.add(first.id, { type: 'tool_mask', maskedIds: [results[1]!.id, results[2]!.id], tokensBefore: 2, tokensAfter: 1, protectTokens: 0 });
    const undo = grown.add(second.id, { type: 'summary_revision', targetId: second.id, action: 'undo' });
    const tree = new SessionTree(grown.entries);
    expect(resolveMasks(tree.pathTo(second.id))).toEqual(new Set([results[0]!.id, results[1]!.id, results[2]!.id]));
    expect(resolveMasks(tree.pathTo(undo.id))).toEqual(new Set([results[0]!.id, results[1]!.id]));
    expect(resolveMasks(tree.pathTo(leaf))).toEqual(new Set());
  });
});

describe('the stub', () => {
  const result = (content: ToolResultMessage['content'], isError = false, toolName = 'bash'): ToolResultMessage => ({ role: 'toolResult', toolCallId: 'call-1', toolName, content, isError });
  const text = (t: string) => ({ type: 'text' as const, text: t });
  const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };

  it.each([
    ['one line', [text('ok')], false, '[Old bash output masked to save context (1 line); it began: ok]'],
    ['lines are counted, the first one quoted', [text('total 12\n-rw-r--r-- a\n-rw-r--r-- b')], false, '[Old bash output masked to save context (3 lines); it began: total 12]'],
    ['the first line with something on it, trimmed', [text('\n   \n   npm ERR! missing script  \nmore')], true, '[Old bash output masked to save context (4 lines, error); it began: npm ERR! missing script]'],
    ['text parts are read as one text', [text('first'), text('second')], false, '[Old bash output masked to save context (2 lines); it began: first]'],
    ['an image', [image], false, '[Old bash output masked to save context (1 image)]'],
    ['text and images', [text('screenshot'), image, image], false, '[Old bash output masked to save context (1 line, 2 images); it began: screenshot]'],
    ['nothing at all', [], false, '[Old bash output masked to save context (empty)]'],
    ['only blank lines', [text('\n\n')], true, '[Old bash output masked to save context (3 lines, error)]'],
  ] as const)('%s', (_what, content, isError, expected) => {
    expect(maskStubText(result([...content], isError))).toBe(expected);
  });

  it('quotes at most 100 characters of the first line, and says when it cut', () => {
    const quoted = (first: string) => maskStubText(result([text(`${first}\nrest`)])).match(/it began: (.*)\]$/)![1];
    expect(quoted('x'.repeat(100))).toBe('x'.repeat(100));
    expect(quoted('y'.repeat(101))).toBe(`${'y'.repeat(100)}…`);
    expect(quoted('z'.repeat(5000))).toBe(`${'z'.repeat(100)}…`);
  });

  it.each(['claudeLog', 'codexRollout'] as const)('%s: every real result masks to one short line naming its tool, with the same call id, name and error flag', (name) => {
    for (const e of agent(name).results) {
      const m = e.message;
      const stub = maskedMessage(m);
      expect(stub).toMatchObject({ role: 'toolResult', toolCallId: m.toolCallId, toolName: m.toolName, isError: m.isError });
      expect(stub.content).toHaveLength(1);
      const line = stub.content[0]!.type === 'text' ? stub.content[0]!.text : '';
      expect(line).not.toMatch(/\n/);
      expect(line).toContain(`Old ${m.toolName} output`);
      expect(line.length).toBeLessThanOrEqual(m.toolName.length + 200);
    }
  });
});
