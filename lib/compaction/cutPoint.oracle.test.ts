import { describe, expect, it } from 'vitest';
import { resolveSummaries } from '@/lib/session/revisions';
import type { ChatMessage, SessionEntry } from '@/lib/session/types';
import { allLeafPaths, entryTokens, loadSession } from '@/lib/testing/compactionData';
import { Rng } from '@/lib/testing/generate';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { countsInKeptContext, findCutPoint, type CutSearch } from './cutPoint';

/**
 * findCutPoint against a brute-force reading of its rules, on random paths
 * (parallel calls written as separate entries, results out of order or
 * without a call, empty failed replies, undone branch summaries, bookkeeping
 * entries) and on the real transcripts' paths, for random budgets:
 *
 * - a cut lands on a user or assistant message and orphans no tool result
 *   (a result whose call is not in the region at all cannot be matched and
 *   does not count), with something before it to summarise;
 * - its kept tokens are exactly what reaches the model from the cut on;
 * - it keeps no more than keep-recent needs: no later valid cut would also
 *   hold keep-recent within the room (short turn prefixes aside, which are
 *   kept whole);
 * - over the limit it fits the room when any cut can, and then keeps as
 *   much as fits: no earlier valid cut fits too;
 * - it refuses only when no cut could satisfy what was asked;
 * - keep-recent 0 keeps nothing (the cut is past the end) exactly when the
 *   last message the model sees is a reply that asked for no tool.
 *
 * Every oracle below scans the whole path for every candidate cut: O(n²),
 * written for clarity, not shared with the implementation.
 */

type Msg = ChatMessage;

interface Case {
  path: SessionEntry[];
  counts: number[];
  undone: Set<string>;
}

/** A random path: turns of a prompt, replies with tool calls (sometimes one call per entry) and their results. */
function randomPath(r: Rng): Case {
  const path: SessionEntry[] = [];
  const counts: number[] = [];
  const undone = new Set<string>();
  let n = 0;
  let call = 0;
  const push = (e: Omit<SessionEntry, 'id' | 'parentId' | 'timestamp'>, tokens: number) => {
    const id = `e${n++}`;
    path.push({ ...e, id, parentId: path.at(-1)?.id ?? null, timestamp: n } as SessionEntry);
    counts.push(tokens);
    return id;
  };
  const size = () => (r.chance(0.06) ? r.int(800, 3000) : r.int(1, 200));
  const message = (message: Msg) => push({ type: 'message', message } as never, size());
  const turns = r.int(1, 7);
  for (let t = 0; t < turns; t++) {
    if (r.chance(0.1)) push({ type: 'compaction', summary: 'earlier', firstKeptEntryId: 'e0', tokensBefore: 1, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } } as never, r.int(1, 300));
    if (r.chance(0.1)) {
      const id = push({ type: 'branch_summary', fromId: 'e0', summary: 'a branch', details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } } as never, r.int(1, 300));
      if (r.chance(0.4)) undone.add(id);
    }
    if (r.chance(0.1)) push({ type: 'label', targetId: 'e0', label: 'x' } as never, 0);
    if (!r.chance(0.1)) message({ role: 'user', content: [{ type: 'text', text: 'do it' }] });
    const steps = r.int(0, 4);
    for (let s = 0; s < steps; s++) {
      if (r.chance(0.08)) {
        message({ role: 'assistant', content: [], stopReason: 'error' });
        continue;
      }
      const calls = Array.from({ length: r.chance(0.4) ? 0 : r.int(1, 3) }, () => `c${call++}`);
      const split = calls.length > 1 && r.chance(0.5);
      if (split) for (const id of calls) message({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: {} }] });
      else message({ role: 'assistant', content: [{ type: 'text', text: 'ok' }, ...calls.map((id) => ({ type: 'toolCall' as const, id, name: 'read', arguments: {} }))] });
      const results = calls.filter(() => !r.chance(0.1));
      if (r.chance(0.3)) results.reverse();
      // A result whose call is nowhere on the path (a truncated log).
      if (r.chance(0.05)) results.push(`lost${call++}`);
      for (const id of results) message({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'out' }], isError: false });
    }
  }
  return { path, counts, undone };
}

const validMessage = (e: SessionEntry | undefined) => e?.type === 'message' && (e.message.role === 'user' || e.message.role === 'assistant');
const somethingToSummarise = (e: SessionEntry) => e.type === 'message' || e.type === 'branch_summary';

/** The brute-force rules of one search. */
function oracle(c: Case, boundaryStart: number) {
  const { path, counts } = c;
  const summaries = new Map([...resolveSummaries(path)].map(([id, s]) => [id, { ...s, undone: s.undone || c.undone.has(id) }]));
  const inContext = (i: number) => countsInKeptContext(path[i]!, summaries);
  const callsAt = new Map<string, number[]>();
  path.forEach((e, i) => {
    if (e.type === 'message' && e.message.role === 'assistant') for (const p of e.message.content) if (p.type === 'toolCall') callsAt.set(p.id, [...(callsAt.get(p.id) ?? []), i]);
  });
  const end = path.length;
  /** Results in the region whose call is not in the region: nothing can be kept with them. */
  const unmatchable = new Set<string>();
  for (let i = boundaryStart; i < end; i++) {
    const e = path[i]!;
    if (e.type === 'message' && e.message.role === 'toolResult' && !(callsAt.get(e.message.toolCallId) ?? []).some((ci) => ci >= boundaryStart)) unmatchable.add(e.message.toolCallId);
  }
  const kept = (j: number) => {
    let k = 0;
    for (let i = j; i < end; i++) if (inContext(i)) k += counts[i]!;
    return k;
  };
  const orphansNothing = (j: number, strict = false) => {
    for (let i = j; i < end; i++) {
      const e = path[i]!;
      if (e.type !== 'message' || e.message.role !== 'toolResult' || (!strict && unmatchable.has(e.message.toolCallId))) continue;
      if (!(callsAt.get(e.message.toolCallId) ?? []).some((ci) => ci >= j)) return false;
    }
    return true;
  };
  const hasBefore = (j: number) => path.slice(boundaryStart, j).some(somethingToSummarise);
  /** A cut the rules allow, whatever the budget. */
  const valid = (j: number) => j > boundaryStart && j < end && validMessage(path[j]) && orphansNothing(j) && hasBefore(j);
  /** The same, keeping no result whose call is missing either: what a cut must meet when one meeting it holds keep-recent. */
  const strictlyValid = (j: number) => valid(j) && orphansNothing(j, true);
  const candidates = () => Array.from({ length: end }, (_, j) => j).filter(valid);
  const lastUserBefore = (j: number) => {
    for (let i = j - 1; i >= boundaryStart; i--) {
      const e = path[i]!;
      if (e.type === 'message' && e.message.role === 'user') return i;
    }
    return null;
  };
  /** Keep-recent 0 keeps nothing when the last message the model sees asks for nothing more: a reply without tool calls. */
  const keepsNothingAtZero = () => {
    if (!hasBefore(end)) return false;
    for (let i = end - 1; i >= boundaryStart; i--) {
      const e = path[i]!;
      if (e.type !== 'message' || !inContext(i)) continue;
      return e.message.role === 'assistant' && !e.message.content.some((p) => p.type === 'toolCall');
    }
    return true;
  };
  return { inContext, kept, valid, strictlyValid, candidates, lastUserBefore, keepsNothingAtZero };
}

interface Params {
  boundaryStart: number;
  keep: number;
  maxKept?: number;
  lastResort?: number;
  mustFit: boolean;
  force: boolean;
  smallPrefix: number;
}

function randomParams(r: Rng, c: Case): Params {
  const total = c.counts.reduce((a, b) => a + b, 0);
  const boundaryStart = r.chance(0.5) ? 0 : r.int(0, Math.max(0, Math.floor(c.path.length / 2)));
  // Budgets often equal to what some cut keeps, or to a turn prefix, so the rules' bounds are met exactly.
  const o = oracle(c, boundaryStart);
  const exact = o.candidates().map((j) => o.kept(j));
  const prefixes = o.candidates().flatMap((j) => {
    const u = o.lastUserBefore(j);
    if (u === null) return [];
    let n = 0;
    for (let i = u; i < j; i++) if (o.inContext(i)) n += c.counts[i]!;
    return [n];
  });
  const budget = (lo: number, hi: number) => (exact.length > 0 && r.chance(0.35) ? r.pick(exact) : r.int(lo, Math.max(lo, hi)));
  const maxKept = r.chance(0.5) ? budget(0, total) : undefined;
  return {
    boundaryStart,
    keep: r.chance(0.1) ? 0 : budget(1, total),
    maxKept,
    lastResort: maxKept !== undefined && r.chance(0.5) ? Math.max(maxKept, budget(maxKept, total)) : undefined,
    mustFit: r.chance(0.4),
    force: r.chance(0.2),
    smallPrefix: r.chance(0.3) ? 0 : prefixes.length > 0 && r.chance(0.4) ? r.pick(prefixes) : r.int(1, 300),
  };
}

function check(c: Case, p: Params, label: string): void {
  const o = oracle(c, p.boundaryStart);
  const search: CutSearch = {
    path: c.path,
    tokens: pathTokensFromCounts(c.counts),
    boundaryStart: p.boundaryStart,
    keepRecentTokens: p.keep,
    inContext: o.inContext,
    smallPrefixTokens: p.smallPrefix,
    ...(p.maxKept !== undefined ? { maxKeptTokens: p.maxKept } : {}),
    ...(p.lastResort !== undefined ? { lastResortKeptTokens: p.lastResort } : {}),
    mustFit: p.mustFit,
    force: p.force,
  };
  const res = findCutPoint(search);
  const cuts = o.candidates();
  const room = p.maxKept ?? Infinity;
  const at = `${label} ${JSON.stringify(p)} → ${JSON.stringify(res)}`;
  const nothing = p.keep <= 0 && o.keepsNothingAtZero();
  if (nothing) {
    expect(res, `${at}: keep-recent 0 on a conversation at rest keeps nothing`).toEqual({ firstKeptIndex: c.path.length, turnStartIndex: null, keptTokens: 0, forced: false });
    return;
  }
  if ('reason' in res) {
    if (p.force) expect(cuts, at).toEqual([]);
    else if (p.mustFit && p.maxKept !== undefined) {
      // Refused over the limit: no cut fits the room, nor the last-resort room.
      const widest = Math.max(room, p.lastResort ?? -1);
      expect(cuts.filter((j) => o.kept(j) <= widest), at).toEqual([]);
    } else {
      // Nothing to do: no cut keeps keep-recent (and, over the limit, fits).
      expect(cuts.filter((j) => o.kept(j) >= p.keep && (!p.mustFit || o.kept(j) <= room)), at).toEqual([]);
    }
    // Which refusal: over the limit, the recent part is too large; otherwise keep-recent is more than the region holds, or is kept but leaves nothing before it.
    if (p.force) expect(res.reason, at).toBe('nothing-to-summarize');
    else if (p.mustFit) expect(res.reason, at).toBe('recent-too-large');
    else expect(res.reason, at).toBe(o.kept(p.boundaryStart) < p.keep ? 'below-keep-recent' : 'nothing-to-summarize');
    return;
  }
  const j = res.firstKeptIndex;
  expect(j, `${at}: keeps nothing though it was not asked to, or something is waiting`).toBeLessThan(c.path.length);
  expect(o.valid(j), `${at}: the cut is not one the rules allow`).toBe(true);
  expect(res.keptTokens, at).toBe(o.kept(j));
  const opener = o.lastUserBefore(j);
  if (c.path[j]!.type === 'message' && (c.path[j] as { message: Msg }).message.role === 'user') expect(res.turnStartIndex, at).toBeNull();
  else expect(res.turnStartIndex, at).toBe(opener);
  if (res.forced) {
    expect(p.force, at).toBe(true);
    // Forced: the last turn from its user message, or from its last assistant message when it has no other.
    const later = cuts.filter((k) => k > j);
    expect(later.every((k) => (c.path[k] as { message: Msg }).message.role === 'assistant'), at).toBe(true);
    return;
  }
  const k = o.kept(j);
  // When some cut holding keep-recent leaves out every result whose call is missing, the cut does too.
  const strict = cuts.some((x) => o.strictlyValid(x) && o.kept(x) >= p.keep);
  if (strict) expect(o.strictlyValid(j), `${at}: keeps a result whose call is missing`).toBe(true);
  // A later cut on the same turn with no user message in between and a short prefix: kept whole on purpose.
  const sameShortTurn = (later: number) => {
    const e = c.path[j] as { message: Msg };
    if (e.message.role !== 'user') return false;
    if (c.path.slice(j + 1, later).some((x) => x.type === 'message' && x.message.role === 'user')) return false;
    let prefix = 0;
    for (let i = j; i < later; i++) if (o.inContext(i)) prefix += c.counts[i]!;
    return prefix <= p.smallPrefix;
  };
  if (k >= p.keep && k <= room) {
    // Keeps no more than keep-recent needs (a forced compaction never moves back to keep a turn whole).
    for (const later of cuts.filter((x) => x > j && o.kept(x) >= p.keep && o.kept(x) <= room)) expect(!p.force && sameShortTurn(later), `${at}: ${later} keeps enough with less`).toBe(true);
  }
  if (res.turnStartIndex !== null && !p.force) {
    // A split turn stays split only when moving back to its user message is not allowed: the prefix is worth a
    // summary of its own, keeping it would not fit the room, or the user message is no cut the rules allow.
    const u = res.turnStartIndex;
    let prefix = 0;
    for (let i = u; i < j; i++) if (o.inContext(i)) prefix += c.counts[i]!;
    expect(prefix <= p.smallPrefix && k + prefix <= room && (strict ? o.strictlyValid(u) : o.valid(u)), `${at}: the short prefix of ${u}..${j} should have been kept whole`).toBe(false);
  }
  if (p.mustFit && !p.force && p.maxKept !== undefined) {
    const fits = cuts.filter((x) => o.kept(x) <= room);
    if (fits.length > 0) expect(k, `${at}: a cut fits the room`).toBeLessThanOrEqual(room);
    else if (p.lastResort !== undefined) expect(k, `${at}: the last-resort room`).toBeLessThanOrEqual(p.lastResort);
  }
  if (k < p.keep) {
    // Keep-recent is given up only to fit a known room, and then for as much as fits: no earlier cut fits as well.
    expect(p.maxKept !== undefined, `${at}: less than keep-recent without a room to fit`).toBe(true);
    const cap = k <= room ? room : (p.lastResort ?? Infinity);
    expect(k, at).toBeLessThanOrEqual(cap);
    for (const earlier of cuts.filter((x) => x < j)) expect(o.kept(earlier), `${at}: ${earlier} fits and keeps more`).toBeGreaterThan(cap);
  }
}

describe('findCutPoint against brute-force rules', () => {
  it('random paths: parallel calls, results out of order or without a call, failed replies, undone summaries', () => {
    const r = new Rng(20261127);
    let cuts = 0;
    let refusals = 0;
    let nothingKept = 0;
    for (let t = 0; t < 1500; t++) {
      const c = randomPath(r);
      for (let q = 0; q < 4; q++) {
        const p = randomParams(r, c);
        check(c, p, `case ${t}.${q}`);
        const res = findCutPoint({
          path: c.path,
          tokens: pathTokensFromCounts(c.counts),
          boundaryStart: p.boundaryStart,
          keepRecentTokens: p.keep,
          inContext: () => true,
          smallPrefixTokens: p.smallPrefix,
          force: false,
        });
        if ('reason' in res) refusals++;
        else if (res.firstKeptIndex === c.path.length) nothingKept++;
        else cuts++;
      }
    }
    // The generator reaches every outcome often.
    expect(cuts).toBeGreaterThan(1000);
    expect(refusals).toBeGreaterThan(500);
    expect(nothingKept).toBeGreaterThan(100);
  });

  it('the real transcripts: every leaf path of pi, Claude Code, Codex and SWE-agent sessions, random budgets', () => {
    const r = new Rng(7);
    let checked = 0;
    for (const name of ['piV1', 'claudeLog', 'claudeViewer', 'codexRollout', 'sweTraj'] as const) {
      for (const path of allLeafPaths(loadSession(name))) {
        if (path.length < 3) continue;
        const c: Case = { path, counts: path.map(entryTokens), undone: new Set() };
        for (let q = 0; q < 6; q++) {
          check(c, randomParams(r, c), `${name} (${path.length} entries)`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});

describe('found by the brute-force rules', () => {
  it('a forced cut of a region smaller than keep-recent is not blocked by a tool result whose call is not on the path', () => {
    // A truncated log: the last result answers a call that is nowhere. Manual compaction and overflow recovery force a cut.
    const msg = (id: string, message: Msg): SessionEntry => ({ type: 'message', id, parentId: null, timestamp: 0, message });
    const path = [
      msg('u1', { role: 'user', content: [{ type: 'text', text: 'first' }] }),
      msg('a1', { role: 'assistant', content: [{ type: 'text', text: 'done' }] }),
      msg('u2', { role: 'user', content: [{ type: 'text', text: 'second' }] }),
      msg('a2', { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: {} }] }),
      msg('r1', { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'out' }], isError: false }),
      msg('r0', { role: 'toolResult', toolCallId: 'gone', toolName: 'read', content: [{ type: 'text', text: 'out' }], isError: false }),
    ];
    const counts = [100, 100, 100, 100, 100, 100];
    const res = findCutPoint({ path, tokens: pathTokensFromCounts(counts), boundaryStart: 0, keepRecentTokens: 10_000, inContext: () => true, smallPrefixTokens: 0, force: true });
    expect(res).toEqual({ firstKeptIndex: 2, turnStartIndex: null, keptTokens: 400, forced: true });
  });
});
