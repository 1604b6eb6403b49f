/**
 * `npm run bench -- browser`: what the user gets, measured where the user sits. Playwright drives
 * the production build in Chromium against the scripted model (e2e/mock-llm, started here); every
 * profile is loaded through the app's own import (the file input), never written behind its back.
 *
 * Profiles, each figure with its baseline from the same run:
 *   empty     a fresh browser: time to open the app
 *   1k        one session of 1,000 entries (compacted every 60, as long sessions are)
 *   10k       one session of 10,000 entries
 *   10k+5000  the same 10k session open, plus 5,000 more sessions in the sidebar
 * Per profile: typing latency (key → next frame), the context meter's update after Send, long
 * tasks while a reply streams, main-thread time per saved chunk of that reply, time to open the
 * app to its first message. Separately: a generated 100 MB ChatGPT export imported through the file
 * input, timed to the rendered list, with the longest main-thread task and the renderer's memory.
 *
 * Prints tables, writes bench-results/browser.json; exits 1 when a check breaks (a reply not
 * rendered whole, an import that lost conversations, a figure that could not be measured).
 * `--quick`: smaller sizes (300 / 2,000 entries, 500 sessions, a 10 MB export, a shorter reply).
 */

import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { exportArchive, exportJsonl } from '@/lib/formats';
import type { SessionSnapshot } from '@/lib/session/types';
import { generateSession, Rng, sentence } from '@/lib/testing/generate';
import { chatGptExportChunks, emptyShape } from '@/lib/testing/generateChatGpt';
import { startMockLlm, type MockLlm } from '../e2e/mock-llm/server';
import { startAppServer, type AppServer } from '../e2e/support/appServer';
import { args, fmt, machine, machineLine, QUICK, stats, table, type Stats } from './benchReport';
import { ChromiumProcesses, samplePeaks } from './benchProcesses';
import { PART_LABELS, startMemoryDumps } from './benchMemoryDump';
import { sampleWorkerPeaks, WorkerHeaps } from './benchWorkerHeaps';
import { scriptMs, type CpuProfile } from './benchCpuProfile';

const SIZES = QUICK
  ? { small: 300, large: 2_000, sessions: 500, importBytes: 10e6, replyWords: 200, typedChars: 30, streams: 2, pairs: 2 }
  : { small: 1_000, large: 10_000, sessions: 5_000, importBytes: 100e6, replyWords: 700, typedChars: 60, streams: 3, pairs: 5 };
/** `--import-only`: just the ChatGPT import (bench-results/browser-import.json), for work on the import. */
const IMPORT_ONLY = args.includes('--import-only');
/** `--profile`: a CPU profile of the page and a timeline trace during each stream, in bench-results/profiles/ (for finding long tasks). */
const PROFILE = args.includes('--profile');
/** `--memory-dump`: Chromium's memory-infra dumps during the import, printed as the renderer's memory by allocator (tracing slows the import). */
const MEMORY_DUMP = args.includes('--memory-dump');
const CHUNK_DELAY_MS = 8;
const KEY_DELAY_MS = 60;

const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const WORK = join(tmpdir(), 'longctx-bench-browser');
const failures: string[] = [];
function check(ok: boolean, what: string) {
  if (!ok) {
    failures.push(what);
    console.error(`CHECK FAILED: ${what}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Generated inputs

/** A long compacted session as the app's own JSONL. */
function sessionFile(entries: number, title: string): string {
  const { entries: all, leafId } = generateSession({ seed: entries, entries, usage: true, compactEvery: 60 });
  return exportJsonl({ meta: { id: `bench-${entries}`, title, createdAt: 1, updatedAt: 2, leafId }, entries: all });
}

/** Many small sessions in one archive of the app's own export format. */
function manySessionsArchive(n: number): Uint8Array {
  const snapshots: SessionSnapshot[] = [];
  for (let i = 0; i < n; i++) {
    const { entries, leafId } = generateSession({ seed: 1000 + i, entries: 6, startTime: Date.UTC(2025, 0, 1) + i * 60_000 });
    snapshots.push({ meta: { id: `many-${i}`, title: `Generated session ${i + 1}`, createdAt: 1 + i, updatedAt: 2 + i, leafId }, entries });
  }
  return exportArchive(snapshots, { now: Date.UTC(2026, 0, 1) });
}

/**
 * A markdown reply like a model's long answer: headings, prose, lists, code fences, math. Its first and
 * last words name the turn (`Streamwordalpha<tag>`, `Streamwordomega<tag>`), so each stream's start and
 * end are found on a page that already shows earlier replies.
 */
function replyText(words: number, tag: string): string {
  const r = new Rng(42);
  const blocks: string[] = [`Streamwordalpha${tag}: here is the plan.`];
  let count = 6;
  let k = 0;
  while (count < words) {
    const kind = k++ % 5;
    let block: string;
    if (kind === 0) block = `## ${sentence(r, 2, 5).replace(/[.?!:]$/, '')}`;
    else if (kind === 1) block = [sentence(r), sentence(r), sentence(r)].join(' ');
    else if (kind === 2) block = Array.from({ length: 4 }, () => `- ${sentence(r, 4, 10)}`).join('\n');
    else if (kind === 3) block = ['```ts', 'export function total(xs: number[]): number {', '  let sum = 0;', '  for (const x of xs) sum += x; // ' + sentence(r, 3, 6), '  return sum;', '}', '```'].join('\n');
    else block = `$$\\sum_{i=1}^{${r.int(2, 99)}} x_i^2 = ${r.int(1, 999)}$$\n\n${sentence(r)}`;
    blocks.push(block);
    count += block.split(/\s+/).length;
  }
  blocks.push(`Streamwordomega${tag}.`);
  return blocks.join('\n\n');
}

/** Word-sized chunks, whitespace kept, as a model streams them. */
const chunksOf = (text: string) => text.match(/\S+\s*/g) ?? [];

/** A ChatGPT export of about `bytes`, written to disk in pieces (it never exists as one string here). */
function chatGptFile(bytes: number): { path: string; bytes: number; conversations: number } {
  const path = join(WORK, `conversations-${Math.round(bytes / 1e6)}mb`, 'conversations.json');
  mkdirSync(join(path, '..'), { recursive: true });
  const shape = emptyShape();
  const fd = openSync(path, 'w');
  try {
    for (const c of chatGptExportChunks({ seed: 7, targetBytes: bytes }, shape)) writeSync(fd, c);
  } finally {
    closeSync(fd);
  }
  return { path, bytes: shape.bytes, conversations: shape.conversations };
}

// ---------------------------------------------------------------------------------------------
// Browser plumbing

function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    if (existsSync(chromium.executablePath())) return undefined;
  } catch {
    /* Playwright's own browser is not installed */
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync);
}

/**
 * Installed before the app's own scripts: long tasks (buffered from the first one), every
 * IndexedDB put to the entries store (entryRows; a saved chunk of a streaming reply is one), and the
 * moments the app shell and the first message appear.
 */
function instrument() {
  const w = window as unknown as Record<string, unknown>;
  const long: { start: number; duration: number }[] = [];
  const puts: number[] = [];
  const open: { shell?: number; message?: number } = {};
  w.__bench = { long, puts, open };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) long.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...a: Parameters<IDBObjectStore['put']>) {
    if (this.name === 'entryRows') puts.push(performance.now());
    return put.apply(this, a);
  };
  const seen = () => {
    if (open.shell === undefined && document.querySelector('textarea, button')) {
      for (const b of document.querySelectorAll('button')) if (b.textContent?.trim() === 'New session') open.shell = performance.now();
    }
    if (open.message === undefined && document.querySelector('[role="log"] article')) open.message = performance.now();
    if (open.shell !== undefined && open.message !== undefined) mo.disconnect();
  };
  const mo = new MutationObserver(seen);
  document.addEventListener('DOMContentLoaded', () => {
    mo.observe(document.body, { childList: true, subtree: true });
    seen();
  });
}

interface Bench {
  long: { start: number; duration: number }[];
  puts: number[];
  open: { shell?: number; message?: number };
}

const VIEWPORT = { width: 1280, height: 800 };
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

async function instrumented(context: BrowserContext): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession }> {
  // As source text with a local `__name`: tsx (esbuild) wraps named inner functions in that helper, which the page lacks.
  await context.addInitScript({ content: `(() => { const __name = (f) => f; (${instrument.toString()})(); })();` });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  return { context, page, cdp };
}

async function newContext(browser: Browser, baseURL: string): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession }> {
  return instrumented(await browser.newContext({ baseURL, viewport: VIEWPORT }));
}

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics: m } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(m.map((x) => [x.name, x.value]));
}

const bench = (page: Page) => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench);

async function importThroughInput(
  page: Page,
  file: { name: string; mimeType: string; buffer: Buffer } | string,
  expectSessions: number,
  timeoutMs = 600_000,
  afterHandOver?: () => Promise<void>,
) {
  await page.getByLabel('Import file').setInputFiles(file);
  await afterHandOver?.();
  // The app writes counts as people read them ("5,000").
  await page.getByText(new RegExp(`Imported ${expectSessions.toLocaleString('en-US')} sessions?\\b`)).first().waitFor({ timeout: timeoutMs });
}

/** Waits until the app has counted the open session (meter filled) and stored its token caches. */
async function settle(page: Page) {
  await page.waitForFunction(() => document.querySelector('[role="meter"][aria-label="Context"]')?.getAttribute('aria-valuenow') != null, null, { timeout: 120_000 });
  await page.waitForTimeout(QUICK ? 1500 : 4000);
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface StreamFigures {
  words: number;
  longTasks: number;
  longTaskMs: number;
  maxLongTaskMs: number;
  seconds: number;
  savedChunks: number;
  mainThreadMs: number;
  msPerSavedChunk: number;
  /** With `--profile`: JavaScript time in the stream's CPU profile (benchCpuProfile.ts), the app's own work without the renderer's. */
  scriptMs?: number;
}

interface TurnFigures {
  keys: number[];
  typing: Stats;
  meterAfterSendMs: number;
  stream: StreamFigures;
}

/** A profile's turns taken together: every key, every stream; long tasks summed, the rest as medians over the streams. */
interface ProfileFigures {
  typing: Stats;
  meterAfterSendMs: Stats;
  /** Long tasks over all the profile's streams (the goal is none in any). */
  stream: Omit<StreamFigures, 'words'> & { streams: number };
  turns: TurnFigures[];
  /** The fresh page's first reply, streamed before the measured ones and not in their figures. */
  first?: TurnFigures;
}

function profileFigures(turns: TurnFigures[]): ProfileFigures {
  const median = (f: (t: TurnFigures) => number) => stats(turns.map(f)).median;
  return {
    typing: stats(turns.flatMap((t) => t.keys)),
    meterAfterSendMs: stats(turns.map((t) => t.meterAfterSendMs)),
    stream: {
      streams: turns.length,
      longTasks: turns.reduce((a, t) => a + t.stream.longTasks, 0),
      longTaskMs: turns.reduce((a, t) => a + t.stream.longTaskMs, 0),
      maxLongTaskMs: Math.max(0, ...turns.map((t) => t.stream.maxLongTaskMs)),
      seconds: median((t) => t.stream.seconds),
      savedChunks: median((t) => t.stream.savedChunks),
      mainThreadMs: median((t) => t.stream.mainThreadMs),
      msPerSavedChunk: median((t) => t.stream.msPerSavedChunk),
    },
    turns,
  };
}

/** `SIZES.streams` turns in a row on the open session (a page that has streamed before: see pairedTurns). */
async function profileTurns(page: Page, cdp: CDPSession, mock: MockLlm, label: string): Promise<ProfileFigures> {
  const all: TurnFigures[] = [];
  for (let i = 0; i < SIZES.streams; i++) all.push(await turn(page, cdp, mock, label));
  return profileFigures(all);
}

interface OpenPage {
  page: Page;
  cdp: CDPSession;
}

/**
 * In each fresh page one reply streams first and is reported apart: the first reply compiles the markdown, math
 * and highlighting code, the same whatever the session's size, and would otherwise count against whichever
 * profile runs first. Then the 1k and 10k profiles' turns, alternated between their two pages (a b, b a, a b, …): each pair of
 * turns streams back to back, so a change in the machine's load during the run moves both sides of the
 * per-chunk ratio, which is taken per pair. Run one profile after the other, a busy minute in one of them
 * moved that ratio by 20 % (1.26× in one run of 2026-11-27, 1.06× in the next, same code).
 */
async function pairedTurns(
  a: OpenPage,
  b: OpenPage,
  mock: MockLlm,
  labels: [string, string],
): Promise<{ a: ProfileFigures; b: ProfileFigures; ratios: number[]; scriptRatios: number[] }> {
  const firstA = await turn(a.page, a.cdp, mock, `${labels[0]}, first reply`);
  const firstB = await turn(b.page, b.cdp, mock, `${labels[1]}, first reply`);
  const ta: TurnFigures[] = [];
  const tb: TurnFigures[] = [];
  for (let i = 0; i < SIZES.pairs; i++) {
    if (i % 2 === 0) {
      ta.push(await turn(a.page, a.cdp, mock, labels[0]));
      tb.push(await turn(b.page, b.cdp, mock, labels[1]));
    } else {
      tb.push(await turn(b.page, b.cdp, mock, labels[1]));
      ta.push(await turn(a.page, a.cdp, mock, labels[0]));
    }
  }
  return {
    a: { ...profileFigures(ta), first: firstA },
    b: { ...profileFigures(tb), first: firstB },
    ratios: ta.map((t, i) => tb[i]!.stream.msPerSavedChunk / t.stream.msPerSavedChunk),
    scriptRatios: PROFILE ? ta.map((t, i) => tb[i]!.stream.scriptMs! / t.stream.scriptMs!) : [],
  };
}

/** Main-thread ms per word streamed: constant when the work for a reply is linear in its length. */
const msPerWord = (s: StreamFigures) => s.mainThreadMs / s.words;

let turnsSoFar = 0;

/** Types into the composer, sends, and measures the meter's update and the streamed reply (of `words` words). */
async function turn(page: Page, cdp: CDPSession, mock: MockLlm, label: string, words = SIZES.replyWords): Promise<TurnFigures> {
  const tag = `t${++turnsSoFar}`;
  const reply = replyText(words, tag);
  // The reply waits a second, so the work Send causes is over before the stream is measured.
  mock.script([{ for: 'chat', chunks: chunksOf(reply), chunkDelayMs: CHUNK_DELAY_MS, delayMs: 1000 }], { replace: true });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.click();
  await page.evaluate(() => {
    const w = window as unknown as { __keys: number[]; __meter: { sentAt?: number; changedAt?: number } };
    w.__keys = [];
    w.__meter = {};
    const el = document.activeElement as HTMLElement;
    el.addEventListener(
      'keydown',
      (e) => {
        const t0 = e.timeStamp;
        if (e.key === 'Enter') {
          w.__meter.sentAt = t0;
          return;
        }
        // Key to next frame: the frame's callbacks ran, then a task queued from them runs after its paint.
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => w.__keys.push(performance.now() - t0);
          ch.port2.postMessage(0);
        });
      },
      { capture: true },
    );
    const meter = document.querySelector('[role="meter"][aria-label="Context"]')!;
    const before = meter.getAttribute('aria-valuenow');
    const mo = new MutationObserver(() => {
      if (w.__meter.sentAt !== undefined && meter.getAttribute('aria-valuenow') !== before) {
        w.__meter.changedAt = performance.now();
        mo.disconnect();
      }
    });
    mo.observe(meter, { attributes: true, attributeFilter: ['aria-valuenow'] });
  });
  const typed = `Benchmark prompt ${label} ` + 'abcdefghij klmnopq rstuvw xyz '.repeat(4);
  await page.keyboard.type(typed.slice(0, SIZES.typedChars), { delay: KEY_DELAY_MS });
  await page.waitForTimeout(300);
  check((await box.inputValue()) === typed.slice(0, SIZES.typedChars), `${label}: the composer holds what was typed`);
  const keys = await page.evaluate(() => (window as unknown as { __keys: number[] }).__keys);
  check(keys.length >= SIZES.typedChars - 1, `${label}: a frame followed each key (${keys.length} of ${SIZES.typedChars})`);

  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (window as unknown as { __meter: { changedAt?: number } }).__meter.changedAt !== undefined, null, { timeout: 60_000, polling: 100 });
  const meter = await page.evaluate(() => (window as unknown as { __meter: { sentAt: number; changedAt: number } }).__meter);

  // The stream starts when its first word is on screen.
  await page.waitForFunction((start) => document.querySelector('[role="log"]')?.textContent?.includes(start), `Streamwordalpha${tag}`, { timeout: 60_000, polling: 50 });
  const startAt = await page.evaluate(() => performance.now());
  if (PROFILE) {
    await page.context().browser()?.startTracing(page, { path: join(ROOT, 'bench-results', 'profiles', `stream-${tag}.trace.json`), categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  let profiledScriptMs: number | undefined;
  const m0 = await metrics(cdp);
  await page.waitForFunction(() => ![...document.querySelectorAll('button')].some((b) => b.getAttribute('aria-label') === 'Stop' || b.textContent?.trim() === 'Stop'), null, { timeout: 300_000, polling: 200 });
  const endAt = await page.evaluate(() => performance.now());
  const m1 = await metrics(cdp);
  if (PROFILE) {
    const { profile } = await cdp.send('Profiler.stop');
    await page.context().browser()?.stopTracing();
    mkdirSync(join(ROOT, 'bench-results', 'profiles'), { recursive: true });
    writeFileSync(join(ROOT, 'bench-results', 'profiles', `stream-${tag}.cpuprofile`), JSON.stringify(profile));
    profiledScriptMs = scriptMs(profile as CpuProfile);
  }
  const last = page.getByRole('article', { name: 'Assistant message' }).last();
  await last.getByText(`Streamwordomega${tag}`).waitFor({ timeout: 10_000 }).catch(() => undefined);
  check(((await last.textContent()) ?? '').includes(`Streamwordomega${tag}`), `${label}: the streamed reply is rendered whole`);
  const b = await bench(page);
  const during = b.long.filter((t) => t.start >= startAt && t.start <= endAt);
  const saves = b.puts.filter((t) => t >= startAt && t <= endAt).length;
  const mainThreadMs = ((m1.TaskDuration ?? 0) - (m0.TaskDuration ?? 0)) * 1000;
  check(saves > 0, `${label}: chunks of the reply were saved while it streamed`);
  return {
    keys,
    typing: stats(keys),
    meterAfterSendMs: meter.changedAt - meter.sentAt,
    stream: {
      words,
      longTasks: during.length,
      longTaskMs: during.reduce((a, t) => a + t.duration, 0),
      maxLongTaskMs: Math.max(0, ...during.map((t) => t.duration)),
      seconds: (endAt - startAt) / 1000,
      savedChunks: saves,
      mainThreadMs,
      msPerSavedChunk: saves ? mainThreadMs / saves : NaN,
      scriptMs: profiledScriptMs,
    },
  };
}

/** Reloads the app and times it to its shell and to the open session's first message. */
async function openTime(page: Page, withMessage: boolean): Promise<{ shellMs: number; firstMessageMs: number | null }> {
  await page.reload();
  await page.waitForFunction(
    (msg) => {
      const o = (window as unknown as { __bench?: Bench }).__bench?.open;
      return o?.shell !== undefined && (!msg || o.message !== undefined);
    },
    withMessage,
    { timeout: 120_000, polling: 100 },
  );
  const o = (await bench(page)).open;
  return { shellMs: o.shell!, firstMessageMs: o.message ?? null };
}

async function openSession(page: Page, title: string) {
  const search = page.getByRole('searchbox', { name: 'Search sessions' });
  await search.fill(title);
  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: new RegExp(title) }).first().click();
  await search.fill('');
  await page.getByRole('article').first().waitFor({ timeout: 60_000 });
}

/**
 * The ChatGPT export through the file input, on an empty app, in a browser of its own with a profile
 * on disk, as a user's is: Playwright's usual contexts are off the record, and Chromium keeps their
 * IndexedDB in the browser process's memory, which is neither the disk work nor the memory a user
 * gets. Figures: time from choosing the file to the list rendered; long tasks; CPU time of each kind
 * of process (less sensitive than time to other load on the machine); resident memory of the empty
 * app (the baseline) and the import's peak above it, per kind: renderer (the page and its workers:
 * the target's "page and workers") and the browser process (where IndexedDB writes).
 */
async function importFigures(baseURL: string, big: { path: string; bytes: number; conversations: number }) {
  const userDataDir = mkdtempSync(join(WORK, 'profile-'));
  const procs = new ChromiumProcesses(userDataDir);
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath(), args: CHROMIUM_ARGS, baseURL, viewport: VIEWPORT });
  try {
    const imp = await instrumented(context);
    await imp.page.goto('/');
    await imp.page.getByRole('button', { name: 'New session', exact: true }).waitFor();
    await imp.page.waitForTimeout(1000);
    const heap0 = (await metrics(imp.cdp)).JSHeapUsedSize ?? NaN;
    const workerHeaps = await WorkerHeaps.attach(imp.cdp);

    const workers0 = [...(await workerHeaps.sample()).values()].reduce((a, h) => ({ used: a.used + h.used, total: a.total + h.total }), { used: 0, total: 0 });
    const before = procs.sample();
    check(before.rss.browser > 0 && before.rss.renderer > 0, 'import: the browser and renderer processes were found in /proc');
    let heapPeak = heap0;
    let sampling = true;
    const heapSampler = (async () => {
      while (sampling) {
        const m = await metrics(imp.cdp).catch(() => ({}) as Record<string, number>);
        if (m.JSHeapUsedSize) heapPeak = Math.max(heapPeak, m.JSHeapUsedSize);
        await new Promise((res) => setTimeout(res, 250));
      }
    })();
    const rssSampler = samplePeaks(procs);
    const workerSampler = sampleWorkerPeaks(workerHeaps);
    if (PROFILE) {
      await imp.cdp.send('Profiler.enable');
      await imp.cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await imp.cdp.send('Profiler.start');
    }
    const importStart = await imp.page.evaluate(() => performance.now());
    const wallStart = Date.now();
    const memoryDumps = MEMORY_DUMP ? await startMemoryDumps(imp.cdp) : null;
    await importThroughInput(imp.page, big.path, big.conversations);
    const memory = memoryDumps ? await memoryDumps.stop() : null;
    await imp.page.getByRole('navigation', { name: 'Sessions' }).getByRole('button').first().waitFor({ timeout: 60_000 });
    const importEnd = await imp.page.evaluate(() => performance.now());
    const wallSeconds = (Date.now() - wallStart) / 1000;
    if (PROFILE) {
      const { profile } = await imp.cdp.send('Profiler.stop');
      mkdirSync(join(ROOT, 'bench-results', 'profiles'), { recursive: true });
      writeFileSync(join(ROOT, 'bench-results', 'profiles', 'import.cpuprofile'), JSON.stringify(profile));
    }
    const after = procs.sample();
    const loadAfter = loadavg()[0]!;

    sampling = false;
    await heapSampler;
    const peak = await rssSampler.stop();
    const workersPeak = await workerSampler.stop();
    const importLong = (await bench(imp.page)).long.filter((x) => x.start >= importStart && x.start <= importEnd);
    const importSeconds = (importEnd - importStart) / 1000;
    const cpu = Object.fromEntries(Object.entries(after.cpu).map(([k, v]) => [k, v - before.cpu[k as keyof typeof before.cpu]])) as typeof after.cpu;
    return {
      bytes: big.bytes,
      conversations: big.conversations,
      profile: 'on disk (a persistent Chromium profile)',
      seconds: importSeconds,
      wallSeconds,
      megabytesPerSecond: big.bytes / 1e6 / importSeconds,
      longTasks: importLong.length,
      maxLongTaskMs: Math.max(0, ...importLong.map((x) => x.duration)),
      /** Each long task: ms after the file was chosen, and its duration (the import ends at `seconds`). */
      longTaskTimes: importLong.map((x) => [Math.round(x.start - importStart), Math.round(x.duration)]),
      heapPeakAboveBase: heapPeak - heap0,
      /** The empty app's resident memory, before the import: renderer and browser process. */
      baseline: { renderer: before.rss.renderer, browser: before.rss.browser },
      /** Peak resident memory above that baseline during the import, per kind of process. */
      rssPeakAboveBase: peak.renderer - before.rss.renderer,
      browserRssPeakAboveBase: peak.browser - before.rss.browser,

      /** The renderer's peak above the baseline by what backs the memory: anonymous (heaps), file-backed, shared (IPC). */
      rendererPartsAboveBase: {
        anon: rssSampler.rendererPartsAtPeak().anon - before.rendererParts.anon,
        file: rssSampler.rendererPartsAtPeak().file - before.rendererParts.file,
        shmem: rssSampler.rendererPartsAtPeak().shmem - before.rendererParts.shmem,
      },
      /** The page's workers' V8 heaps (summed), peak above the empty app's: used (objects, garbage included) and total (held from the system). */
      workerHeapPeakAboveBase: { used: workersPeak.used - workers0.used, total: workersPeak.total - workers0.total },
      /** With --memory-dump: the renderer's memory by allocator, before the import and at its largest dump (bytes). */
      memoryParts: memory,
      /** CPU seconds spent during the import, per kind of process. */
      cpuSeconds: cpu,
      loadAverageAfter: loadAfter,
    };
  } finally {
    await context.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

type ImportFigures = Awaited<ReturnType<typeof importFigures>>;

function printImport(imported: ImportFigures) {
  const mb = (x: number) => `${fmt(x / 1e6, 0)} MB`;
  const ofFile = (x: number) => `${mb(x)} (${fmt(x / imported.bytes, 2)}× the file)`;
  const c = imported.cpuSeconds;
  console.log(`Import through the file input of a generated ChatGPT export (${fmt(imported.bytes / 1e6, 1)} MB, ${imported.conversations} conversations), to the list rendered; profile ${imported.profile}:\n`);
  table(
    ['figure', 'value'],
    [
      ['time (s)', fmt(imported.seconds, 2)],
      ['throughput (MB/s, goal ≥ 15)', fmt(imported.megabytesPerSecond, 1)],
      ['long tasks / longest (ms, goal none > 50)', `${imported.longTasks} / ${fmt(imported.maxLongTaskMs, 0)}`],
      ['CPU time (s): browser process (IndexedDB) / renderer (page + workers) / other', `${fmt(c.browser, 1)} / ${fmt(c.renderer, 1)} / ${fmt(c.gpu + c.utility + c.other, 1)}`],
      ['load average (1 min) at the end', fmt(imported.loadAverageAfter, 1)],
      ['empty app, resident: renderer / browser process', `${mb(imported.baseline.renderer)} / ${mb(imported.baseline.browser)}`],
      ['renderer RSS (page + workers), peak above the empty app (goal ≤ 1.5×)', ofFile(imported.rssPeakAboveBase)],
      [
        '…of which anonymous / file-backed / shared memory',
        `${mb(imported.rendererPartsAboveBase.anon)} / ${mb(imported.rendererPartsAboveBase.file)} / ${mb(imported.rendererPartsAboveBase.shmem)}`,
      ],
      ['browser process RSS, peak above the empty app', ofFile(imported.browserRssPeakAboveBase)],
      ['page JS heap, peak above before', ofFile(imported.heapPeakAboveBase)],
      ['workers\u2019 JS heaps, peak above before: used / held', `${ofFile(imported.workerHeapPeakAboveBase.used)} / ${ofFile(imported.workerHeapPeakAboveBase.total)}`],
    ],
  );
  const m = imported.memoryParts;
  if (m) {
    console.log(`\nThe renderer's memory by allocator (memory-infra, ${m.dumps} dumps; tracing slowed this import):\n`);
    table(
      ['part', 'before (MB)', 'at the largest dump (MB)', 'difference'],
      PART_LABELS.map((label) => [label, fmt((m.before[label] ?? 0) / 1e6, 1), fmt((m.peak[label] ?? 0) / 1e6, 1), ofFile((m.peak[label] ?? 0) - (m.before[label] ?? 0))]),
    );
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  console.log(`Browser benchmark${QUICK ? ' (quick)' : ''}: ${machineLine()}`);
  mkdirSync(WORK, { recursive: true });
  const lib = (await import(new URL('./lib.mjs', import.meta.url).href)) as { buildIfStale: () => Promise<number> };
  if ((await lib.buildIfStale()) !== 0) throw new Error('next build failed');

  const t = Date.now();
  const big = chatGptFile(SIZES.importBytes);
  if (IMPORT_ONLY) {
    console.log(`input generated in ${fmt((Date.now() - t) / 1000, 1)} s: a ChatGPT export of ${fmt(big.bytes / 1e6, 1)} MB (${big.conversations} conversations)\n`);
    const app = await startAppServer({ OLLAMA_BASE_URL: 'off' });
    try {
      const imported = await importFigures(app.url, big);
      printImport(imported);
      mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
      writeFileSync(join(ROOT, 'bench-results', 'browser-import.json'), JSON.stringify({ ...machine(), quick: QUICK, import: imported, failures }, null, 2));
    } finally {
      await app.stop();
    }
    if (failures.length) process.exit(1);
    return;
  }
  const smallFile = sessionFile(SIZES.small, 'Bench small session');
  const largeFile = sessionFile(SIZES.large, 'Bench large session');
  const archive = manySessionsArchive(SIZES.sessions);
  console.log(`inputs generated in ${fmt((Date.now() - t) / 1000, 1)} s: sessions of ${SIZES.small} and ${SIZES.large} entries, an archive of ${SIZES.sessions} sessions (${fmt(archive.length / 1e6, 1)} MB), a ChatGPT export of ${fmt(big.bytes / 1e6, 1)} MB (${big.conversations} conversations)\n`);

  let mock: MockLlm | null = null;
  let app: AppServer | null = null;
  let browser: Browser | null = null;
  try {
    mock = await startMockLlm({ port: 0, enforceContextWindow: false });
    app = await startAppServer({
      OPENAI_COMPATIBLE_BASE_URL: mock.baseUrl,
      OPENAI_COMPATIBLE_NAME: 'Scripted test model',
      OLLAMA_BASE_URL: 'off',
      DEFAULT_MODEL: 'compat:mock-large',
    });
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: CHROMIUM_ARGS,
    });

    // Empty app: the baseline for opening.
    const empty = await newContext(browser, app.url);
    await empty.page.goto('/');
    await empty.page.getByRole('button', { name: 'New session', exact: true }).waitFor();
    const openEmpty = await openTime(empty.page, false);
    await empty.context.close();

    // 1k entries, one session.
    const s = await newContext(browser, app.url);
    await s.page.goto('/');
    await importThroughInput(s.page, { name: 'small.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(smallFile) }, 1);
    await settle(s.page);

    // 10k entries, one session; then 5,000 sessions more with the same 10k session open.
    const l = await newContext(browser, app.url);
    await l.page.goto('/');
    // The import stores the session packed and opens it; its first count ends with its token caches
    // written, which unpacks it into rows (lib/db/packed.ts): the long tasks of that first open.
    if (PROFILE) {
      await l.cdp.send('Profiler.enable');
      await l.cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await l.cdp.send('Profiler.start');
    }
    // Timed from the file handed over: Playwright builds the File inside the page first, a long task of its own.
    let firstOpenStart = 0;
    await importThroughInput(l.page, { name: 'large.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(largeFile) }, 1, undefined, async () => {
      firstOpenStart = await l.page.evaluate(() => performance.now());
    });
    await settle(l.page);
    const firstOpenLong = (await bench(l.page)).long.filter((t) => t.start >= firstOpenStart).map((t) => Math.round(t.duration));
    if (PROFILE) {
      const { profile } = await l.cdp.send('Profiler.stop');
      mkdirSync(join(ROOT, 'bench-results', 'profiles'), { recursive: true });
      writeFileSync(join(ROOT, 'bench-results', 'profiles', 'first-open.cpuprofile'), JSON.stringify(profile));
    }
    const paired = await pairedTurns(s, l, mock, [`${SIZES.small} entries`, `${SIZES.large} entries`]);
    const turnSmall = paired.a;
    const turnLarge = paired.b;
    await s.context.close();
    // The same session, a reply twice as long: the work per word must not grow with the reply.
    const longReply = await turn(l.page, l.cdp, mock, `${SIZES.large} entries, ${2 * SIZES.replyWords}-word reply`, 2 * SIZES.replyWords);
    const openLarge = await openTime(l.page, true);
    await settle(l.page);
    await importThroughInput(l.page, { name: 'many.zip', mimeType: 'application/zip', buffer: Buffer.from(archive) }, SIZES.sessions);
    await openSession(l.page, 'Bench large session');
    await settle(l.page);
    const turnMany = await profileTurns(l.page, l.cdp, mock, `${SIZES.large} entries + ${SIZES.sessions} sessions`);
    const openMany = await openTime(l.page, true);
    await l.context.close();

    const imported = await importFigures(app.url, big);

    // -------------------------------------------------------------------------------------
    const cols = [`${SIZES.small} entries, 1 session`, `${SIZES.large} entries, 1 session`, `${SIZES.large} entries + ${SIZES.sessions} sessions`];
    const profiles = [turnSmall, turnLarge, turnMany];
    const perChunk1k = turnSmall.stream.msPerSavedChunk;
    const chunkRatio = stats(paired.ratios);
    const scriptRatio = PROFILE ? stats(paired.scriptRatios) : null;
    console.log(
      `Typing, Send and streamed replies (Chromium, production build, scripted model; medians over the turns: ${SIZES.pairs} per profile for ${SIZES.small} and ${SIZES.large} entries, alternated between their pages, ${SIZES.streams} with ${SIZES.sessions} sessions):\n`,
    );
    table(
      ['figure', ...cols],
      [
        ['typing: key → next frame, median (ms, goal ≤ 16)', ...profiles.map((x) => fmt(x.typing.median, 1))],
        ['typing: key → next frame, p95 (ms)', ...profiles.map((x) => fmt(x.typing.p95, 1))],
        ['meter updated after Send, median / max (ms, goal ≤ 50)', ...profiles.map((x) => `${fmt(x.meterAfterSendMs.median, 0)} / ${fmt(x.meterAfterSendMs.max, 0)}`)],
        [`long tasks while the ${SIZES.replyWords}-word replies stream (goal 0)`, ...profiles.map((x) => `${x.stream.streams} replies: ${x.stream.longTasks} (${fmt(x.stream.longTaskMs, 0)} ms)`)],
        ['…longest (ms)', ...profiles.map((x) => fmt(x.stream.maxLongTaskMs, 0))],
        ['…stream duration (s)', ...profiles.map((x) => fmt(x.stream.seconds, 1))],
        ['main-thread time while streaming (ms)', ...profiles.map((x) => fmt(x.stream.mainThreadMs, 0))],
        ['saved chunks (writes of the streaming entry)', ...profiles.map((x) => fmt(x.stream.savedChunks, 0))],
        ['main-thread ms per saved chunk', ...profiles.map((x) => fmt(x.stream.msPerSavedChunk, 1))],
        [`…this / ${SIZES.small} entries, medians`, ...profiles.map((x) => fmt(x.stream.msPerSavedChunk / perChunk1k, 2))],
        [
          `…${SIZES.large} / ${SIZES.small} entries per pair of turns streamed back to back, median (min–max; goal 0.90–1.10)`,
          '',
          `${fmt(chunkRatio.median, 2)} (${fmt(chunkRatio.min, 2)}–${fmt(chunkRatio.max, 2)})`,
          '',
        ],
        ...(scriptRatio
          ? [
              [
                `…JavaScript ms per turn in the CPU profile, ${SIZES.large} / ${SIZES.small} entries per pair, median (min–max)`,
                '',
                `${fmt(scriptRatio.median, 3)} (${fmt(scriptRatio.min, 3)}–${fmt(scriptRatio.max, 3)})`,
                '',
              ],
            ]
          : []),
        [
          'the fresh page’s first reply, before those: long tasks / main-thread ms per saved chunk',
          ...profiles.map((x) => (x.first ? `${x.first.stream.longTasks} (${fmt(x.first.stream.longTaskMs, 0)} ms) / ${fmt(x.first.stream.msPerSavedChunk, 1)}` : '– (same page as before)')),
        ],
      ],
    );
    const perWordShort = stats(turnLarge.turns.map((t) => msPerWord(t.stream))).median;
    const perWordLong = msPerWord(longReply.stream);
    console.log(`Reply length (${SIZES.large}-entry session): main-thread ms per word streamed\n`);
    table(
      ['reply', 'main-thread (ms)', 'ms per word', 'long tasks'],
      [
        [`${SIZES.replyWords} words (median of ${turnLarge.stream.streams})`, fmt(turnLarge.stream.mainThreadMs, 0), fmt(perWordShort, 2), String(turnLarge.stream.longTasks)],
        [`${2 * SIZES.replyWords} words`, fmt(longReply.stream.mainThreadMs, 0), fmt(perWordLong, 2), String(longReply.stream.longTasks)],
        [`ratio, ${2 * SIZES.replyWords} / ${SIZES.replyWords} (linear: 1.0, quadratic: 2.0)`, '', fmt(perWordLong / perWordShort, 2), ''],
      ],
    );
    console.log(
      `Importing the ${SIZES.large}-entry session, opening it and its first count (token caches written, the packed session unpacked): ${firstOpenLong.length} long tasks${firstOpenLong.length ? ` (${firstOpenLong.join(', ')} ms)` : ''}\n`,
    );
    console.log('Opening the app (reload → shell, → first message of the open session):\n');
    table(
      ['profile', 'shell (ms)', 'first message (ms)'],
      [
        ['empty app', fmt(openEmpty.shellMs, 0), '–'],
        [`${SIZES.large}-entry session`, fmt(openLarge.shellMs, 0), fmt(openLarge.firstMessageMs ?? NaN, 0)],
        [`${SIZES.large}-entry session + ${SIZES.sessions} sessions`, fmt(openMany.shellMs, 0), fmt(openMany.firstMessageMs ?? NaN, 0)],
      ],
    );
    printImport(imported);

    check(openLarge.firstMessageMs !== null && openMany.firstMessageMs !== null, 'the open session shows a message after a reload');
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(
      join(ROOT, 'bench-results', 'browser.json'),
      JSON.stringify(
        {
          ...machine(),
          quick: QUICK,
          sizes: SIZES,
          profiles: cols,
          turns: { small: turnSmall, large: turnLarge, many: turnMany, longReply },
          // Read back by scripts/bench.mjs for its summary, as printed above.
          perChunkRatio: chunkRatio,
          ...(scriptRatio ? { scriptRatio } : {}),
          perWord: { short: perWordShort, long: perWordLong },
          open: { empty: openEmpty, large: openLarge, many: openMany, firstOpenLongTasksMs: firstOpenLong },
          import: imported,
          failures,
        },
        null,
        2,
      ),
    );
  } finally {
    await browser?.close().catch(() => undefined);
    await app?.stop().catch(() => undefined);
    await mock?.close().catch(() => undefined);
  }
  if (failures.length) {
    console.error(`\n${failures.length} check(s) failed:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
