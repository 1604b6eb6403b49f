/**
 * Token accounting benchmark: `npx tsx scripts/bench-tokens.ts`.
 *
 * Node micro-benchmarks, all of them: no browser, no IndexedDB, no React. What the
 * user gets in Chromium is measured by scripts/bench-browser.ts.
 *
 * 1. Exact counting throughput through a Node worker_threads worker (comlink
 *    over its port, so extraction, structured cloning and message passing are
 *    included) against gpt-tokenizer called directly on the same entries.
 *    Batches stay in flight, so extraction on one thread overlaps counting on
 *    the other: the ratio shows that pipelining on this machine, not the
 *    overhead of the browser's Web Worker. Each ratio pairs the two sides of
 *    one round (never the best of one side over the best of the other).
 * 2. Cost of updating the context figure and finding the cut point after one
 *    append, the way the token worker answers them: PathTokenIndex for the
 *    figure, and compaction's own cut rule (lib/compaction findCutPoint, via
 *    lib/sessionTokens compactionCut) for the cut. Against re-estimating the
 *    whole path with chars/4 and walking back to pi's cut, as pi does after
 *    every message, and against the like-for-like incremental chars/4 (a
 *    running total plus the same walk back). The counted appends are text the
 *    process has never tokenized (gpt-tokenizer's merge cache is not warm
 *    from an earlier pass over the same entries).
 * 3. Accuracy on the real fixtures: the tokenizer-free estimate and chars/4
 *    against exact o200k per entry; and the calibration on the pi session's
 *    reported Anthropic usage, calibrated against uncalibrated.
 *
 * Prints tables and writes bench-results/tokens.json. Options:
 *   --quick          smaller session and fewer repetitions (smoke run)
 *   --entries N      size of the generated session (default 10,000)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry, type TokenCache } from '@/lib/session/types';
import { prepareCompaction } from '@/lib/compaction/prepare';
import { compactionCut } from '@/lib/sessionTokens/cut';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { generateSession } from '@/lib/testing/generate';
import { calibratedRequestTokens, emptyCalibration, updateCalibration, type Calibration } from '@/lib/tokens/calibration';
import { countingInput, framingTokens } from '@/lib/tokens/entryText';
import { estimateEntryTokens } from '@/lib/tokens/estimate';
import { countEntry, createExactCounter } from '@/lib/tokens/exact';
import { PathTokenIndex, usableUsage, usageInputTokens } from '@/lib/tokens/pathIndex';
import { COUNT_BATCH_SIZE, countEntriesInBatches } from '@/lib/tokens/countBatches';
import type { TokensService } from '@/lib/sessionTokens/service';
import { stats, fmt, machine, machineLine, pct, table } from './benchReport';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const ENTRIES = Number(args[args.indexOf('--entries') + 1]) || (QUICK ? 2_000 : 10_000);
const SEED = 20_261_121;
const KEEP_RECENT = 20_000;
/** The cut measured in section 2 is the one compaction would make with these settings in this window. */
const CUT_SETTINGS = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: KEEP_RECENT };
const WINDOW = 200_000;
const MODEL = 'anthropic:claude-sonnet-4-5';
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}bench-results/tokens.json`;

// ------------------------------------------------------------------ helpers

const now = () => performance.now();


const median = (xs: number[]) => stats(xs).median;


/** UTF-8 bytes of what an entry's count covers. */
function countedBytes(e: SessionEntry): number {
  let n = 0;
  for (const p of countingInput(e).pieces) n += Buffer.byteLength(p, 'utf8');
  return n;
}

function withCaches(entries: SessionEntry[]): SessionEntry[] {
  return entries.map((e) => ({ ...e, tokens: countEntry(e) }));
}

// ------------------------------------------------------------------ 1. throughput

async function throughput(sessionEntries: number) {
  const worker = new Worker(new URL('../workers/tokens.node-worker.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
  const api = wrap<TokensService>(nodeEndpoint(worker));
  await api.ping();
  const BATCH = COUNT_BATCH_SIZE;

  // Same warm-up on both sides (JIT), on text that is not measured.
  const { entries: warmup } = generateSession({ seed: SEED - 1, entries: Math.min(1_000, sessionEntries) });
  warmup.forEach((e) => countEntry(e));
  await countEntriesInBatches(api, warmup);

  // Each round counts a session neither side has seen (gpt-tokenizer's merge cache would
  // otherwise flatter whichever side repeats text), and the order alternates.
  const rounds = QUICK ? 3 : 7;
  const direct: { ms: number; tokens: number; bytes: number }[] = [];
  const viaWorker: { ms: number; tokens: number; bytes: number }[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const { entries } = generateSession({ seed: SEED + 100 + r, entries: sessionEntries, model: MODEL, usage: true });
    const bytes = entries.reduce((n, e) => n + countedBytes(e), 0);
    const runDirect = () => {
      const t = now();
      let sum = 0;
      for (const e of entries) sum += countEntry(e).o200k;
      return { ms: now() - t, tokens: sum, bytes };
    };
    const runWorker = async () => {
      const t = now();
      // The app's path: payloads extracted here, batches kept in flight (workers/countBatches.ts).
      const results = await countEntriesInBatches(api, entries, { batchSize: BATCH });
      const ms = now() - t;
      return { ms, tokens: results.reduce((n: number, c: TokenCache) => n + c.o200k, 0), bytes };
    };
    let d;
    let w;
    if (r % 2 === 0) {
      d = runDirect();
      w = await runWorker();
    } else {
      w = await runWorker();
      d = runDirect();
    }
    if (w.tokens !== d.tokens) throw new Error(`worker counted ${w.tokens} tokens, direct ${d.tokens}`);
    direct.push(d);
    viaWorker.push(w);
    ratios.push(d.ms / w.ms);
  }
  await worker.terminate();
  const rate = (x: { ms: number; tokens: number; bytes: number }) => ({
    seconds: x.ms / 1000,
    tokens: x.tokens,
    tokensPerSecond: x.tokens / (x.ms / 1000),
    megabytesPerSecond: x.bytes / 1e6 / (x.ms / 1000),
  });
  const best = (xs: typeof direct) => rate(xs.reduce((a, b) => (b.tokens / b.ms > a.tokens / a.ms ? b : a)));
  const med = (xs: typeof direct) => rate([...xs].sort((a, b) => a.tokens / a.ms - b.tokens / b.ms)[Math.floor(xs.length / 2)]!);
  const directBest = best(direct);
  const workerBest = best(viaWorker);
  return {
    entriesPerRound: sessionEntries,
    tokensPerRound: Math.round(direct.reduce((n, x) => n + x.tokens, 0) / rounds),
    megabytesPerRound: direct.reduce((n, x) => n + x.bytes, 0) / rounds / 1e6,
    batchSize: BATCH,
    rounds,
    direct: { best: directBest, median: med(direct), runs: direct },
    worker: { best: workerBest, median: med(viaWorker), runs: viaWorker },
    // Paired per round: dividing the best worker round by the best direct round compares two unrelated rounds.
    ratio: { medianOfRounds: median(ratios), minOfRounds: Math.min(...ratios), maxOfRounds: Math.max(...ratios), rounds: ratios },
    loadAverage: loadavg(),
  };
}

// ------------------------------------------------------------------ 2. append → figure + cut

/** pi's estimate of one message: chars/4 of text, thinking, tool name and JSON arguments; 1,200 per image. */
function piEstimate(e: SessionEntry): number {
  if (e.type === 'compaction' || e.type === 'branch_summary') return Math.ceil(e.summary.length / 4);
  if (e.type !== 'message') return 0;
  let chars = 0;
  for (const p of e.message.content) {
    if (p.type === 'text') chars += p.text.length;
    else if (p.type === 'thinking') chars += p.thinking.length;
    else if (p.type === 'toolCall') chars += p.name.length + JSON.stringify(p.arguments).length;
    else if (p.type === 'image') chars += 4_800;
  }
  return Math.ceil(chars / 4);
}

/**
 * The baseline after each append, as pi does it: re-estimate every entry of
 * the path, then walk back to the budget and forward to the first valid cut
 * (pi's rule; compaction here uses its own, see docs/compaction.md).
 */
function baselineUpdate(path: SessionEntry[]): { tokens: number; cut: number } {
  const counts = new Array<number>(path.length);
  let total = 0;
  for (let i = 0; i < path.length; i++) {
    counts[i] = piEstimate(path[i]!);
    total += counts[i]!;
  }
  return { tokens: total, cut: walkBack(path, counts) };
}

/** pi's cut: back from the newest entry to the kept budget, then forward to the first valid cut. */
function walkBack(path: SessionEntry[], counts: number[]): number {
  let acc = 0;
  let cut = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    acc += counts[i]!;
    if (acc >= KEEP_RECENT) {
      for (let c = i; c < path.length; c++) {
        const e = path[c]!;
        if (e.type === 'branch_summary' || (e.type === 'message' && e.message.role !== 'toolResult')) {
          cut = c;
          break;
        }
      }
      break;
    }
  }
  return cut;
}

/** Entries re-identified to continue a path after `parentId` (a fresh tail of another generated session). */
function chainOnto(parentId: string, entries: SessionEntry[]): SessionEntry[] {
  let parent = parentId;
  return entries.map((e, i) => {
    const next = { ...e, id: `cold-${i}`, parentId: parent } as SessionEntry;
    parent = next.id;
    return next;
  });
}

async function appendLatency(entries: SessionEntry[]) {
  const appends = Math.min(QUICK ? 300 : 1_000, Math.floor(entries.length / 5));
  const base = entries.slice(0, entries.length - appends);
  const tail = entries.slice(entries.length - appends);
  const cachedBase = withCaches(base);

  // (a) index only: the appended entry already carries its cache.
  const counter = createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });
  const index = new PathTokenIndex(counter, { calibration: { factor: 1.1, offset: 2_000, approximate: false } });
  for (const e of cachedBase) index.push(e);
  const cachedTail = withCaches(tail);
  const indexOnly: number[] = [];
  let checksum = 0;
  let cuts = 0;
  for (const e of cachedTail) {
    const t = now();
    index.push(e);
    const fig = index.figure(WINDOW);
    const cut = compactionCut(index, CUT_SETTINGS, { window: WINDOW });
    indexOnly.push(now() - t);
    checksum += fig.tokens + cut.index;
    if (cut.index >= 0) cuts++;
  }
  // What was timed is the cut compaction makes: the same answer as preparing a compaction from scratch.
  const prepared = prepareCompaction(index.entries(), index.pathTokens(), CUT_SETTINGS, { window: WINDOW });
  const measured = compactionCut(index, CUT_SETTINGS, { window: WINDOW });
  if ((prepared?.firstKeptIndex ?? -1) !== measured.index) throw new Error(`cut lookup ${measured.index} differs from prepareCompaction's ${prepared?.firstKeptIndex}`);

  // (b) including the exact count of the new entry, as the worker does on append, on entries
  // never tokenized before: (a) counted `tail` already, which would leave the merge cache warm.
  const index2 = new PathTokenIndex(counter, { calibration: { factor: 1.1, offset: 2_000, approximate: false } });
  for (const e of cachedBase) index2.push(e);
  const coldTail = chainOnto(base.at(-1)!.id, generateSession({ seed: SEED + 4_242, entries: appends, model: MODEL, usage: true }).entries);
  const withCount: number[] = [];
  for (const e of coldTail) {
    const t = now();
    index2.push({ ...e });
    index2.figure(WINDOW);
    compactionCut(index2, CUT_SETTINGS, { window: WINDOW });
    withCount.push(now() - t);
  }

  // (c) end to end through the worker: RPC, clone, count, figure, cut.
  const worker = new Worker(new URL('../workers/tokens.node-worker.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
  const api = wrap<TokensService>(nodeEndpoint(worker));
  // Opening a session: the whole cached path crosses once and the index is built.
  const loadTimes: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = now();
    await api.loadPath('bench', cachedBase, { model: MODEL, compaction: CUT_SETTINGS, contextWindow: WINDOW });
    loadTimes.push(now() - t);
  }
  const rpc: number[] = [];
  for (const e of tail) {
    const t = now();
    const r = await api.append('bench', e);
    rpc.push(now() - t);
    checksum += r.figure.tokens + (r.cut?.index ?? 0);
  }
  await worker.terminate();

  // Baseline: pi's full re-estimate after each append.
  const path = [...base];
  const baseline: number[] = [];
  for (const e of tail) {
    path.push(e);
    const t = now();
    const r = baselineUpdate(path);
    baseline.push(now() - t);
    checksum += r.tokens + r.cut;
  }
  // Like for like: chars/4 kept incrementally (one estimate per append), then the same walk back.
  const path2 = [...base];
  const counts = base.map(piEstimate);
  let running = counts.reduce((a, b) => a + b, 0);
  const incremental: number[] = [];
  for (const e of tail) {
    path2.push(e);
    const t = now();
    const c = piEstimate(e);
    counts.push(c);
    running += c;
    const cut = walkBack(path2, counts);
    incremental.push(now() - t);
    checksum += running + cut;
  }

  const sa = stats(indexOnly);
  const sb = stats(withCount);
  const sr = stats(rpc);
  const sl = stats(baseline);
  const si = stats(incremental);
  return {
    pathLength: entries.length,
    appends,
    keepRecentTokens: KEEP_RECENT,
    cutRule: "lib/compaction findCutPoint (compaction's rule) via compactionCut",
    window: WINDOW,
    appendsWithACut: cuts,
    indexOnlyMs: sa,
    indexWithCountMs: sb,
    workerRoundTripMs: sr,
    baselineChars4Ms: sl,
    baselineIncrementalChars4Ms: si,
    speedup: { indexOnly: sl.median / sa.median, withCount: sl.median / sb.median, workerRoundTrip: sl.median / sr.median },
    /** This against the incremental chars/4: below 1 means exact counting costs more than the estimate it replaces. */
    againstIncremental: { indexOnly: si.median / sa.median, withCount: si.median / sb.median, workerRoundTrip: si.median / sr.median },
    loadPathMs: { entries: cachedBase.length, median: median(loadTimes), runs: loadTimes },
    checksum,
  };
}

// ------------------------------------------------------------------ 3. accuracy

interface ErrorStats {
  entries: number;
  mean: number;
  max: number;
  /** Error of the summed tokens of all entries (what a context total would be off by). */
  total: number;
}

function errorStats(pairs: { exact: number; est: number }[]): ErrorStats {
  let mean = 0;
  let max = 0;
  let sumExact = 0;
  let sumEst = 0;
  for (const { exact, est } of pairs) {
    const e = Math.abs(est - exact) / exact;
    mean += e;
    max = Math.max(max, e);
    sumExact += exact;
    sumEst += est;
  }
  return { entries: pairs.length, mean: mean / Math.max(1, pairs.length), max, total: Math.abs(sumEst / sumExact - 1) };
}

function fixtureSessions(name: FixtureName) {
  return importText(readFixture(name), { fileName: FIXTURES[name] }).sessions;
}

function accuracy() {
  const perFixture: Record<string, { estimate: ErrorStats; chars4: ErrorStats; chars4Framed: ErrorStats; exactTokens: number }> = {};
  const all = { estimate: [] as { exact: number; est: number }[], chars4: [] as { exact: number; est: number }[], chars4Framed: [] as { exact: number; est: number }[] };
  for (const name of Object.keys(FIXTURES) as FixtureName[]) {
    const est: { exact: number; est: number }[] = [];
    const c4: { exact: number; est: number }[] = [];
    const c4f: { exact: number; est: number }[] = [];
    for (const s of fixtureSessions(name)) {
      for (const e of s.entries) {
        const cache = countEntry(e);
        if (cache.o200k <= 0) continue;
        est.push({ exact: cache.o200k, est: estimateEntryTokens(e) });
        c4.push({ exact: cache.o200k, est: cache.chars4 });
        c4f.push({ exact: cache.o200k, est: cache.chars4 + framingTokens(countingInput(e)) });
      }
    }
    perFixture[name] = { estimate: errorStats(est), chars4: errorStats(c4), chars4Framed: errorStats(c4f), exactTokens: est.reduce((n, p) => n + p.exact, 0) };
    all.estimate.push(...est);
    all.chars4.push(...c4);
    all.chars4Framed.push(...c4f);
  }
  return { perFixture, overall: { estimate: errorStats(all.estimate), chars4: errorStats(all.chars4), chars4Framed: errorStats(all.chars4Framed) } };
}

/**
 * Replays the pi session's active path. At every reply with reported usage,
 * predicts that request's input from our count of it (the context before the
 * reply) three ways before learning from it: uncalibrated o200k, calibrated
 * o200k (calibration from earlier replies only), and pi's own chars/4. Then
 * the meter as the user sees it: the hybrid figure just before the reply
 * (previous report + counts since), calibrated and not.
 */
function calibrationReplay(fixture: FixtureName = 'piV1') {
  const session = fixtureSessions(fixture)[0]!;
  const tree = new SessionTree(session.entries);
  const path = tree.pathTo(session.meta.leafId);
  const counter = createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });
  const raw = new PathTokenIndex(counter, { requestTokens: 3 });
  const calibrated = new PathTokenIndex(counter, { requestTokens: 3 });
  let cal: Calibration = emptyCalibration();
  const rows: { reported: number; uncalibrated: number; calibrated: number; chars4: number; hybridRaw: number; hybridCalibrated: number; source: string }[] = [];
  let chars4Context = 0;
  for (const e of path) {
    const usage = usableUsage(e);
    if (usage) {
      const at = raw.length;
      const counted = raw.requestCount(at);
      const reported = usageInputTokens(usage);
      // pi's estimate of the same request: chars/4 of the context (summary + kept entries).
      const { keptFromIndex, compactionIndex } = raw.compactionState(at);
      chars4Context = 0;
      const entries = raw.entries();
      if (compactionIndex >= 0) chars4Context += piEstimate(entries[compactionIndex]!);
      for (let i = keptFromIndex; i < at; i++) if (entries[i]!.type !== 'compaction') chars4Context += piEstimate(entries[i]!);
      const hybridRaw = raw.figure();
      const hybridCal = calibrated.figure();
      rows.push({
        reported,
        uncalibrated: counted.text + counted.media,
        calibrated: calibratedRequestTokens(counted.text, cal) + counted.media,
        chars4: chars4Context,
        hybridRaw: hybridRaw.tokens,
        hybridCalibrated: hybridCal.tokens,
        source: hybridCal.source,
      });
      cal = updateCalibration(cal, reported - counted.media, counted.text);
      calibrated.setCalibration({ factor: cal.factor, offset: cal.offset, approximate: false });
    }
    raw.push(e);
    calibrated.push(e);
  }
  const errs = (key: keyof (typeof rows)[number], from = 0) => {
    const xs = rows.slice(from).map((r) => Math.abs((r[key] as number) / r.reported - 1));
    const s = stats(xs);
    return { mean: s.mean, median: s.median, p95: s.p95, max: s.max };
  };
  const WARMUP = 5;
  return {
    fixture,
    model: session.meta.model,
    samples: rows.length,
    warmupSamples: WARMUP,
    finalCalibration: { factor: cal.factor, offset: cal.offset, samples: cal.samples, outliers: cal.outliers },
    requestEstimate: {
      uncalibrated: errs('uncalibrated', WARMUP),
      calibrated: errs('calibrated', WARMUP),
      chars4: errs('chars4', WARMUP),
    },
    hybridFigure: {
      uncalibrated: errs('hybridRaw', WARMUP),
      calibrated: errs('hybridCalibrated', WARMUP),
      estimateOnlySamples: rows.slice(WARMUP).filter((r) => r.source === 'estimate').length,
    },
  };
}

// ------------------------------------------------------------------ main

async function main() {
  const t0 = now();
  console.log(`Token accounting bench — ${ENTRIES.toLocaleString()} generated entries (seed ${SEED}), ${machineLine()}\n`);
  const { entries } = generateSession({ seed: SEED, entries: ENTRIES, model: MODEL, usage: true });

  const tp = await throughput(ENTRIES);
  console.log(
    `1. Exact o200k counting (Node micro-benchmark): ${tp.rounds} rounds, each a fresh ${tp.entriesPerRound.toLocaleString()}-entry session (~${tp.tokensPerRound.toLocaleString()} tokens, ${fmt(tp.megabytesPerRound)} MB of text)`,
  );
  table(
    ['path', 'best tokens/s', 'best MB/s', 'median tokens/s', 'median MB/s'],
    (
      [
        ['gpt-tokenizer direct (same thread)', tp.direct],
        [`Node worker_threads via comlink (batches of ${tp.batchSize})`, tp.worker],
      ] as const
    ).map(([name, r]) => [
      name,
      Math.round(r.best.tokensPerSecond).toLocaleString(),
      fmt(r.best.megabytesPerSecond),
      Math.round(r.median.tokensPerSecond).toLocaleString(),
      fmt(r.median.megabytesPerSecond),
    ]),
  );
  console.log(
    `   Node worker_threads / same thread, paired per round: median ${fmt(tp.ratio.medianOfRounds, 3)}, range ${fmt(tp.ratio.minOfRounds, 3)}–${fmt(tp.ratio.maxOfRounds, 3)} (pipelined batches: above 1 is parallelism, not a browser figure); load average ${tp.loadAverage.map((x) => fmt(x, 1)).join(' ')}\n`,
  );

  const ap = await appendLatency(entries);
  console.log(
    `2. Append one entry → context figure + cut point (Node micro-benchmark; path of ${ap.pathLength.toLocaleString()} entries, ${ap.appends} appends; the cut is compaction's own rule, findCutPoint, for keepRecent ${KEEP_RECENT.toLocaleString()} in a ${WINDOW.toLocaleString()} window: a cut after ${ap.appendsWithACut} of them)`,
  );
  table(
    ['method (Node micro-benchmark)', 'median ms', 'p95 ms', 'max ms', 'full chars/4 / this', 'incremental chars/4 / this'],
    [
      ['PathTokenIndex + compaction cut (entry counted)', fmt(ap.indexOnlyMs.median, 4), fmt(ap.indexOnlyMs.p95, 4), fmt(ap.indexOnlyMs.max, 3), `${fmt(ap.speedup.indexOnly, 0)}×`, `${fmt(ap.againstIncremental.indexOnly, 2)}×`],
      ['…+ exact count of a new (never tokenized) entry', fmt(ap.indexWithCountMs.median, 4), fmt(ap.indexWithCountMs.p95, 4), fmt(ap.indexWithCountMs.max, 3), `${fmt(ap.speedup.withCount, 0)}×`, `${fmt(ap.againstIncremental.withCount, 2)}×`],
      ['worker round trip (RPC + count + figure + cut)', fmt(ap.workerRoundTripMs.median, 4), fmt(ap.workerRoundTripMs.p95, 4), fmt(ap.workerRoundTripMs.max, 3), `${fmt(ap.speedup.workerRoundTrip, 1)}×`, `${fmt(ap.againstIncremental.workerRoundTrip, 2)}×`],
      ["baseline: pi's chars/4 of the path + its walk back", fmt(ap.baselineChars4Ms.median, 4), fmt(ap.baselineChars4Ms.p95, 4), fmt(ap.baselineChars4Ms.max, 3), '1×', ''],
      ['baseline: chars/4 kept incrementally + the same walk back', fmt(ap.baselineIncrementalChars4Ms.median, 4), fmt(ap.baselineIncrementalChars4Ms.p95, 4), fmt(ap.baselineIncrementalChars4Ms.max, 3), '', '1×'],
    ],
  );
  console.log(`   goal: ≤ 2 ms (median and p95). Opening the session (loadPath of ${ap.loadPathMs.entries.toLocaleString()} cached entries through the worker): ${fmt(ap.loadPathMs.median, 1)} ms\n`);

  const acc = accuracy();
  console.log('3a. Per-entry accuracy against exact o200k (text + framing; images excluded: both sides use the same formula)');
  const row = (name: string, r: { estimate: ErrorStats; chars4: ErrorStats; chars4Framed: ErrorStats }) => [
    name,
    r.estimate.entries,
    pct(r.estimate.mean),
    pct(r.estimate.max),
    pct(r.estimate.total),
    pct(r.chars4.mean),
    pct(r.chars4.max),
    pct(r.chars4.total),
    pct(r.chars4Framed.mean),
  ];
  table(
    ['fixture', 'entries', 'est mean', 'est max', 'est total', 'c/4 mean', 'c/4 max', 'c/4 total', 'c/4+frame mean'],
    [...Object.entries(acc.perFixture).map(([k, v]) => row(k, v)), row('OVERALL', acc.overall)],
  );
  console.log('   est = estimateEntryTokens (no tokenizer, main-thread safe); c/4 = chars/4 as pi computes it; total = error of the summed count\n');

  const cals = (['piV1', 'claudeViewer', 'claudeLog'] as const).map((f) => calibrationReplay(f));
  const r3 = (name: string, e: { mean: number; median: number; p95: number; max: number }) => [name, pct(e.mean), pct(e.median), pct(e.p95), pct(e.max)];
  for (const [k, cal] of cals.entries()) {
    const title = k === 0 ? '3b. Calibration on the pi session' : `    …and on the Claude Code transcript ${cal.fixture}`;
    console.log(`${title} (${cal.model}, ${cal.samples} replies with usage; errors after the first ${cal.warmupSamples})`);
    table(
      ['prediction of the reported input', 'mean', 'median', 'p95', 'max'],
      [
        r3('o200k count, uncalibrated', cal.requestEstimate.uncalibrated),
        r3('o200k count, calibrated (factor + offset)', cal.requestEstimate.calibrated),
        r3("chars/4 (pi's estimate)", cal.requestEstimate.chars4),
        r3('hybrid meter before the reply, uncalibrated', cal.hybridFigure.uncalibrated),
        r3('hybrid meter before the reply, calibrated', cal.hybridFigure.calibrated),
      ],
    );
    console.log(
      `   final calibration: factor ${fmt(cal.finalCalibration.factor, 3)}, offset ${Math.round(cal.finalCalibration.offset).toLocaleString()} tokens/request, ${cal.finalCalibration.outliers} outliers clamped\n`,
    );
  }

  const result = {
    ...machine(),
    session: { entries: ENTRIES, seed: SEED },
    throughput: tp,
    append: ap,
    accuracy: acc,
    calibration: cals,
    seconds: (now() - t0) / 1000,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(result, null, 2));
  console.log(`Wrote ${OUT.slice(ROOT.length)} (${fmt(result.seconds, 1)} s)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
