import { describe, expect, it } from 'vitest';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { allLeafPaths, entryTokens, loadSession, pathTokens } from '@/lib/testing/compactionData';
import type { FixtureName } from '@/lib/testing/fixtures';
import { countsInKeptContext } from './cutPoint';
import { classifyToolCall } from './fileOps';
import { prepareCompaction, previewCompaction } from './prepare';
import type { CompactionPreparation } from './types';

const settings = (keepRecentTokens: number): CompactionSettings => ({ ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens });

/** Tool results in path[from..) whose call is not in path[from..) although it exists earlier: what a bad cut would orphan. */
function orphanedResults(path: readonly SessionEntry[], from: number): string[] {
  const callsBefore = new Set<string>();
  const callsAfter = new Set<string>();
  path.forEach((e, i) => {
    if (e.type !== 'message' || e.message.role !== 'assistant') return;
    for (const p of e.message.content) if (p.type === 'toolCall') (i < from ? callsBefore : callsAfter).add(p.id);
  });
  const out: string[] = [];
  for (let i = from; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'message' && e.message.role === 'toolResult' && !callsAfter.has(e.message.toolCallId) && callsBefore.has(e.message.toolCallId)) out.push(e.id);
  }
  return out;
}

/** Checks every invariant of a preparation against the path it came from, independently of the implementation. */
function checkInvariants(path: readonly SessionEntry[], p: CompactionPreparation, keep: number): void {
  const first = path[p.firstKeptIndex]!;
  expect(first.id).toBe(p.firstKeptEntryId);
  // Cut never lands on a tool result (nor on a non-message).
  expect(first.type).toBe('message');
  expect(first.type === 'message' && first.message.role).not.toBe('toolResult');
  expect(orphanedResults(path, p.firstKeptIndex)).toEqual([]);

  const summaries = resolveSummaries(path);
  let kept = 0;
  for (let i = p.firstKeptIndex; i < path.length; i++) if (countsInKeptContext(path[i]!, summaries)) kept += entryTokens(path[i]!);
  expect(p.tokensKept).toBe(kept);
  if (!p.force) expect(p.tokensKept).toBeGreaterThanOrEqual(keep);

  // Summarised + turn prefix = exactly the context items between the region start and the cut, in order.
  const expected: string[] = [];
  for (let i = p.summarizeFromIndex; i < p.firstKeptIndex; i++) {
    const e = path[i]!;
    if (countsInKeptContext(e, summaries)) expected.push(e.id);
  }
  expect([...p.messagesToSummarize, ...p.turnPrefixMessages].map((i) => i.entryId)).toEqual(expected);
  expect(p.summarizedEntryCount).toBe(expected.length);
  expect(expected.length).toBeGreaterThan(0);

  if (p.isSplitTurn) {
    expect(first.type === 'message' && first.message.role).toBe('assistant');
    const opener = p.turnPrefixMessages[0]!;
    expect(opener.kind === 'message' && opener.message.role).toBe('user');
    // The opener is the last user message before the cut.
    for (let i = p.turnStartIndex! + 1; i < p.firstKeptIndex; i++) {
      const e = path[i]!;
      expect(e.type === 'message' && e.message.role === 'user').toBe(false);
    }
  } else {
    expect(p.turnPrefixMessages).toEqual([]);
  }
  // Plain data: survives a structured clone unchanged (it crosses the worker boundary).
  expect(structuredClone(p)).toEqual(p);
}

interface Sweep {
  prepared: number;
  split: number;
}

function sweep(path: readonly SessionEntry[], keeps: number[], stride: number): Sweep {
  const out: Sweep = { prepared: 0, split: 0 };
  for (let n = 2; n <= path.length; n += stride) {
    const sub = path.slice(0, n);
    const t = pathTokens(sub);
    for (const keep of keeps) {
      const p = prepareCompaction(sub, t, settings(keep));
      if (!p) {
        const pv = previewCompaction(sub, t, settings(keep));
        expect(pv.ok).toBe(false);
        continue;
      }
      checkInvariants(sub, p, keep);
      out.prepared++;
      if (p.isSplitTurn) out.split++;
    }
  }
  return out;
}

describe('cut points on real transcripts', () => {
  it('pi session: every prefix, several budgets — valid cuts, kept ≥ keep-recent, split turns found', () => {
    const { path } = loadSession('piV1');
    const r = sweep(path, [3000, 8000, 20_000], 11);
    expect(r.prepared).toBeGreaterThan(150);
    expect(r.split).toBeGreaterThan(10);
  });

  it('SWE-agent trajectory: one long turn, so cuts split it', () => {
    const { path } = loadSession('sweTraj');
    const r = sweep(path, [1000, 3000, 6000], 1);
    expect(r.prepared).toBeGreaterThan(20);
    expect(r.split).toBeGreaterThan(10);
  });

  it.each(['claudeLog', 'claudeViewer'] as FixtureName[])('%s: every leaf path (main chain and sub-agent sidechains)', (name) => {
    const s = loadSession(name);
    let prepared = 0;
    let split = 0;
    for (const path of allLeafPaths(s)) {
      const r = sweep(path, [500, 1500, 4000], 1);
      prepared += r.prepared;
      split += r.split;
    }
    expect(prepared).toBeGreaterThan(50);
    expect(split).toBeGreaterThan(0);
  });

  it('SWE: a mid-turn cut sends the issue to the turn prefix and the demonstration to the history', () => {
    const { path } = loadSession('sweTraj');
    const p = prepareCompaction(path, pathTokens(path), settings(3000))!;
    expect(p.isSplitTurn).toBe(true);
    // swe-1 is the demonstration (its own user message), swe-2 the issue that opens the working turn.
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(['swe-1']);
    expect(p.turnPrefixMessages[0]!.entryId).toBe('swe-2');
    expect(path[p.firstKeptIndex]!.type === 'message' && (path[p.firstKeptIndex] as { message: { role: string } }).message.role).toBe('assistant');
  });
});

describe('previous compactions in the real pi session', () => {
  const { path } = loadSession('piV1');
  const idx = (id: string) => path.findIndex((e) => e.id === id);

  it('the leaf is a compaction: nothing to do (an already-compacted tail is not compacted again)', () => {
    expect(path[path.length - 1]!.type).toBe('compaction');
    expect(prepareCompaction(path, pathTokens(path), DEFAULT_COMPACTION_SETTINGS)).toBeNull();
    expect(previewCompaction(path, pathTokens(path), DEFAULT_COMPACTION_SETTINGS, { force: true })).toMatchObject({ ok: false, reason: 'already-compacted' });
  });

  it('before the second compaction: the region starts at the first one’s kept entry (PR 1585), previous summary is its text', () => {
    const sub = path.slice(0, idx('pi-1013'));
    const first = path[idx('pi-669')] as CompactionEntry;
    expect(first.firstKeptEntryId).toBe('pi-573');
    const p = prepareCompaction(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS)!;
    expect(p.summarizeFromIndex).toBe(idx('pi-573'));
    expect([...p.messagesToSummarize, ...p.turnPrefixMessages][0]!.entryId).toBe('pi-573');
    expect(p.previousCompactionId).toBe('pi-669');
    expect(p.previousSummary).toBe(first.summary);
    expect(p.previousSummaryTokens).toBe(entryTokens(first));
    // Context before = the summary in effect + everything the model sees from pi-573 on.
    let ctx = entryTokens(first);
    const eff = resolveSummaries(sub);
    // Empty failed replies (two in this session) are not sent, so they don't count.
    for (let i = idx('pi-573'); i < sub.length; i++) if (countsInKeptContext(sub[i]!, eff)) ctx += entryTokens(sub[i]!);
    expect(p.tokensBefore).toBe(ctx);
    checkInvariants(sub, p, DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
  });
});

describe('file tracking on the pi session', () => {
  // Prepared inside each test, not when the file is collected: code run at collection counts as
  // module-level for mutation testing, which then reruns every test for each of its mutants.
  const setup = () => {
    const { path } = loadSession('piV1');
    const cutAt = path.findIndex((e) => e.id === 'pi-669');
    const sub = path.slice(0, cutAt);
    const p = prepareCompaction(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS)!;
    const ROOT = '/Users/badlogic/workspaces/pi-mono/packages';
    return { sub, p, ROOT };
  };

  it('lists real paths read and modified before the cut', () => {
    const { p, ROOT } = setup();
    expect(p.fileOps.modifiedFiles).toContain(`${ROOT}/coding-agent/src/core/sdk.ts`);
    expect(p.fileOps.modifiedFiles).toContain(`${ROOT}/coding-agent/CHANGELOG.md`);
    expect(p.fileOps.readFiles).toContain(`${ROOT}/coding-agent/src/main.ts`);
    expect(p.fileOps.readFiles).toContain(`${ROOT}/agent/src/agent.ts`);
  });

  it('a file read and then edited is listed as modified only', () => {
    const { p, ROOT } = setup();
    // sdk.ts is read at pi-8 and edited at pi-54 in the real session.
    const sdk = `${ROOT}/coding-agent/src/core/sdk.ts`;
    expect(p.fileOps.readFiles).not.toContain(sdk);
    for (const f of p.fileOps.modifiedFiles) expect(p.fileOps.readFiles).not.toContain(f);
  });

  it('matches an independent scan of the summarised tool calls', () => {
    const { sub, p } = setup();
    const read = new Set<string>();
    const modified = new Set<string>();
    for (let i = 0; i < p.firstKeptIndex; i++) {
      const e = sub[i]!;
      if (e.type !== 'message' || e.message.role !== 'assistant') continue;
      for (const c of e.message.content) {
        if (c.type !== 'toolCall') continue;
        if (c.name === 'read') read.add(String(c.arguments.path));
        if (c.name === 'edit' || c.name === 'write') modified.add(String(c.arguments.path));
      }
    }
    expect(p.fileOps.modifiedFiles).toEqual([...modified].sort());
    expect(p.fileOps.readFiles).toEqual([...read].filter((f) => !modified.has(f)).sort());
  });

  it('Claude Code tool names and argument keys are recognised', () => {
    const s = loadSession('claudeViewer');
    const seen = { read: new Set<string>(), modified: new Set<string>() };
    for (const e of s.snapshot.entries) {
      if (e.type !== 'message' || e.message.role !== 'assistant') continue;
      for (const c of e.message.content) {
        if (c.type !== 'toolCall') continue;
        const r = classifyToolCall(c);
        r.read.forEach((f) => seen.read.add(f));
        r.modified.forEach((f) => seen.modified.add(f));
      }
    }
    // Read / Write / Edit / MultiEdit with file_path in the real transcript.
    expect(seen.read.size).toBeGreaterThan(5);
    expect(seen.modified.size).toBeGreaterThan(5);
    for (const f of [...seen.read, ...seen.modified]) expect(f.startsWith('/')).toBe(true);
  });
});
