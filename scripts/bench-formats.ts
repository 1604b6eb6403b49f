/**
 * Import/export benchmark: `npx tsx scripts/bench-formats.ts`.
 *
 * 1. Every real fixture (fixtures/real/*) imported two ways, each in a fresh
 *    child process so one import's garbage cannot hide in another's figures:
 *    - stream: the worker's own function (lib/formats/service.ts importFile, what the formats worker hosts)
 *      over a file-backed Blob, i.e. 64 KB chunks → TextDecoderStream →
 *      importStream, exactly as the browser worker reads a File;
 *    - text: the file read as one string, then importText.
 *    Time is the first (cold) run and the median of warm repetitions. Memory
 *    is from the cold run: peak heapUsed and peak RSS above a baseline taken
 *    after a full GC just before the import. Samples come from the import's
 *    own progress callback (once per chunk), a 5 ms timer, V8's GC profiler
 *    (heap size before and after every collection, which also happen inside
 *    synchronous parsing where no timer can fire) and a sampler thread that
 *    reads the process RSS every 2 ms while the main thread is busy.
 * 2. A generated ChatGPT data export (lib/testing/generateChatGpt.ts, 100 MB)
 *    written to a temp file and imported the same two ways: time, MB/s,
 *    conversations/s, and peak memory relative to the file size, with the
 *    text path as the baseline (ratios printed). Both must yield the same
 *    sessions (compared by digest).
 *    Then the same file imported INCLUDING storage, in a fresh process: the
 *    formats worker's own function (lib/db/importFile.ts importFileToStore:
 *    parse, store in batches, commit) into the app's database on
 *    fake-indexeddb: time, MB/s, sessions and entries stored (checked against
 *    the parse), progress updates and peak memory. A Node figure: fake-indexeddb
 *    is IndexedDB written in JavaScript, in memory (its heap holds the
 *    database); the browser figure comes from the browser bench.
 * 3. Exports of a generated 10,000-entry session with branches: JSONL,
 *    Markdown (active path and all branches), HTML and the zip archive; then
 *    the JSONL read back through importText and importStream and the archive
 *    through importArchive. The round trip must give the same snapshot and the
 *    same bytes again, or the bench fails.
 *
 * 4. Folder import: a generated ~/.claude/projects folder
 *    (lib/testing/generateClaudeCode.ts; 680 transcripts, ~100 MB) written to a
 *    temp directory and imported in one go by the folder-import flow
 *    (lib/flows/importBatch.ts) over file-backed Blobs, in a fresh process:
 *    time, files/s, MB/s and peak memory, sampled as above. Twice: with a store
 *    that counts what it is given and keeps nothing (what the import pipeline
 *    itself holds: it must stay bounded, about one file's worth, however many
 *    files), and through importFileToStore into the real database on
 *    fake-indexeddb (time end to end; its heap includes the in-memory
 *    database, which a browser keeps on disk).
 *
 * Prints tables and writes bench-results/formats.json. Options:
 *   --quick            smaller sizes, fewer repetitions (smoke run)
 *   --export-mb N      size of the generated ChatGPT export (default 100; 10 with --quick)
 *   --entries N        size of the generated session for exports (default 10,000; 2,000 with --quick)
 *   --folder-files N   files in the generated Claude Code folder (default 680; 120 with --quick)
 *   --folder-mb N      its size (default 100; 15 with --quick)
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { contentHash, exportArchive, exportHtml, exportJsonl, exportMarkdown, importArchive, importStream, importText, type ImportResult } from '@/lib/formats';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { generateSession } from '@/lib/testing/generate';
import { chatGptExportChunks, emptyShape, type ChatGptExportShape } from '@/lib/testing/generateChatGpt';
import { createFormatsService } from '@/lib/formats/service';
import { BatchImportTracker, importBatch, type BatchFile, type BatchSummary } from '@/lib/flows/importBatch';
import type { FlowPorts, ImportProgress, StoredImport } from '@/lib/flows/ports';
import { claudeCodeFolderFiles, emptyClaudeCodeShape } from '@/lib/testing/generateClaudeCode';
import { args, fmt, machine, machineLine, numArg, QUICK, stats, table } from './benchReport';

const CHILD = args[0] === '--child';
const EXPORT_MB = numArg('--export-mb') ?? (QUICK ? 10 : 100);
const ENTRIES = numArg('--entries') ?? (QUICK ? 2_000 : 10_000);
const FOLDER_FILES = numArg('--folder-files') ?? (QUICK ? 120 : 680);
const FOLDER_MB = numArg('--folder-mb') ?? (QUICK ? 15 : 100);
const FIXTURE_REPS = QUICK ? 2 : 5;
const EXPORT_REPS = QUICK ? 3 : 5;
const SEED = 20_261_122;
/** One import time for both import paths, so files without times (SWE-agent) give the same sessions. */
const IMPORTED_AT = Date.UTC(2026, 11, 1);
const MODEL = 'anthropic:claude-sonnet-4-5';
const CHUNK_BYTES = 64 * 1024;
const CHILD_TIMEOUT_MS = 240_000;
const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}bench-results/formats.json`;
const MB = 1e6;

// ------------------------------------------------------------------ helpers

const now = () => performance.now();


const mb = (bytes: number, d = 1) => `${fmt(bytes / MB, d)} MB`;


const entryCount = (r: ImportResult) => r.sessions.reduce((n, s) => n + s.entries.length, 0);

/**
 * What an import produced, independent of the random session ids: a hash of
 * every session's title, leaf, model and entries. Two importers agree when
 * their digests do.
 */
function digest(r: ImportResult): string {
  const h: string[] = [];
  for (const s of r.sessions) h.push(contentHash(JSON.stringify([s.meta.title, s.meta.leafId, s.meta.model ?? null, s.entries])));
  return contentHash(h.join(','));
}

// ------------------------------------------------------------------ child: one measured import

interface ChildSpec {
  mode: 'stream' | 'text' | 'folder' | 'folder-store' | 'store';
  /** A file, or (folder modes) a directory. */
  file: string;
  fileName: string;
  /** Warm repetitions after the measured cold run (0: cold run only). */
  reps: number;
}

interface ChildResult {
  mode: ChildSpec['mode'];
  bytes: number;
  format: string;
  sessions: number;
  entries: number;
  warnings: number;
  digest: string;
  coldMs: number;
  warmMs: number[];
  progressCalls: number;
  memory: {
    baseHeapUsed: number;
    peakHeapUsed: number;
    baseRss: number;
    peakRss: number;
    /** heapUsed after a full GC with the result still held: what the sessions themselves occupy. */
    retainedHeap: number;
    samples: number;
    gcs: number;
  };
}

/** Polls the process RSS from its own thread, so peaks during synchronous work on the main thread are seen. */
const RSS_SAMPLER = `
const { workerData } = require('node:worker_threads');
const peak = new BigInt64Array(workerData);
setInterval(() => {
  const rss = BigInt(process.memoryUsage.rss());
  if (rss > Atomics.load(peak, 0)) Atomics.store(peak, 0, rss);
}, 2);
`;

/** Every file under `dir`, as file-backed Blobs with paths relative to it (what a picked folder gives the flow). */
async function folderBlobs(dir: string): Promise<BatchFile[]> {
  const { readdirSync } = await import('node:fs');
  const out: BatchFile[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    out.push({ file: await openAsBlob(full), path: full.slice(dir.length + 1) });
  }
  return out;
}

/**
 * importFileToStore without storage: parses with the worker's importFile,
 * counts what it would store and keeps none of it, deduplicating by source as
 * the real one does.
 */
function countingImporter(): { importFileToStore: (file: Blob, name: string, opts: unknown, onProgress?: (p: ImportProgress) => void) => Promise<StoredImport>; entries: () => number } {
  const api = createFormatsService();
  const seen = new Set<string>();
  let entries = 0;
  return {
    async importFileToStore(file, name, _opts, onProgress) {
      const r = await api.importFile(file, name, (bytesRead, totalBytes) => onProgress?.({ bytesRead, totalBytes, stored: 0, total: null }));
      const out: StoredImport = { format: r.format, warnings: r.warnings, ...(r.skipped ? { skipped: r.skipped } : {}), read: r.sessions.length, imported: [], duplicates: [], updated: [], copies: [] };
      r.sessions.forEach((s, index) => {
        const key = `${s.meta.source?.hash ?? ''}\n${s.meta.source?.originalId ?? ''}`;
        if (seen.has(key)) out.duplicates.push({ index, title: s.meta.title, existingId: key });
        else {
          seen.add(key);
          entries += s.entries.length;
          out.imported.push({ id: key, title: s.meta.title });
        }
      });
      return out;
    },
    entries: () => entries,
  };
}

/**
 * Runs `run` once with the memory sampling every child uses: a 5 ms timer,
 * the run's own progress (`tick`), V8's GC profiler and an RSS sampler thread.
 */
async function measured<T>(run: (tick: () => void) => Promise<T>): Promise<{ value: T; coldMs: number; progressCalls: number; peakLiveHeap: number; memory: ChildResult['memory'] }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the child needs --expose-gc');
  const shared = new SharedArrayBuffer(8);
  const peakRssShared = new BigInt64Array(shared);
  const sampler = new Worker(RSS_SAMPLER, { eval: true, workerData: shared, execArgv: [] });
  await new Promise((r) => setTimeout(r, 50));
  gc();
  gc();
  const base = process.memoryUsage();
  Atomics.store(peakRssShared, 0, BigInt(base.rss));
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  let samples = 0;
  let progressCalls = 0;
  const sample = () => {
    const m = process.memoryUsage();
    samples++;
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
    if (m.rss > peakRss) peakRss = m.rss;
  };
  const timer = setInterval(sample, 5);
  const profiler = new v8.GCProfiler();
  profiler.start();
  const t0 = now();
  const value = await run(() => {
    progressCalls++;
    sample();
  });
  const coldMs = now() - t0;
  sample();
  const gcs = profiler.stop();
  clearInterval(timer);
  let peakLive = base.heapUsed;
  for (const g of gcs?.statistics ?? []) {
    peakHeap = Math.max(peakHeap, g.beforeGC.heapStatistics.usedHeapSize, g.afterGC.heapStatistics.usedHeapSize);
    peakLive = Math.max(peakLive, g.afterGC.heapStatistics.usedHeapSize);
  }
  peakRss = Math.max(peakRss, Number(Atomics.load(peakRssShared, 0)));
  await sampler.terminate();
  gc();
  gc();
  const retainedHeap = process.memoryUsage().heapUsed - base.heapUsed;
  return {
    value,
    coldMs,
    progressCalls,
    peakLiveHeap: peakLive - base.heapUsed,
    memory: { baseHeapUsed: base.heapUsed, peakHeapUsed: peakHeap, baseRss: base.rss, peakRss, retainedHeap, samples, gcs: gcs?.statistics.length ?? 0 },
  };
}

interface FolderChildResult {
  mode: 'folder' | 'folder-store';
  files: number;
  bytes: number;
  summary: Omit<BatchSummary, 'skipped'> & { skipped: number };
  entries: number;
  coldMs: number;
  progressCalls: number;
  /** Largest heap still in use right after a garbage collection during the import: what the import keeps alive, garbage aside. */
  peakLiveHeap: number;
  memory: ChildResult['memory'];
}

async function runFolderChild(spec: ChildSpec): Promise<void> {
  let formats: Pick<FlowPorts['formats'], 'importFileToStore' | 'cancelImport'>;
  let entries: () => number;
  if (spec.mode === 'folder-store') {
    // The fake IndexedDB first (see runStoreChild).
    const { fakeIndexedDb } = await import('./benchFakeStore');
    const { createStoredImportService } = await import('@/lib/db/importFile');
    formats = createStoredImportService(fakeIndexedDb('bench-folder'));
    entries = () => NaN;
  } else {
    const counting = countingImporter();
    formats = { importFileToStore: counting.importFileToStore, cancelImport: async () => {} };
    entries = counting.entries;
  }
  const files = await folderBlobs(spec.file);
  const bytes = files.reduce((n, f) => n + f.file.size, 0);
  const quiet = () => {};
  const ports = { formats, notify: { success: quiet, info: quiet, warning: quiet, error: quiet } } as unknown as FlowPorts;
  const tracker = new BatchImportTracker();
  const m = await measured(async (tick) => {
    const stop = tracker.subscribe(tick);
    try {
      return await importBatch(ports, tracker, 'projects', files, () => {});
    } finally {
      stop();
    }
  });
  const out: FolderChildResult = {
    peakLiveHeap: m.peakLiveHeap,
    mode: spec.mode as FolderChildResult['mode'],
    files: files.length,
    bytes,
    summary: { ...m.value, skipped: m.value.skipped.length },
    entries: entries(),
    coldMs: m.coldMs,
    progressCalls: m.progressCalls,
    memory: m.memory,
  };
  process.stdout.write(`@@RESULT ${JSON.stringify(out)}\n`);
}

interface StoreChildResult {
  mode: 'store';
  bytes: number;
  /** Sessions the file held, and what the database holds afterwards. */
  read: number;
  storedSessions: number;
  storedEntries: number;
  lastProgress: ImportProgress | null;
  coldMs: number;
  progressCalls: number;
  peakLiveHeap: number;
  memory: ChildResult['memory'];
}

/** The ChatGPT export parsed AND stored, as the formats worker does it, into the app's database on fake-indexeddb. */
async function runStoreChild(spec: ChildSpec): Promise<void> {
  // The fake IndexedDB first: Dexie takes the global indexedDB when it loads, and imports in parallel may load it before the fake is installed.
  const { fakeIndexedDb } = await import('./benchFakeStore');
  const [{ importFileToStore }, { countStoredEntries }] = await Promise.all([import('@/lib/db/importFile'), import('@/lib/db/packed')]);
  const db = fakeIndexedDb('bench-store');
  await db.open();
  const file = await openAsBlob(spec.file);
  let lastProgress: ImportProgress | null = null;
  const m = await measured((tick) =>
    importFileToStore(file, spec.fileName, { importedAt: IMPORTED_AT }, (p) => {
      lastProgress = p;
      tick();
    }, undefined, db),
  );
  const out: StoreChildResult = {
    mode: 'store',
    bytes: file.size,
    read: m.value.read,
    storedSessions: await db.sessions.count(),
    storedEntries: await countStoredEntries(db),
    lastProgress,
    coldMs: m.coldMs,
    progressCalls: m.progressCalls,
    peakLiveHeap: m.peakLiveHeap,
    memory: m.memory,
  };
  process.stdout.write(`@@RESULT ${JSON.stringify(out)}\n`);
}

async function runChild(spec: ChildSpec): Promise<void> {
  if (spec.mode === 'folder' || spec.mode === 'folder-store') return runFolderChild(spec);
  if (spec.mode === 'store') return runStoreChild(spec);
  const api = createFormatsService();
  const bytes = statSync(spec.file).size;
  const importOnce = async (tick: () => void = () => {}): Promise<ImportResult> =>
    spec.mode === 'stream'
      ? api.importFile(await openAsBlob(spec.file), spec.fileName, tick, IMPORTED_AT)
      : importText(readFileSync(spec.file, 'utf8'), { fileName: spec.fileName, importedAt: IMPORTED_AT });

  // The cold run is the measured one (memory, progress calls); the warm runs give times only.
  const m = await measured(importOnce);
  const result = m.value;

  const warmMs: number[] = [];
  for (let i = 0; i < spec.reps; i++) {
    const t = now();
    const again = await importOnce();
    warmMs.push(now() - t);
    if (again.sessions.length !== result.sessions.length) throw new Error('a repeated import gave a different result');
  }

  const out: ChildResult = {
    mode: spec.mode,
    bytes,
    format: result.format,
    sessions: result.sessions.length,
    entries: entryCount(result),
    warnings: result.warnings.length,
    digest: digest(result),
    coldMs: m.coldMs,
    warmMs,
    progressCalls: m.progressCalls,
    memory: m.memory,
  };
  process.stdout.write(`@@RESULT ${JSON.stringify(out)}\n`);
}

/** Runs one import in a fresh Node process (tsx loader, --expose-gc) and returns what it measured. */
function measureInChild(spec: ChildSpec & { mode: 'stream' | 'text' }): Promise<ChildResult>;
function measureInChild(spec: ChildSpec & { mode: 'folder' | 'folder-store' }): Promise<FolderChildResult>;
function measureInChild(spec: ChildSpec & { mode: 'store' }): Promise<StoreChildResult>;
function measureInChild(spec: ChildSpec): Promise<ChildResult | FolderChildResult | StoreChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, '--child', JSON.stringify(spec)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`import of ${spec.fileName} (${spec.mode}) did not finish within ${CHILD_TIMEOUT_MS / 1000} s`));
    }, CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('@@RESULT '));
      if (code !== 0 || !line) return reject(new Error(`import of ${spec.fileName} (${spec.mode}) failed: exit ${code ?? signal}\n${stdout}`));
      resolve(JSON.parse(line.slice('@@RESULT '.length)) as ChildResult | FolderChildResult | StoreChildResult);
    });
  });
}

function memoryFigures(c: ChildResult) {
  return {
    peakHeapUsed: c.memory.peakHeapUsed,
    heapAboveBase: c.memory.peakHeapUsed - c.memory.baseHeapUsed,
    rssAboveBase: c.memory.peakRss - c.memory.baseRss,
    retainedHeap: c.memory.retainedHeap,
  };
}

// ------------------------------------------------------------------ 1. fixtures

async function fixtureImports() {
  const rows = [];
  for (const file of allFixtureFiles()) {
    const path = join(FIXTURES_DIR, file);
    const stream = await measureInChild({ mode: 'stream', file: path, fileName: file, reps: FIXTURE_REPS });
    const text = await measureInChild({ mode: 'text', file: path, fileName: file, reps: FIXTURE_REPS });
    if (stream.digest !== text.digest || stream.entries !== text.entries) {
      throw new Error(`${file}: the streaming import (${stream.sessions} sessions, ${stream.entries} entries) differs from importText (${text.sessions}, ${text.entries})`);
    }
    rows.push({
      file,
      bytes: stream.bytes,
      format: stream.format,
      sessions: stream.sessions,
      entries: stream.entries,
      stream: { coldMs: stream.coldMs, warmMs: stats(stream.warmMs).median, chunks: stream.progressCalls, ...memoryFigures(stream), samples: stream.memory.samples, gcs: stream.memory.gcs },
      text: { coldMs: text.coldMs, warmMs: stats(text.warmMs).median, ...memoryFigures(text), samples: text.memory.samples, gcs: text.memory.gcs },
    });
  }
  return rows;
}

// ------------------------------------------------------------------ 2. generated ChatGPT export

async function writeChatGptExport(path: string, targetBytes: number): Promise<{ shape: ChatGptExportShape; ms: number }> {
  const shape = emptyShape();
  const t = now();
  const out = createWriteStream(path);
  for (const chunk of chatGptExportChunks({ seed: SEED, targetBytes }, shape)) {
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { shape, ms: now() - t };
}

async function chatGptExportImport() {
  const dir = mkdtempSync(join(tmpdir(), 'longctx-bench-'));
  const path = join(dir, 'conversations.json');
  try {
    const gen = await writeChatGptExport(path, EXPORT_MB * MB);
    const bytes = statSync(path).size;
    if (bytes !== gen.shape.bytes) throw new Error(`generated ${gen.shape.bytes} bytes but the file has ${bytes}`);
    const stream = await measureInChild({ mode: 'stream', file: path, fileName: 'conversations.json', reps: 0 });
    const text = await measureInChild({ mode: 'text', file: path, fileName: 'conversations.json', reps: 0 });
    if (stream.digest !== text.digest) throw new Error('conversations.json: the streaming import differs from importText');
    if (stream.sessions !== gen.shape.conversations) throw new Error(`conversations.json: ${stream.sessions} sessions imported, ${gen.shape.conversations} generated`);
    const stored = await measureInChild({ mode: 'store', file: path, fileName: 'conversations.json', reps: 0 });
    if (stored.storedSessions !== stream.sessions || stored.storedEntries !== stream.entries || stored.read !== stream.sessions) {
      throw new Error(`conversations.json: importFileToStore stored ${stored.storedSessions} sessions / ${stored.storedEntries} entries of ${stored.read} read; the parse gave ${stream.sessions} / ${stream.entries}`);
    }
    const figures = (c: ChildResult) => {
      const m = memoryFigures(c);
      return {
        seconds: c.coldMs / 1000,
        megabytesPerSecond: bytes / MB / (c.coldMs / 1000),
        conversationsPerSecond: c.sessions / (c.coldMs / 1000),
        entriesPerSecond: c.entries / (c.coldMs / 1000),
        ...m,
        heapAboveBasePerFileByte: m.heapAboveBase / bytes,
        rssAbovePerFileByte: m.rssAboveBase / bytes,
        retainedPerFileByte: m.retainedHeap / bytes,
        chunks: c.progressCalls,
        samples: c.memory.samples,
        gcs: c.memory.gcs,
      };
    };
    const s = figures(stream);
    const t = figures(text);
    const storedFigures = {
      seconds: stored.coldMs / 1000,
      megabytesPerSecond: bytes / MB / (stored.coldMs / 1000),
      conversationsPerSecond: stored.storedSessions / (stored.coldMs / 1000),
      storedSessions: stored.storedSessions,
      storedEntries: stored.storedEntries,
      lastProgress: stored.lastProgress,
      progressUpdates: stored.progressCalls,
      peakHeapUsed: stored.memory.peakHeapUsed,
      heapAboveBase: stored.memory.peakHeapUsed - stored.memory.baseHeapUsed,
      liveHeapAboveBase: stored.peakLiveHeap,
      rssAboveBase: stored.memory.peakRss - stored.memory.baseRss,
      retainedHeap: stored.memory.retainedHeap,
    };
    return {
      bytes,
      stored: storedFigures,
      generator: { seed: SEED, seconds: gen.ms / 1000, ...gen.shape },
      sessions: stream.sessions,
      entries: stream.entries,
      warnings: stream.warnings,
      stream: s,
      text: t,
      ratio: {
        timeStreamOverText: s.seconds / t.seconds,
        heapTextOverStream: t.heapAboveBase / s.heapAboveBase,
        rssTextOverStream: t.rssAboveBase / s.rssAboveBase,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ 3. exports and round trip

/**
 * A session of `total` entries with branches: a linear main line with
 * compactions (generate.ts), plus 20 side branches of generated turns hung
 * below assistant replies of the main line, as edited prompts would be. The
 * leaf is the end of the main line.
 */
function branchedSession(total: number): SessionSnapshot {
  const branches = 20;
  const perBranch = Math.max(5, Math.floor(total / 10 / branches));
  const mainCount = total - branches * perBranch;
  const main = generateSession({ seed: SEED, entries: mainCount, model: MODEL, usage: true, compactEvery: Math.max(200, Math.floor(mainCount / 6)) });
  const entries: SessionEntry[] = [...main.entries];
  // Branch points: replies directly followed by a user prompt, spread over the whole line.
  const anchors: string[] = [];
  for (let i = 0; i + 1 < main.entries.length; i++) {
    const a = main.entries[i]!;
    const b = main.entries[i + 1]!;
    if (a.type === 'message' && a.message.role === 'assistant' && b.type === 'message' && b.message.role === 'user') anchors.push(a.id);
  }
  for (let k = 0; k < branches; k++) {
    const anchor = anchors[Math.floor(((k + 0.5) / branches) * anchors.length)]!;
    const side = generateSession({ seed: SEED + 1 + k, entries: perBranch, model: MODEL, usage: true });
    const rename = (id: string | null) => (id === null ? anchor : `b${k}-${id}`);
    for (const e of side.entries) entries.push({ ...e, id: `b${k}-${e.id}`, parentId: rename(e.parentId) } as SessionEntry);
  }
  // Stored sessions never carry undefined-valued keys (importers compact them), so neither does this one.
  const clean = JSON.parse(JSON.stringify(entries)) as SessionEntry[];
  return {
    meta: {
      id: 'bench-session',
      title: `Generated ${total.toLocaleString('en-US')}-entry session`,
      createdAt: clean[0]!.timestamp,
      updatedAt: Math.max(...clean.map((e) => e.timestamp)),
      leafId: main.leafId,
      model: MODEL,
    },
    entries: clean,
  };
}

function timeIt<T>(reps: number, fn: () => T): { ms: ReturnType<typeof stats>; value: T } {
  let value = fn(); // warm-up, not measured
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = now();
    value = fn();
    ms.push(now() - t);
  }
  return { ms: stats(ms), value };
}

async function timeItAsync<T>(reps: number, fn: () => Promise<T>): Promise<{ ms: ReturnType<typeof stats>; value: T }> {
  let value = await fn();
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = now();
    value = await fn();
    ms.push(now() - t);
  }
  return { ms: stats(ms), value };
}

/** The string cut into 64 KB pieces, as a decoded File.stream() delivers it. */
async function* chunksOf(text: string, size = CHUNK_BYTES): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function firstDifference(a: SessionSnapshot, b: SessionSnapshot | undefined): string {
  if (!b) return 'no session came back';
  if (!isDeepStrictEqual(a.meta, b.meta)) return `meta differs: ${JSON.stringify(a.meta)} vs ${JSON.stringify(b.meta)}`;
  if (a.entries.length !== b.entries.length) return `${a.entries.length} entries exported, ${b.entries.length} read back`;
  const i = a.entries.findIndex((e, k) => !isDeepStrictEqual(e, b.entries[k]));
  return i < 0 ? 'identical' : `entry ${i} differs: ${JSON.stringify(a.entries[i]).slice(0, 300)} vs ${JSON.stringify(b.entries[i]).slice(0, 300)}`;
}

async function exportsAndRoundTrip() {
  const snapshot = branchedSession(ENTRIES);
  const branchPoints = (() => {
    const kids = new Map<string, number>();
    for (const e of snapshot.entries) if (e.parentId) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
    return [...kids.values()].filter((n) => n > 1).length;
  })();

  const exports = {
    jsonl: timeIt(EXPORT_REPS, () => exportJsonl(snapshot)),
    markdown: timeIt(EXPORT_REPS, () => exportMarkdown(snapshot)),
    markdownAll: timeIt(EXPORT_REPS, () => exportMarkdown(snapshot, { allBranches: true })),
    html: timeIt(EXPORT_REPS, () => exportHtml(snapshot)),
    archive: timeIt(EXPORT_REPS, () => exportArchive([snapshot], { now: Date.UTC(2026, 0, 1) })),
  };
  const size = (v: string | Uint8Array) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.byteLength);
  const jsonl = exports.jsonl.value;

  const viaText = timeIt(EXPORT_REPS, () => importText(jsonl, { fileName: 'session.jsonl' }));
  const viaStream = await timeItAsync(EXPORT_REPS, () => importStream(chunksOf(jsonl), { fileName: 'session.jsonl' }));
  const viaArchive = timeIt(EXPORT_REPS, () => importArchive(exports.archive.value));
  const checks = {
    importText: firstDifference(snapshot, viaText.value.sessions[0]),
    importStream: firstDifference(snapshot, viaStream.value.sessions[0]),
    importArchive: firstDifference(snapshot, viaArchive.value.sessions[0]),
    jsonlBytesAgain: viaText.value.sessions[0] && exportJsonl(viaText.value.sessions[0]) === jsonl ? 'identical' : 'the re-export differs from the first export',
  };
  const counts = [viaText, viaStream, viaArchive].map((r) => r.value.sessions.length);
  const failed = Object.entries(checks).filter(([, v]) => v !== 'identical');
  if (counts.some((n) => n !== 1)) failed.push(['sessions', `expected one session back, got ${counts.join(', ')}`]);
  if (failed.length) throw new Error(`Round trip is not identical:\n${failed.map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);

  const row = (r: { ms: ReturnType<typeof stats>; value: string | Uint8Array }) => ({
    medianMs: r.ms.median,
    minMs: r.ms.min,
    maxMs: r.ms.max,
    outputBytes: size(r.value),
    megabytesPerSecond: size(r.value) / MB / (r.ms.median / 1000),
  });
  return {
    session: { entries: snapshot.entries.length, branchPoints, seed: SEED, jsonlBytes: size(jsonl) },
    reps: EXPORT_REPS,
    exports: {
      jsonl: row(exports.jsonl),
      markdown: row(exports.markdown),
      markdownAllBranches: row(exports.markdownAll),
      html: row(exports.html),
      archive: row(exports.archive),
    },
    roundTrip: {
      importText: { medianMs: viaText.ms.median, maxMs: viaText.ms.max },
      importStream: { medianMs: viaStream.ms.median, maxMs: viaStream.ms.max, chunkBytes: CHUNK_BYTES },
      importArchive: { medianMs: viaArchive.ms.median, maxMs: viaArchive.ms.max },
      checks,
    },
  };
}

// ------------------------------------------------------------------ 4. folder import

async function folderImport() {
  const dir = mkdtempSync(join(tmpdir(), 'longctx-bench-projects-'));
  try {
    const shape = emptyClaudeCodeShape();
    const t = now();
    let largestFileBytes = 0;
    for (const f of claudeCodeFolderFiles({ seed: SEED, files: FOLDER_FILES, targetBytes: FOLDER_MB * MB }, shape)) {
      const path = join(dir, f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.text);
      largestFileBytes = Math.max(largestFileBytes, statSync(path).size);
    }
    const genSeconds = (now() - t) / 1000;
    const pipeline = await measureInChild({ mode: 'folder', file: dir, fileName: 'projects', reps: 0 });
    const stored = await measureInChild({ mode: 'folder-store', file: dir, fileName: 'projects', reps: 0 });
    for (const r of [pipeline, stored]) {
      if (r.files !== shape.files || r.bytes !== shape.bytes) throw new Error(`folder import read ${r.files} files / ${r.bytes} bytes, ${shape.files} / ${shape.bytes} were written`);
      if (r.summary.sessionsImported !== shape.files || r.summary.skipped !== 0) throw new Error(`folder import (${r.mode}): ${r.summary.sessionsImported} sessions imported, ${r.summary.skipped} files skipped, of ${shape.files}`);
    }
    const expectedEntries = shape.uuidLines - shape.compactions;
    if (pipeline.entries !== expectedEntries) throw new Error(`folder import: ${pipeline.entries} entries, ${expectedEntries} expected from the generated lines`);
    const figures = (r: FolderChildResult) => ({
      seconds: r.coldMs / 1000,
      filesPerSecond: r.files / (r.coldMs / 1000),
      megabytesPerSecond: r.bytes / MB / (r.coldMs / 1000),
      peakHeapUsed: r.memory.peakHeapUsed,
      heapAboveBase: r.memory.peakHeapUsed - r.memory.baseHeapUsed,
      liveHeapAboveBase: r.peakLiveHeap,
      rssAboveBase: r.memory.peakRss - r.memory.baseRss,
      retainedHeap: r.memory.retainedHeap,
      progressUpdates: r.progressCalls,
      samples: r.memory.samples,
      gcs: r.memory.gcs,
    });
    return {
      generator: { seed: SEED, seconds: genSeconds, ...shape, largestFileBytes },
      sessions: pipeline.summary.sessionsImported,
      entries: pipeline.entries,
      pipeline: figures(pipeline),
      store: figures(stored),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ main

async function main() {
  const t0 = now();
  console.log(
    `Import/export bench — ${machineLine()}${QUICK ? ', quick' : ''}\n`,
  );

  const fixtures = await fixtureImports();
  console.log(`1. Real fixtures: import time (cold = first run in a fresh process; warm = median of ${FIXTURE_REPS} more runs)`);
  table(
    ['fixture', 'format', 'size', 'sessions', 'entries', 'stream cold ms', 'stream warm ms', 'warm MB/s', 'text cold ms', 'text warm ms', 'warm MB/s'],
    fixtures.map((f) => [
      f.file.length > 44 ? `${f.file.slice(0, 41)}…` : f.file,
      f.format,
      mb(f.bytes, 2),
      f.sessions,
      f.entries,
      fmt(f.stream.coldMs, 1),
      fmt(f.stream.warmMs, 1),
      fmt(f.bytes / MB / (f.stream.warmMs / 1000), 1),
      fmt(f.text.coldMs, 1),
      fmt(f.text.warmMs, 1),
      fmt(f.bytes / MB / (f.text.warmMs / 1000), 1),
    ]),
  );
  console.log('   …and peak memory of the cold run above the baseline (after GC, before the import); retained = heap still held by the result after GC');
  table(
    ['fixture', 'size', 'stream heap Δ', 'stream RSS Δ', 'text heap Δ', 'text RSS Δ', 'retained', 'chunks'],
    fixtures.map((f) => [
      f.file.length > 44 ? `${f.file.slice(0, 41)}…` : f.file,
      mb(f.bytes, 2),
      mb(f.stream.heapAboveBase),
      mb(f.stream.rssAboveBase),
      mb(f.text.heapAboveBase),
      mb(f.text.rssAboveBase),
      mb(f.stream.retainedHeap),
      f.stream.chunks,
    ]),
  );
  console.log('   stream = lib/formats/service importFile (the formats worker) over a file-backed Blob (64 KB chunks → TextDecoderStream → importStream); text = readFile + importText. Both give identical sessions.\n');

  const chatgpt = await chatGptExportImport();
  const g = chatgpt.generator;
  console.log(
    `2. Generated ChatGPT export: ${mb(chatgpt.bytes)} conversations.json, ${g.conversations.toLocaleString()} conversations, ${g.messages.toLocaleString()} messages, ${g.branchPoints.toLocaleString()} branch points (${g.editedPrompts} edited prompts, ${g.regeneratedReplies} regenerated replies), ${g.toolCalls} tool calls → ${chatgpt.entries.toLocaleString()} entries; generated in ${fmt(g.seconds, 1)} s`,
  );
  const cg = (name: string, r: typeof chatgpt.stream) => [
    name,
    fmt(r.seconds, 2),
    fmt(r.megabytesPerSecond, 1),
    fmt(r.conversationsPerSecond, 0),
    mb(r.peakHeapUsed),
    mb(r.heapAboveBase),
    `${fmt(r.heapAboveBasePerFileByte, 2)}×`,
    mb(r.rssAboveBase),
    `${fmt(r.rssAbovePerFileByte, 2)}×`,
    `${fmt(r.retainedPerFileByte, 2)}×`,
  ];
  table(
    ['path', 's', 'MB/s', 'conv/s', 'peak heap', 'heap Δ', 'heap Δ / file', 'RSS Δ', 'RSS Δ / file', 'retained / file'],
    [cg('stream (64 KB chunks from disk)', chatgpt.stream), cg('text (readFile + importText)', chatgpt.text)],
  );
  console.log(
    `   stream / text time: ${fmt(chatgpt.ratio.timeStreamOverText, 2)}×; text / stream peak heap Δ: ${fmt(chatgpt.ratio.heapTextOverStream, 2)}×, peak RSS Δ: ${fmt(chatgpt.ratio.rssTextOverStream, 2)}×. Retained = the imported sessions held after GC (needed either way).\n`,
  );

  const st = chatgpt.stored;
  console.log(`   Including storage (Node figure): the formats worker's importFileToStore — parse, store in batches, commit — into the app's database on fake-indexeddb`);
  table(
    ['path', 's', 'MB/s', 'conv/s', 'stored sessions', 'stored entries', 'last progress', 'progress updates', 'heap Δ', 'live heap Δ', 'RSS Δ'],
    [
      [
        'parse + store (fake-indexeddb)',
        fmt(st.seconds, 2),
        fmt(st.megabytesPerSecond, 1),
        fmt(st.conversationsPerSecond, 0),
        st.storedSessions.toLocaleString(),
        st.storedEntries.toLocaleString(),
        st.lastProgress ? `stored ${st.lastProgress.stored.toLocaleString()} of ${st.lastProgress.total?.toLocaleString() ?? '?'}` : '—',
        st.progressUpdates,
        mb(st.heapAboveBase),
        mb(st.liveHeapAboveBase),
        mb(st.rssAboveBase),
      ],
    ],
  );
  console.log(
    `   fake-indexeddb is IndexedDB written in JavaScript and kept in this process's heap (the heap figures include the database itself); a browser writes to disk in its own processes. Parse alone: ${fmt(chatgpt.stream.megabytesPerSecond, 1)} MB/s; with storage: ${fmt(st.megabytesPerSecond, 1)} MB/s. The browser figure is the browser bench's.\n`,
  );

  const ex = await exportsAndRoundTrip();
  console.log(`3. Export of a generated ${ex.session.entries.toLocaleString()}-entry session (${ex.session.branchPoints} branch points, compactions; median of ${ex.reps} runs after a warm-up)`);
  const er = (name: string, r: typeof ex.exports.jsonl) => [name, fmt(r.medianMs, 1), fmt(r.maxMs, 1), mb(r.outputBytes, 2), fmt(r.megabytesPerSecond, 1)];
  table(
    ['export', 'median ms', 'max ms', 'output', 'MB/s'],
    [
      er('exportJsonl', ex.exports.jsonl),
      er('exportMarkdown (active path)', ex.exports.markdown),
      er('exportMarkdown (all branches)', ex.exports.markdownAllBranches),
      er('exportHtml', ex.exports.html),
      er('exportArchive (zip)', ex.exports.archive),
    ],
  );
  table(
    ['round trip of the export', 'median ms', 'max ms', 'same snapshot'],
    [
      ['importText(jsonl)', fmt(ex.roundTrip.importText.medianMs, 1), fmt(ex.roundTrip.importText.maxMs, 1), ex.roundTrip.checks.importText],
      ['importStream(jsonl in 64 KB chunks)', fmt(ex.roundTrip.importStream.medianMs, 1), fmt(ex.roundTrip.importStream.maxMs, 1), ex.roundTrip.checks.importStream],
      ['importArchive(zip)', fmt(ex.roundTrip.importArchive.medianMs, 1), fmt(ex.roundTrip.importArchive.maxMs, 1), ex.roundTrip.checks.importArchive],
    ],
  );
  console.log(`   re-exporting the imported session gives the same JSONL bytes: ${ex.roundTrip.checks.jsonlBytesAgain}\n`);

  const folder = await folderImport();
  const fg = folder.generator;
  console.log(
    `4. Folder import: a generated ~/.claude/projects with ${fg.files.toLocaleString()} transcripts, ${mb(fg.bytes)} (${fg.lines.toLocaleString()} lines, ${fg.toolCalls.toLocaleString()} tool calls, ${fg.sidechainLines.toLocaleString()} sub-agent lines, ${fg.commandNotes} command notes, ${fg.compactions} compactions) → ${folder.sessions} sessions, ${folder.entries.toLocaleString()} entries, imported in one go by the folder-import flow over file-backed Blobs`,
  );
  const fr = (name: string, r: typeof folder.pipeline) => [name, fmt(r.seconds, 2), fmt(r.filesPerSecond, 0), fmt(r.megabytesPerSecond, 1), mb(r.peakHeapUsed), mb(r.heapAboveBase), mb(r.liveHeapAboveBase), mb(r.rssAboveBase), mb(r.retainedHeap), r.progressUpdates];
  table(
    ['store', 's', 'files/s', 'MB/s', 'peak heap', 'heap Δ', 'live heap Δ', 'RSS Δ', 'retained', 'progress updates'],
    [fr('counting (keeps nothing)', folder.pipeline), fr('importFileToStore → fake-indexeddb', folder.store)],
  );
  console.log(
    `   live heap Δ = the largest heap still in use right after a GC during the import (garbage aside). The pipeline's is ${fmt(folder.pipeline.liveHeapAboveBase / fg.bytes, 2)}× the folder, ${fmt(folder.pipeline.liveHeapAboveBase / fg.largestFileBytes, 1)}× its largest file (${mb(fg.largestFileBytes)}): it holds the file in hand, not the folder. With fake-indexeddb the heap also holds the database itself (a browser keeps it on disk).\n`,
  );

  const result = {
    ...machine(),
    quick: QUICK,
    loadAverage: loadavg(),
    fixtures,
    chatgpt,
    exports: ex,
    folder,
    seconds: (now() - t0) / 1000,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(result, null, 2));
  console.log(`Wrote ${OUT.slice(ROOT.length)} (${fmt(result.seconds, 1)} s)`);
}

(CHILD ? runChild(JSON.parse(args[1] ?? '{}') as ChildSpec) : main()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
