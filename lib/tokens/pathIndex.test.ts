import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSessionContext } from '@/lib/session/context';
import { isMaskUndone, maskStubText, resolveMasks } from '@/lib/session/masks';
import { resolveSummaries } from '@/lib/session/revisions';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, EntryId, SessionEntry, Usage } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { Rng } from '@/lib/testing/generate';
import { countEntry, countText, createExactCounter } from './exact';
import { MESSAGE_OVERHEAD, summaryText } from './entryText';
import { mediaParts } from './entryText';
import { mediaTokens } from './mediaTokens';
import { PathTokenIndex, usableUsage, usageContextTokens } from './pathIndex';
import { pathTokensFromCounts } from './pathTokens';

const counter = () => createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });
const media = (e: SessionEntry) => mediaTokens(mediaParts(e), 'anthropic');
const summaryTokens = (kind: 'compaction' | 'branch_summary', s: string) => countText(summaryText(kind, s)) + MESSAGE_OVERHEAD;

const CAL = { factor: 1.25, offset: 300, approximate: true };
const REQUEST = 7;

// ------------------------------------------------------------------ reference: everything from scratch

/**
 * Per-entry counts computed from the path alone (no incremental state).
 * own: what the entry is when it reaches the model (lib/compaction's PathTokens);
 * verbatim: what it adds inside the kept part of the context.
 */
function referenceCounts(path: SessionEntry[], f: number, view: 'own' | 'verbatim'): number[] {
  const summaries = resolveSummaries(path);
  const masked = resolveMasks(path);
  return path.map((e) => {
    // A masked text tool result counts as its stub in both views.
    if (e.type === 'message' && e.message.role === 'toolResult' && masked.has(e.id) && media(e) === 0) return f * (countText(maskStubText(e.message)) + MESSAGE_OVERHEAD);
    if (e.type === 'compaction') return view === 'own' ? f * summaryTokens('compaction', summaries.get(e.id)!.summary) : 0;
    if (e.type === 'branch_summary') {
      const s = summaries.get(e.id)!;
      return s.undone && view === 'verbatim' ? 0 : f * summaryTokens('branch_summary', s.summary);
    }
    return f * countEntry(e).o200k + media(e);
  });
}

/** Estimate of the context as buildSessionContext returns it: summary, kept entries, branch summaries. */
function referenceEstimate(tree: SessionTree, leaf: EntryId | null): number {
  const ctx = buildSessionContext(tree, leaf);
  let raw = REQUEST;
  let med = 0;
  for (const item of ctx.items) {
    if (item.kind === 'message') {
      // The message as the model gets it: a masked result is its stub, a pinned message is carried as it is.
      const e = { ...tree.get(item.entryId)!, message: item.message, tokens: undefined } as SessionEntry;
      raw += countEntry(e).o200k;
      med += media(e);
    } else raw += summaryTokens(item.kind === 'compactionSummary' ? 'compaction' : 'branch_summary', item.summary);
  }
  return CAL.factor * raw + CAL.offset + med;
}

/**
 * The hybrid figure from scratch: the last usable usage after every point
 * that changed the context (a compaction, an applied summary revision, a
 * model change), plus the entries after it.
 */
function referenceFigure(tree: SessionTree, leaf: EntryId | null): { tokens: number; source: string } {
  const path = tree.pathTo(leaf);
  const counts = referenceCounts(path, CAL.factor, 'verbatim');
  const summaries = resolveSummaries(path);
  const position = new Map(path.map((e, i) => [e.id, i]));
  // Walk back: a compaction in effect or a model change ends the search; a report
  // counts unless a later revision changed a summary at or before it.
  let firstRevised = Infinity;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i]!;
    if ((e.type === 'compaction' && !summaries.get(e.id)?.undone) || e.type === 'model_change' || e.type === 'pin') break;
    if (e.type === 'tool_mask' && !isMaskUndone(path, e.id)) break;
    if (e.type === 'summary_revision') {
      const isMask = path.some((m) => m.type === 'tool_mask' && m.id === e.targetId && position.get(m.id)! < i);
      const applied = isMask ? e.action === 'undo' || e.action === 'redo' : summaries.has(e.targetId) && (e.action === 'undo' || e.action === 'redo' || e.summary !== undefined);
      if (applied) firstRevised = Math.min(firstRevised, position.get(e.targetId)!);
      continue;
    }
    const u = usableUsage(e);
    if (u) {
      if (firstRevised <= i) break;
      let after = 0;
      for (let j = i + 1; j < path.length; j++) after += counts[j]!;
      return { tokens: Math.round(usageContextTokens(u) + after), source: 'usage+estimate' };
    }
  }
  return { tokens: Math.round(referenceEstimate(tree, leaf)), source: 'estimate' };
}

// ------------------------------------------------------------------ random sessions

const WORDS = 'the worker counts tokens once per entry and keeps prefix sums so that the cut point is cheap to find again'.split(' ');
const JPEG = readFileSync(fileURLToPath(new URL('./testdata/commented-1201x803.jpg', import.meta.url))).toString('base64');

function text(r: Rng): string {
  return Array.from({ length: r.int(1, 30) }, () => r.pick(WORDS)).join(' ');
}

/**
 * `pinsAndMasks`: a session of an agent whose user pins and masks a lot: one entry in five a pin, one in
 * eight a mask or its undo / redo, and pins aimed at tool calls (whose results are carried with them).
 */
function randomEntry(r: Rng, id: string, parent: SessionEntry | null, path: SessionEntry[], pinsAndMasks = false): SessionEntry {
  const base = { id, parentId: parent?.id ?? null, timestamp: Number(id.slice(1)) };
  let roll = r.next();
  if (pinsAndMasks) {
    const h = r.next();
    if (h < 0.2) roll = 0.95;
    else if (h < 0.32) roll = 0.97;
  }
  const summaries = path.filter((e) => e.type === 'compaction' || e.type === 'branch_summary');
  if (roll < 0.22) {
    const content: ({ type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string })[] = [{ type: 'text', text: text(r) }];
    if (r.chance(0.1)) content.push({ type: 'image', mimeType: 'image/jpeg', data: JPEG });
    return { ...base, type: 'message', message: { role: 'user', content } };
  }
  if (roll < 0.5) {
    const usage: Usage | undefined = r.chance(0.6) ? { input: r.int(0, 5000), output: r.int(1, 500), cacheRead: r.int(0, 40000) } : undefined;
    const msg: AssistantMessage = {
      role: 'assistant',
      content: r.chance(0.3) ? [{ type: 'toolCall', id: `c${id}`, name: 'bash', arguments: { command: text(r) } }] : [{ type: 'text', text: text(r) }],
      ...(usage ? { usage } : {}),
      ...(r.chance(0.08) ? { stopReason: r.pick(['error', 'aborted'] as const) } : {}),
    };
    if (r.chance(0.05)) msg.content = [];
    return { ...base, type: 'message', message: msg };
  }
  if (roll < 0.68) {
    // Usually the answer to the latest call on the path (so pinned calls carry their results).
    const call = path.findLast((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content.some((c) => c.type === 'toolCall'));
    const callId = call?.type === 'message' && call.message.role === 'assistant' ? call.message.content.find((c) => c.type === 'toolCall')?.id : undefined;
    return { ...base, type: 'message', message: { role: 'toolResult', toolCallId: callId ?? 'c', toolName: 'bash', content: [{ type: 'text', text: text(r) }], isError: false } };
  }
  if (roll < 0.75 && path.length > 0) {
    // Usually an entry on the path; sometimes a dangling id, as a damaged import has.
    const firstKept = r.chance(0.9) ? r.pick(path).id : 'missing';
    return { ...base, type: 'compaction', summary: text(r), firstKeptEntryId: firstKept, tokensBefore: 1000, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } };
  }
  if (roll < 0.8) return { ...base, type: 'branch_summary', fromId: path.at(-1)?.id ?? 'x', summary: text(r), details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } };
  if (roll < 0.9 && summaries.length > 0) {
    const action = r.pick(['undo', 'redo', 'edit', 'regenerate', 'edit'] as const);
    const target = r.chance(0.9) ? r.pick(summaries).id : 'elsewhere';
    return { ...base, type: 'summary_revision', targetId: target, action, ...(action === 'edit' || (action === 'regenerate' && r.chance(0.7)) ? { summary: text(r) } : {}) };
  }
  if (roll < 0.94) return { ...base, type: 'model_change', model: r.pick(['anthropic:claude-sonnet-4-5', 'google:gemini-2.5-pro']) };
  if (roll < 0.965) {
    // Pin or unpin a message on the path (sometimes one that cannot be pinned, or is not there).
    const messages = path.filter((e) => e.type === 'message');
    const calls = messages.filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content.some((c) => c.type === 'toolCall'));
    const pool = pinsAndMasks && calls.length && r.chance(0.6) ? calls : messages;
    const target = pool.length && r.chance(0.9) ? r.pick(pool).id : 'elsewhere';
    return { ...base, type: 'pin', targetId: target, pinned: r.chance(0.75) };
  }
  if (roll < 0.985) {
    const results = path.filter((e) => e.type === 'message' && e.message.role === 'toolResult');
    const masks = path.filter((e) => e.type === 'tool_mask');
    if (masks.length && r.chance(0.4)) return { ...base, type: 'summary_revision', targetId: r.pick(masks).id, action: r.pick(['undo', 'redo'] as const) };
    const maskedIds = results.filter(() => r.chance(0.5)).map((e) => e.id);
    return { ...base, type: 'tool_mask', maskedIds, tokensBefore: 0, tokensAfter: 0, protectTokens: 0 };
  }
  return { ...base, type: 'label', targetId: path.at(-1)?.id ?? 'x', label: 'mark' };
}

function check(index: PathTokenIndex, tree: SessionTree, leaf: EntryId | null) {
  const path = tree.pathTo(leaf);
  expect(index.entries().map((e) => e.id)).toEqual(path.map((e) => e.id));
  // Per-entry counts and prefix sums of the own view (lib/compaction's PathTokens) equal a recomputation from scratch.
  const ref = referenceCounts(path, CAL.factor, 'own');
  const got = index.pathTokens();
  expect(got.counts.length).toBe(ref.length);
  ref.forEach((c, i) => expect(got.counts[i], `own ${i}`).toBeCloseTo(c, 6));
  const refPrefix = pathTokensFromCounts(ref).prefix;
  for (let i = 0; i <= ref.length; i++) expect(got.prefix[i], `own prefix ${i}`).toBeCloseTo(refPrefix[i]!, 6);
  // The context figure (which sums the verbatim view) equals the from-scratch hybrid rule.
  const fig = index.figure();
  const refFig = referenceFigure(tree, leaf);
  expect(fig.source).toBe(refFig.source);
  expect(Math.abs(fig.tokens - refFig.tokens)).toBeLessThanOrEqual(1);
  // What the cut search takes from the index instead of a pass over the path: where the
  // region a compaction may summarise starts, and which summaries are undone.
  expect(index.compactionState().keptFromIndex).toBe(buildSessionContext(tree, leaf).keptFromIndex);
  const summaries = resolveSummaries(path);
  const states = index.summaryStates();
  for (const e of path) {
    if (e.type === 'compaction' || e.type === 'branch_summary') expect(states.get(e.id)?.undone, `undone ${e.id}`).toBe(summaries.get(e.id)!.undone);
  }
  // The counted context, whatever was reported: as buildSessionContext puts it together.
  expect(index.estimate()).toBeCloseTo(referenceEstimate(tree, leaf), 6);
  // What a compaction appended at the leaf, keeping the path from a user message in its second half (a cut
  // compaction can make: never between a call and its result), would leave: its card's figure.
  const keptFromIndex = path.findIndex((e, i) => i >= path.length / 2 && e.type === 'message' && e.message.role === 'user');
  if (leaf && keptFromIndex >= 0) {
    const summary = `Summary of ${keptFromIndex} entries.`;
    const compaction: SessionEntry = {
      type: 'compaction',
      id: 'would-be',
      parentId: leaf,
      timestamp: 0,
      summary,
      firstKeptEntryId: path[keptFromIndex]!.id,
      tokensBefore: 0,
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } },
    };
    const after = new SessionTree([...tree.entries(), compaction]);
    expect(index.countedAfterCompaction(keptFromIndex, summary)).toBe(Math.max(0, Math.round(referenceEstimate(after, compaction.id))));
  }
}

describe('PathTokenIndex', () => {
  for (const [seed, pinsAndMasks] of [[1, false], [2, false], [3, false], [4, false], [5, false], [6, false], [7, true], [8, true], [9, true]] as const) {
    it(`equals a from-scratch recomputation after random appends, leaf switches and updates (seed ${seed}${pinsAndMasks ? ', many pins and masks' : ''})`, () => {
      const r = new Rng(seed);
      const all: SessionEntry[] = [];
      const byId = new Map<EntryId, SessionEntry>();
      const index = new PathTokenIndex(counter(), { calibration: CAL, requestTokens: REQUEST });
      let leaf: EntryId | null = null;
      let n = 0;
      let switches = 0;
      let replaces = 0;
      for (let step = 0; step < 250; step++) {
        const tree = new SessionTree(all);
        const op = r.next();
        if (op < 0.12 && all.length > 0) {
          // Move the leaf somewhere else in the tree.
          const target = r.pick(all).id;
          const ancestor = leaf ? tree.commonAncestor(leaf, target) : null;
          const newPath = tree.pathTo(target);
          const tail = ancestor ? newPath.slice(newPath.findIndex((e) => e.id === ancestor) + 1) : newPath;
          index.switchTo(ancestor, tail);
          leaf = target;
          switches++;
        } else if (op < 0.17 && leaf) {
          // A reply on the path got its final usage (the streaming case).
          const path = tree.pathTo(leaf);
          const target = path.filter((e) => e.type === 'message' && e.message.role === 'assistant').at(-1);
          if (target && target.type === 'message' && target.message.role === 'assistant') {
            const updated: SessionEntry = { ...target, message: { ...target.message, usage: { input: r.int(100, 9000), output: r.int(1, 400) } } };
            all[all.indexOf(target)] = updated;
            byId.set(updated.id, updated);
            index.replace(updated);
            replaces++;
          }
        } else {
          const parent = leaf ? byId.get(leaf)! : null;
          const e = randomEntry(r, `e${++n}`, parent, index.entries() as SessionEntry[], pinsAndMasks);
          all.push(e);
          byId.set(e.id, e);
          index.push(e);
          leaf = e.id;
        }
        check(index, new SessionTree(all), leaf);
      }
      expect(switches).toBeGreaterThan(10);
      expect(replaces).toBeGreaterThan(3);
    });
  }

  it('refuses an entry that is not a child of the leaf', () => {
    const b = new TreeBuilder();
    const u = b.user('a');
    b.assistant('b');
    const index = new PathTokenIndex(counter());
    index.push(u);
    const stray = new TreeBuilder().user('c');
    expect(() => index.push({ ...stray, parentId: 'nowhere' })).toThrow(/not a child/);
  });
});

describe('hybrid context figure', () => {
  const usage = (input: number, output: number, cacheRead = 0): Partial<AssistantMessage> => ({ usage: { input, output, cacheRead }, stopReason: 'stop' });

  it('uses the last reply usage plus counts of what follows it', () => {
    const b = new TreeBuilder();
    const u1 = b.user('first question');
    const a1 = b.assistant('first answer', undefined, usage(100, 20, 1000));
    const u2 = b.user('a follow-up question with a few more words');
    const index = new PathTokenIndex(counter());
    for (const e of [u1, a1, u2]) index.push(e);
    const fig = index.figure(200_000);
    expect(fig.source).toBe('usage+estimate');
    expect(fig.usageTokens).toBe(100 + 20 + 1000);
    expect(fig.tokens).toBe(1120 + countEntry(u2).o200k);
    expect(fig.window).toBe(200_000);
  });

  it('ignores usage reported before the compaction in effect', () => {
    const b = new TreeBuilder();
    const u1 = b.user('long history');
    const a1 = b.assistant('long answer', undefined, usage(150_000, 2_000));
    const u2 = b.user('kept question');
    const a2 = b.assistant('kept answer', undefined, usage(160_000, 1_000));
    const c = b.compaction('what happened so far', u2.id);
    const u3 = b.user('next question');
    const index = new PathTokenIndex(counter(), { requestTokens: 3 });
    for (const e of [u1, a1, u2, a2, c, u3]) index.push(e);
    const fig = index.figure();
    // Not 161,000 + something: the reports measured the history the summary replaced.
    expect(fig.source).toBe('estimate');
    const expected = 3 + countEntry(c).o200k + countEntry(u2).o200k + countEntry(a2).o200k + countEntry(u3).o200k;
    expect(fig.tokens).toBe(expected);
    expect(fig.tokens).toBeLessThan(1_000);

    // The first reply after the compaction becomes the new anchor.
    const a3 = b.assistant('fresh answer', undefined, usage(900, 50));
    index.push(a3);
    expect(index.figure()).toMatchObject({ source: 'usage+estimate', tokens: 950 });

    // Undoing the compaction brings the old history back: usage before the undo is stale again.
    const undo = b.revision(c.id, 'undo');
    index.push(undo);
    const afterUndo = index.figure();
    expect(afterUndo.source).toBe('estimate');
    expect(afterUndo.tokens).toBe(3 + [u1, a1, u2, a2, u3, a3].reduce((n, e) => n + countEntry(e).o200k, 0));
    index.pop();
    expect(index.figure()).toMatchObject({ source: 'usage+estimate', tokens: 950 });
  });

  it('skips failed or streaming replies as anchors', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q');
    const a1 = b.assistant('ok', undefined, usage(500, 10));
    const u2 = b.user('q2');
    const a2 = b.assistant('partial', undefined, { usage: { input: 99_999, output: 1 }, stopReason: 'aborted' });
    const index = new PathTokenIndex(counter());
    for (const e of [u1, a1, u2, a2]) index.push(e);
    expect(index.figure()).toMatchObject({ source: 'usage+estimate', usageTokens: 510 });
  });

  it('prices images by the provider formula, not by their base64', () => {
    const b = new TreeBuilder();
    const u = b.user('look');
    const withImage: SessionEntry = { ...u, message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/jpeg', data: JPEG }] } } as SessionEntry;
    const index = new PathTokenIndex(counter());
    index.push(withImage);
    expect(index.figure().tokens).toBe(countEntry(withImage).o200k + Math.ceil((1201 * 803) / 750));
  });
});

describe('PathTokenIndex: pins', () => {
  it('a result of a pinned call that is popped (a leaf switch) leaves the carried context, and its replacement joins it', () => {
    const t = 1_700_000_000_000;
    const call: SessionEntry = { id: 'a1', parentId: 'u1', timestamp: t + 1, type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls -la' } }] } };
    const result = (id: string, text: string): SessionEntry => ({ id, parentId: 'p1', timestamp: t + 3, type: 'message', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text }], isError: false } });
    const tail = (r: SessionEntry, n: string): SessionEntry[] => [
      r,
      { id: `u2${n}`, parentId: r.id, timestamp: t + 4, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'next question' }] } },
      { id: `k${n}`, parentId: `u2${n}`, timestamp: t + 5, type: 'compaction', summary: 'Listed the files.', firstKeptEntryId: `u2${n}`, tokensBefore: 100, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
    ];
    const head: SessionEntry[] = [
      { id: 'u1', parentId: null, timestamp: t, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'list the files' }] } },
      call,
      { id: 'p1', parentId: 'a1', timestamp: t + 2, type: 'pin', targetId: 'a1', pinned: true },
    ];
    const first = tail(result('r1', 'a.ts b.ts c.ts'), 'a');
    const second = tail(result('r2', 'only one file here, after all: '.repeat(20)), 'b');
    const all = [...head, ...first, ...second];
    const index = new PathTokenIndex(counter(), { calibration: CAL, requestTokens: REQUEST });
    for (const e of [...head, ...first]) index.push(e);
    check(index, new SessionTree(all), 'ka');
    expect(buildSessionContext(new SessionTree(all), 'ka').items.map((it) => it.entryId)).toEqual(['ka', 'a1', 'r1', 'u2a']);
    index.switchTo('p1', second);
    check(index, new SessionTree(all), 'kb');
    expect(buildSessionContext(new SessionTree(all), 'kb').items.map((it) => it.entryId)).toEqual(['kb', 'a1', 'r2', 'u2b']);
  });
});

describe('PathTokenIndex: usage after an undone compaction', () => {
  it('returns to the reported figure when the compaction after the report is undone, and not when an earlier summary is revised', () => {
    const b = new TreeBuilder();
    const u1 = b.user('first question about the cache');
    b.assistant('first answer', undefined, { usage: { input: 500, output: 20 }, status: 'complete' });
    const u2 = b.user('second question');
    b.assistant('second answer', undefined, { usage: { input: 900, output: 30 }, status: 'complete' });
    const before = new PathTokenIndex(counter(), { calibration: { factor: 1, offset: 0, approximate: false }, requestTokens: 3 });
    for (const e of b.entries) before.push(e);
    const reported = before.figure();
    expect(reported.source).toBe('usage+estimate');

    const c = b.compaction('summary', u2.id);
    const idx = new PathTokenIndex(counter(), { calibration: { factor: 1, offset: 0, approximate: false }, requestTokens: 3 });
    for (const e of b.entries) idx.push(e);
    expect(idx.figure().source).toBe('estimate');
    idx.push(b.revision(c.id, 'undo'));
    expect(idx.figure()).toMatchObject({ source: 'usage+estimate', tokens: reported.tokens });
    idx.push(b.revision(c.id, 'redo'));
    expect(idx.figure().source).toBe('estimate');
    idx.push(b.revision(c.id, 'undo'));
    expect(idx.figure().tokens).toBe(reported.tokens);
    // Popping the undo brings the compaction back.
    idx.pop();
    expect(idx.figure().source).toBe('estimate');
    expect(u1.id).toBeTruthy();
  });
});
