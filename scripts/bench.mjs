// `npm run bench [-- --quick] [tokens] [tree] [formats] [load] [browser] [sync]`: the project's benchmarks.
// Each part is a TypeScript script run with tsx in its own process; it prints its
// tables as it goes and writes bench-results/<part>.json. At the end this prints
// the headline figures of every part that ran, read back from those files, and
// writes them to bench-results/summary.json. Exit code 1 when any part failed.
// docs/benchmarks.md says what each part measures and how.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, bin } from './lib.mjs';

const PARTS = {
  compaction: { script: 'scripts/bench-compaction.ts', what: 'compaction quality: our extractive summary beside every compaction a real agent wrote in fixtures/real, per probe kind, with a headings-only baseline', timeoutMin: 5 },
  tokens: { script: 'scripts/bench-tokens.ts', what: 'token counting: worker vs direct, append → figure + cut, estimate accuracy', timeoutMin: 10 },
  tree: { script: 'scripts/bench-tree.ts', what: 'tree view on 10,000 entries: forest and rows, fold, text filter, keypresses, 2 MB previews (the budgets the unit tests used to assert)', timeoutMin: 5 },
  formats: { script: 'scripts/bench-formats.ts', what: 'imports (fixtures, 100 MB ChatGPT export, a 680-file Claude Code folder) with peak memory; exports and round trip', timeoutMin: 15 },
  load: { script: 'scripts/bench-load.ts', what: 'POST /api/chat and /api/summarize under concurrent load against the scripted model', timeoutMin: 20 },
  browser: { script: 'scripts/bench-browser.ts', what: 'in Chromium on the production build: typing, Send, streaming, opening with 1k / 10k entries and 5,000 sessions; a 100 MB ChatGPT import through the file input', timeoutMin: 20 },
  sync: { script: 'scripts/bench-sync.ts', what: 'sync: 10,000-entry first sync, A→B latency, 50 devices on PGlite / Postgres / two app servers', timeoutMin: 20 },
};

const USAGE = `usage: npm run bench [-- [--quick] [${Object.keys(PARTS).join('] [')}]]
  --quick   smaller sizes and fewer repetitions (a sanity run of about a minute)
  parts     which benchmarks to run (default: all, in this order)
${Object.entries(PARTS)
  .map(([k, p]) => `  ${k.padEnd(8)}  ${p.what}`)
  .join('\n')}`;

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const quick = argv.includes('--quick');
const unknown = argv.filter((a) => a !== '--quick' && !(a in PARTS));
if (unknown.length) {
  console.error(`Unknown argument(s): ${unknown.join(' ')}\n\n${USAGE}`);
  process.exit(2);
}
const selected = Object.keys(PARTS).filter((k) => argv.includes(k));
const parts = selected.length ? selected : Object.keys(PARTS);

let current = null;
let interrupted = false;
// Ctrl-C reaches the whole foreground process group, the running part included; let it
// clean up (the load part stops its servers) and stop after it. A SIGTERM sent to this
// process alone is passed on to the part.
process.on('SIGINT', () => {
  interrupted = true;
});
process.on('SIGTERM', () => {
  interrupted = true;
  current?.kill('SIGTERM');
});

function runPart(name) {
  const part = PARTS[name];
  return new Promise((resolve) => {
    const args = [bin('tsx'), part.script, ...(quick ? ['--quick'] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    current = child;
    const timer = setTimeout(() => {
      console.error(`\n${name}: no result after ${part.timeoutMin} minutes; stopping it`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, part.timeoutMin * 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      current = null;
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      current = null;
      console.error(`${name}: could not start (${err.message})`);
      resolve(127);
    });
  });
}

/** The part's JSON, if it was written by this run. */
function readResult(name, since) {
  const file = join(ROOT, 'bench-results', `${name}.json`);
  if (!existsSync(file) || statSync(file).mtimeMs < since) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const f = (x, d = 1) => (typeof x === 'number' && Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '–');
const mbOf = (bytes) => `${f(bytes / 1e6, 1)} MB`;

/** Headline figures of each part: [figure, value]. */
const HEADLINES = {
  compaction: (r) => [
    [`real agent compactions compared; ours / theirs in characters (pooled; worst one)`, `${r.compared}; ${f(r.sizeRatio, 2)}× (${f(r.worstSizeRatio, 2)}×)`],
    ...Object.values(r.kinds).map((k) => [
      `${k.label}: ours / agents' (ours, theirs, headings-only baseline)`,
      `${f(k.oursOverTheirs, 2)}× (${f(100 * k.ours, 0)}%, ${f(100 * k.theirs, 0)}%, ${f(100 * k.headingsOnly, 0)}%)`,
    ]),
  ],
  tokens: (r) => {
    const t = r.throughput;
    const a = r.append;
    const acc = r.accuracy.overall;
    const cal = r.calibration?.[0]?.requestEstimate;
    return [
      [`Node micro: exact o200k counting, ${t.entriesPerRound.toLocaleString('en-US')}-entry session (~${t.tokensPerRound.toLocaleString('en-US')} tokens)`, `worker ${Math.round(t.worker.best.tokensPerSecond).toLocaleString('en-US')} tokens/s, direct ${Math.round(t.direct.best.tokensPerSecond).toLocaleString('en-US')} tokens/s`],
      ['Node micro: worker_threads / same thread, paired rounds', `${f(t.ratio.medianOfRounds, 3)} median (${f(t.ratio.minOfRounds, 3)}–${f(t.ratio.maxOfRounds, 3)}; pipelined, not a browser figure)`],
      [`Node micro: append → figure + cut, path of ${a.pathLength.toLocaleString('en-US')} (goal ≤ 2 ms)`, `${f(a.indexWithCountMs.median, 3)} ms median, ${f(a.indexWithCountMs.p95, 3)} ms p95 (new entry counted); worker round trip ${f(a.workerRoundTripMs.median, 3)} ms`],
      ['…against chars/4: whole path / kept incrementally', `${f(a.baselineChars4Ms.median, 3)} ms (${f(a.speedup.withCount, 0)}×) / ${f(a.baselineIncrementalChars4Ms.median, 3)} ms (${f(a.againstIncremental.withCount, 2)}×)`],
      ['estimate vs exact, mean per-entry error', `${f(100 * acc.estimate.mean, 1)}% (chars/4: ${f(100 * acc.chars4.mean, 1)}%)`],
      ...(cal ? [['pi session: reported input predicted, mean error', `calibrated ${f(100 * cal.calibrated.mean, 1)}%, uncalibrated ${f(100 * cal.uncalibrated.mean, 1)}%, chars/4 ${f(100 * cal.chars4.mean, 1)}%`]] : []),
    ];
  },
  tree: (r) => [
    [`forest + rows, ${r.entries.toLocaleString('en-US')} entries linear / branching (goal < ${r.goalMs} ms)`, `${f(r.linear.bestMs, 1)} / ${f(r.branching.bestMs, 1)} ms best`],
    ['rows after a fold / next filter keystroke / 10,000 PageDown', `${f(r.fold.bestMs, 1)} / ${f(r.filter.next.bestMs, 1)} / ${f(r.pageDown10k.bestMs, 1)} ms best`],
    ['first filter keystroke (goal < 500 ms) / two 2 MB previews (goal < 50 ms)', `${f(r.filter.firstKeystrokeMs, 0)} ms / ${f(r.preview2MB.bestMs, 1)} ms`],
  ],
  formats: (r) => {
    const c = r.chatgpt;
    const big = [...r.fixtures].sort((a, b) => b.bytes - a.bytes)[0];
    const e = r.exports;
    return [
      ...(big ? [[`largest fixture (${mbOf(big.bytes)}, ${big.format}) import, warm`, `stream ${f(big.stream.warmMs, 1)} ms, text ${f(big.text.warmMs, 1)} ms; all ${r.fixtures.length} fixtures identical both ways`]] : []),
      [`ChatGPT export ${mbOf(c.bytes)}, ${c.sessions.toLocaleString('en-US')} conversations: stream`, `${f(c.stream.seconds, 2)} s, ${f(c.stream.megabytesPerSecond, 1)} MB/s, ${f(c.stream.conversationsPerSecond, 0)} conv/s`],
      ['…peak memory above baseline / file size (stream)', `heap ${f(c.stream.heapAboveBasePerFileByte, 2)}×, RSS ${f(c.stream.rssAbovePerFileByte, 2)}× (result itself: ${f(c.stream.retainedPerFileByte, 2)}×)`],
      ['…same file through importText (baseline)', `${f(c.text.seconds, 2)} s; heap ${f(c.text.heapAboveBasePerFileByte, 2)}×, RSS ${f(c.text.rssAbovePerFileByte, 2)}× the file`],
      ['…ratios', `time stream/text ${f(c.ratio.timeStreamOverText, 2)}×; peak heap text/stream ${f(c.ratio.heapTextOverStream, 2)}×, RSS ${f(c.ratio.rssTextOverStream, 2)}×`],
      ...(c.stored
        ? [['…parse + store into fake-indexeddb (Node figure)', `${f(c.stored.seconds, 2)} s, ${f(c.stored.megabytesPerSecond, 1)} MB/s, ${c.stored.storedSessions.toLocaleString('en-US')} conversations stored`]]
        : []),
      [
        `export ${e.session.entries.toLocaleString('en-US')}-entry session (median ms)`,
        `jsonl ${f(e.exports.jsonl.medianMs, 0)}, md ${f(e.exports.markdown.medianMs, 0)}, md all ${f(e.exports.markdownAllBranches.medianMs, 0)}, html ${f(e.exports.html.medianMs, 0)}, zip ${f(e.exports.archive.medianMs, 0)}`,
      ],
      ['round trip (jsonl text + stream, zip)', `${Object.values(e.roundTrip.checks).every((v) => v === 'identical') ? 'identical' : 'DIFFERENT'}; re-import ${f(e.roundTrip.importText.medianMs, 0)} ms`],
      ...(r.folder
        ? [
            [
              `folder of ${r.folder.generator.files} Claude Code files (${mbOf(r.folder.generator.bytes)}) in one go`,
              `${f(r.folder.pipeline.seconds, 2)} s, ${f(r.folder.pipeline.filesPerSecond, 0)} files/s; with fake-indexeddb ${f(r.folder.store.seconds, 2)} s`,
            ],
            ['…peak heap / live heap above baseline (pipeline)', `${mbOf(r.folder.pipeline.heapAboveBase)} / ${mbOf(r.folder.pipeline.liveHeapAboveBase)} (largest file ${mbOf(r.folder.generator.largestFileBytes)})`],
          ]
        : []),
    ];
  },
  load: (r) => [
    [`${r.requests} requests (${r.rounds} × ${r.concurrency.chats} chats + ${r.concurrency.summaries} summaries at once${r.busyProcesses ? `, ${r.busyProcesses} spinning processes alongside` : ''})`, `${f(r.wallSeconds, 2)} s → ${f(r.requestsPerSecond, 1)} req/s, ${f(r.tokensPerSecond, 0)} streamed tokens/s`],
    ['time to first byte p50 / p95 / max', `${f(r.latency.all.ttfbMs.p50, 0)} / ${f(r.latency.all.ttfbMs.p95, 0)} / ${f(r.latency.all.ttfbMs.max, 0)} ms`],
    ...(r.latency.afterFirstRound
      ? [['…after round 1 (server warm) p50 / p95 / max', `${f(r.latency.afterFirstRound.ttfbMs.p50, 0)} / ${f(r.latency.afterFirstRound.ttfbMs.p95, 0)} / ${f(r.latency.afterFirstRound.ttfbMs.max, 0)} ms`]]
      : []),
    ['total time p50 / p95', `${f(r.latency.all.totalMs.p50, 0)} / ${f(r.latency.all.totalMs.p95, 0)} ms`],
    ['errors / dropped (goal 0 / 0)', `${r.errors} / ${r.dropped}`],
  ],
  browser: (r) => {
    const { small, large, many, longReply } = r.turns;
    const [c1, c2, c3] = [`${r.sizes.small}`, `${r.sizes.large}`, `${r.sizes.large} + ${r.sizes.sessions} sessions`];
    const im = r.import;
    const ratio = r.perChunkRatio;
    return [
      [`typing key → next frame median / p95 (${c2} entries | ${c3}; goal ≤ 16 ms)`, `${f(large.typing.median, 1)} / ${f(large.typing.p95, 1)} ms | ${f(many.typing.median, 1)} / ${f(many.typing.p95, 1)} ms`],
      [`meter updated after Send, median (${c2} | ${c3}; goal ≤ 50 ms)`, `${f(large.meterAfterSendMs.median, 0)} ms | ${f(many.meterAfterSendMs.median, 0)} ms`],
      [`long tasks while ${small.stream.streams} | ${large.stream.streams} | ${many.stream.streams} replies stream (${c1} | ${c2} | ${c3}; goal 0)`, [small, large, many].map((x) => `${x.stream.longTasks} (${f(x.stream.longTaskMs, 0)} ms)`).join(' | ')],
      [
        `main-thread ms per saved chunk of the reply, median (${c1} | ${c2} entries); ${c2} / ${c1} per pair of turns back to back, median (min–max; goal ±10%)`,
        `${f(small.stream.msPerSavedChunk, 1)} | ${f(large.stream.msPerSavedChunk, 1)}; ${f(ratio.median, 2)}× (${f(ratio.min, 2)}–${f(ratio.max, 2)})`,
      ],
      [`main-thread ms per word, ${longReply.stream.words}-word reply / ${longReply.stream.words / 2}-word (linear 1.0, quadratic 2.0)`, `${f(r.perWord.long, 2)} / ${f(r.perWord.short, 2)} = ${f(r.perWord.long / r.perWord.short, 2)}`],
      [`open to first message (empty app shell | ${c3}; goal ≤ 1 s)`, `${f(r.open.empty.shellMs, 0)} ms | ${f(r.open.many.firstMessageMs, 0)} ms`],
      [`ChatGPT import ${mbOf(im.bytes)} through the file input, profile on disk (goal ≥ 15 MB/s, no task > 50 ms, ≤ 1.5× the file)`, `${f(im.seconds, 1)} s, ${f(im.megabytesPerSecond, 1)} MB/s; longest task ${f(im.maxLongTaskMs, 0)} ms; renderer RSS +${f(im.rssPeakAboveBase / im.bytes, 2)}× the file over the empty app's ${mbOf(im.baseline.renderer)}; CPU s browser ${f(im.cpuSeconds.browser, 1)}, renderer ${f(im.cpuSeconds.renderer, 1)}`],
    ];
  },
  sync: (r) => [
    ...r.firstSync.map((s) => [
      `first sync, ${r.entries.toLocaleString('en-US')} entries / ${r.tokens.toLocaleString('en-US')} tokens (${s.server})`,
      `push ${f(s.pushMs / 1000, 1)} s, pull ${f(s.pullMs / 1000, 1)} s; wire ${mbOf(s.receivedByB)} for ${mbOf(r.rawBytes)} raw (${f(s.receivedByB / r.rawBytes, 2)}×)`,
    ]),
    ...r.latency.map((l) => [`A→B latency p50 / p95 (${l.setup})`, `${f(l.p50, 0)} / ${f(l.p95, 0)} ms`]),
    ...r.throughput.map((t) => [`${t.devices} devices, ${t.label}`, `${f(t.entriesPerSecond, 0)} entries/s stored, ${f(t.pulledPerSecond, 0)} records/s pulled, errors ${t.errors}`]),
  ],
};

const started = Date.now();
console.log(`Benchmarks${quick ? ' (quick)' : ''}: ${parts.join(', ')} — Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((x) => f(x, 2)).join(' ')}`);
const ran = [];
for (const name of parts) {
  if (interrupted) break;
  console.log(`\n=== ${name}: ${PARTS[name].what} ===\n`);
  const t = Date.now();
  const code = await runPart(name);
  ran.push({ name, code, seconds: (Date.now() - t) / 1000, result: code === 0 ? readResult(name, t) : null });
}

console.log('\n=== summary ===\n');
const headlines = (r) => {
  try {
    return r.result ? HEADLINES[r.name](r.result) : null;
  } catch (err) {
    return [['(summary unavailable)', String(err)]];
  }
};
const rows = [];
for (const r of ran) {
  const status = r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`;
  rows.push([r.name, `${status}, ${f(r.seconds, 1)} s${r.result ? ` → bench-results/${r.name}.json` : ''}`]);
  for (const [k, v] of headlines(r) ?? []) rows.push([`  ${k}`, v]);
}
const w = Math.max(...rows.map((r) => r[0].length));
for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
const failed = ran.filter((r) => r.code !== 0).map((r) => r.name);
const skipped = parts.filter((p) => !ran.some((r) => r.name === p));
console.log(`\n${ran.length - failed.length} of ${parts.length} part(s) passed${failed.length ? `; failed: ${failed.join(', ')}` : ''}${skipped.length ? `; not run (interrupted): ${skipped.join(', ')}` : ''} — ${f((Date.now() - started) / 1000, 1)} s in all`);

mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench-results', 'summary.json'),
  JSON.stringify({ generatedAt: new Date().toISOString(), quick, node: process.version, parts: ran.map((r) => ({ name: r.name, exitCode: r.code, seconds: r.seconds, headlines: headlines(r) })) }, null, 2),
);
process.exit(interrupted ? 130 : failed.length ? 1 : 0);
