import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { TreeBuilder } from '@/lib/testing/builder';
import { claudeCodeWithCompaction } from '@/lib/testing/claudeCodeCompaction';
import { readFixture } from '@/lib/testing/fixtures';
import { buildTimeline, type TimelineItem } from './build';

type SummaryItem = Extract<TimelineItem, { kind: 'summary' }>;
const cards = (items: TimelineItem[]) => items.filter((i): i is SummaryItem => i.kind === 'summary');

describe('buildTimeline', () => {
  it('lays out the real pi session: turns, then two compaction cards with what each summarised and kept', () => {
    const [snap] = importText(readFixture('piV1'), { fileName: 'compact.jsonl' }).sessions;
    const tree = new SessionTree(snap!.entries);
    const ctx = buildSessionContext(tree, snap!.meta.leafId);
    const items = buildTimeline(tree, ctx);
    const [c1, c2] = cards(items);
    expect(cards(items)).toHaveLength(2);
    expect(items.map((i) => i.kind)).toEqual(['turns', 'summary', 'turns', 'summary']);

    // Compaction 1 summarised everything before its first kept entry (file index 573) and kept up to itself.
    const path = ctx.path;
    const firstKept = path.findIndex((e) => e.id === (c1!.entry.type === 'compaction' ? c1!.entry.firstKeptEntryId : ''));
    expect(c1!.summarized.firstId).toBe(path.find((e) => e.type === 'message')!.id);
    expect(c1!.summarized.lastId).toBe(path[firstKept - 1]!.id);
    expect(c1!.kept!.firstId).toBe(path[firstKept]!.id);
    expect(c1!.inEffect).toBe(false);
    // Compaction 2 (pi PR 1585): starts at compaction 1's kept start, and kept nothing.
    expect(c2!.summarized.firstId).toBe(path[firstKept]!.id);
    expect(c2!.kept!.entries).toHaveLength(0);
    expect(c2!.inEffect).toBe(true);
    // Every message on the path is in exactly one turn.
    const turnEntries = items.flatMap((i) => (i.kind === 'turns' ? i.turns.flatMap((t) => t.entries) : []));
    expect(turnEntries).toHaveLength(path.filter((e) => e.type === 'message').length);
    // Turns before compaction 2 are no longer in context.
    const lastTurns = items[2]!.kind === 'turns' ? items[2]!.turns : [];
    expect(lastTurns.every((t) => !t.inContext)).toBe(true);
  });

  it('shows branch summaries with the branch they replaced, and other branches only on request', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    b.user('tried X');
    const left = b.assistant('X failed');
    b.at(a1);
    b.branchSummary('X was tried and failed', left.id);
    b.user('try Y');
    const yWorks = b.assistant('Y works');
    // A compaction on the abandoned branch, only visible with allBranches.
    b.at(left);
    b.compaction('side summary', left.id);
    const tree = new SessionTree(b.entries);
    const ctx = buildSessionContext(tree, yWorks.id);
    const [card] = cards(buildTimeline(tree, ctx));
    expect(card!.entry.type).toBe('branch_summary');
    expect(card!.summarized.entries.map((e) => e.id)).toEqual([b.entries[2]!.id, left.id]);
    expect(cards(buildTimeline(tree, ctx, { allBranches: true }))).toHaveLength(2);
    expect(cards(buildTimeline(tree, ctx, { allBranches: true }))[1]!.onPath).toBe(false);
    expect(ctx.path[0]!.id).toBe(u1.id);
  });

  it('marks an undone compaction as not in effect', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const u2 = b.user('q2');
    const c = b.compaction('S', u2.id);
    b.revision(c.id, 'undo');
    const tree = new SessionTree(b.entries);
    const [card] = cards(buildTimeline(tree, buildSessionContext(tree, b.cursor)));
    expect(card!.effective.undone).toBe(true);
    expect(card!.inEffect).toBe(false);
    expect(card!.summarized.entries).toHaveLength(2);
  });

  it('an imported Claude Code compaction: summarised is the whole conversation before it, kept is nothing, and it can be regenerated', () => {
    const built = claudeCodeWithCompaction('claudeLog');
    const [snap] = importText(built.text, { fileName: 'compacted.jsonl' }).sessions;
    const tree = new SessionTree(snap!.entries);
    const ctx = buildSessionContext(tree, snap!.meta.leafId);
    const [card] = cards(buildTimeline(tree, ctx));
    const before = ctx.path.slice(0, ctx.path.findIndex((e) => e.id === built.boundaryUuid));
    const conversation = before.filter((e) => e.type === 'message');
    expect(conversation.length).toBeGreaterThan(20);
    expect(card!.summarized.entries.map((e) => e.id)).toEqual(conversation.map((e) => e.id));
    expect(card!.kept!.entries).toHaveLength(0);
    expect(card!.inEffect).toBe(true);
    expect(card!.historyMissing).toBe(false);
    // Every turn before it is out of the model's context; the turn after it is in.
    const turns = buildTimeline(tree, ctx).flatMap((i) => (i.kind === 'turns' ? i.turns : []));
    expect(turns.filter((t) => t.inContext).map((t) => t.prompt?.id)).toEqual([built.promptUuid]);
  });

  it('a compaction whose history is not in the session (the file opens with it) says so', () => {
    const [snap] = importText(claudeCodeWithCompaction('claudeLog', { atStart: true }).text, { fileName: 'compacted.jsonl' }).sessions;
    const tree = new SessionTree(snap!.entries);
    const [card] = cards(buildTimeline(tree, buildSessionContext(tree, snap!.meta.leafId)));
    expect(card!.summarized.entries).toHaveLength(0);
    expect(card!.historyMissing).toBe(true);
  });
});
