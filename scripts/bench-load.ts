/**
 * Load test of the route handlers: `npx tsx scripts/bench-load.ts`.
 *
 * The production build (rebuilt first when stale, scripts/lib.mjs) is served
 * by `next start` on a free loopback port, pointed at the scripted
 * OpenAI-compatible model (e2e/mock-llm, its own process on another free
 * port). Each round scripts one reply per request in the mock (100–300 o200k
 * tokens, streamed word by word with the mock's default 5 ms between words),
 * then fires every request at once: N streaming chats (POST /api/chat with a
 * context of several turns from a generated coding session, tool calls and
 * results included, some after a compaction summary) and N summaries (POST
 * /api/summarize with the app's summarizer prompt over a serialized window).
 *
 * Every stream is read to its end with lib/providers/uiStream.ts
 * readChatStream, as the app reads it, and checked: HTTP 200, a finish chunk
 * with finishReason "stop", no error chunk, and exactly the scripted text
 * (anything missing counts as dropped). The mock's request log must show each
 * request once, none abandoned, and no scripted reply left unused.
 *
 * Reports requests, wall time, throughput (requests/s and streamed o200k
 * tokens/s), time to first byte / first text / complete reply (p50, p95,
 * max), errors and drops. Writes bench-results/load.json. Both servers are
 * stopped at the end, also on failure, timeout or Ctrl-C.
 *
 * Options:
 *   --quick            one round of 10 chats + 10 summaries
 *   --rounds N         rounds (default 3)
 *   --concurrency N    chats and summaries per round, each (default 50)
 *   --no-build         serve the existing .next even when sources are newer
 *   --busy N           keep N extra processes spinning on the CPU during the rounds (default: one
 *                      per core, so the servers share the machine with work that never yields;
 *                      0 for an idle machine)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemblePrompt, initialInstructions, SUMMARIZER_SYSTEM, updateInstructions } from '@/lib/compaction/prompts';
import { serializeItems } from '@/lib/compaction/serialize';
import type { SummaryItem } from '@/lib/compaction/types';
import type { ChatRequest, SummarizeRequest } from '@/lib/providers/requests';
import { readChatStream } from '@/lib/providers/uiStream';
import type { ContextItem } from '@/lib/session/context';
import type { MessageEntry, SessionEntry, UserMessage } from '@/lib/session/types';
import { freePort } from '@/lib/testing/freePort';
import { generateSession, Rng } from '@/lib/testing/generate';
import { countText } from '@/lib/tokens/exact';
import { args, fmt, machine, machineLine, numArg, QUICK, stats, table } from './benchReport';

const ROUNDS = numArg('--rounds') ?? (QUICK ? 1 : 3);
const CONCURRENCY = numArg('--concurrency') ?? (QUICK ? 10 : 50);
const BUILD = !args.includes('--no-build');
const BUSY = numArg('--busy') ?? (QUICK ? 0 : availableParallelism());
const SEED = 20_261_123;
const MODEL = 'compat:mock-large';
const REQUEST_TIMEOUT_MS = 60_000;
/** The whole measured part (servers up to the last round), build excluded. */
const OVERALL_TIMEOUT_MS = (QUICK ? 3 : 10) * 60_000;
const SERVER_START_TIMEOUT_MS = 90_000;
const REPLY_TOKENS = { min: 100, max: 300 };
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}bench-results/load.json`;
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

// ------------------------------------------------------------------ helpers

const now = () => performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));




// ------------------------------------------------------------------ servers

const children: { name: string; proc: ChildProcess; group: boolean }[] = [];

/** Last lines a server printed, shown when something goes wrong. */
class LogTail {
  private lines: string[] = [];
  failedCalls = 0;
  push(text: string) {
    for (const l of text.split('\n')) {
      if (!l.trim()) continue;
      // The route handlers log one line per failed provider call ("[api/chat] compat:…: kind status").
      if (/^\[api\/(chat|summarize)\]/.test(l.trim())) this.failedCalls++;
      this.lines.push(l);
    }
    if (this.lines.length > 200) this.lines = this.lines.slice(-200);
  }
  tail(n = 40) {
    return this.lines.slice(-n).join('\n');
  }
}

function startChild(name: string, cmd: string, argv: string[], env: NodeJS.ProcessEnv, group: boolean): { proc: ChildProcess; log: LogTail } {
  // `next start` may spawn helpers: give it its own process group so stopping the group stops them all.
  const proc = spawn(cmd, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  const log = new LogTail();
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => log.push(d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => log.push(d));
  children.push({ name, proc, group });
  return { proc, log };
}

function signal(c: (typeof children)[number], sig: NodeJS.Signals) {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null || !c.proc.pid) return;
  try {
    if (c.group) process.kill(-c.proc.pid, sig);
    else c.proc.kill(sig);
  } catch {
    /* already gone */
  }
}

let stopping: Promise<void> | null = null;

/** Stops what this script started (by pid / own process group), politely first. */
function stopServers(): Promise<void> {
  stopping ??= (async () => {
    for (const c of children) signal(c, 'SIGTERM');
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && children.some((c) => c.proc.exitCode === null && c.proc.signalCode === null)) await sleep(100);
    for (const c of children) signal(c, 'SIGKILL');
  })();
  return stopping;
}

process.on('exit', () => {
  for (const c of children) signal(c, 'SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping the servers`);
    void stopServers().then(() => process.exit(130));
  });
}

/** Processes that only burn CPU, so the rounds run on a busy machine; stopped with the servers. */
function startSpinners(n: number): void {
  for (let i = 0; i < n; i++) startChild(`spinner ${i + 1}`, process.execPath, ['-e', 'for (;;) {}'], { ...process.env }, false);
}

async function startMock(): Promise<{ url: string; log: LogTail }> {
  const { proc, log } = startChild('mock LLM', process.execPath, ['--import', 'tsx', 'e2e/mock-llm/cli.ts', '--port', '0', '--host', '127.0.0.1'], { ...process.env }, false);
  // The CLI prints its URL on the first line.
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the mock LLM did not start within 30 s:\n${out}`)), 30_000);
    proc.stdout!.on('data', (d: string) => {
      out += d;
      const m = /^(http:\/\/[^\s]+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the mock LLM exited (${code}):\n${out}`));
    });
  });
  return { url, log };
}

async function startApp(mockUrl: string): Promise<{ url: string; log: LogTail; proc: ChildProcess }> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    NEXT_TELEMETRY_DISABLED: '1',
    OPENAI_COMPATIBLE_BASE_URL: `${mockUrl}/v1`,
    OPENAI_COMPATIBLE_NAME: 'bench',
    OLLAMA_BASE_URL: 'off',
    DEFAULT_MODEL: MODEL,
  };
  const { proc, log } = startChild('next start', process.execPath, [bin('next'), 'start', '-p', String(port), '-H', '127.0.0.1'], env, true);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`next start exited (${proc.exitCode ?? proc.signalCode}):\n${log.tail()}`);
    try {
      const res = await fetch(`${url}/api/models`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) {
        await res.text();
        return { url, log, proc };
      }
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`next start did not answer GET /api/models within ${SERVER_START_TIMEOUT_MS / 1000} s:\n${log.tail()}`);
    await sleep(250);
  }
}

async function control(mockUrl: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${mockUrl}/__control/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`mock control ${path}: HTTP ${res.status}`);
  return res.json();
}

// ------------------------------------------------------------------ workload

type Kind = 'chat' | 'summarize';

/** The body the app's client sends: the session's context items as they are (the route validates them). */
type ChatBody = Omit<ChatRequest, 'context'> & { context: ContextItem[] };

interface Job {
  kind: Kind;
  marker: string;
  body: ChatBody | SummarizeRequest;
  reply: string;
  bodyBytes: number;
  contextItems: number;
}

/**
 * Requests built from a generated coding-agent session, so contexts look like
 * the app's: user prompts, replies with markdown and code, tool calls and
 * their results. Replies are cut from the same session's replies to a token
 * count in [100, 300].
 */
class Workload {
  private readonly r = new Rng(SEED);
  private readonly entries: SessionEntry[];
  /** Indices of user prompts: turn boundaries. */
  private readonly turns: number[] = [];
  private readonly replies: string[] = [];
  private readonly sentences: string[] = [];

  constructor() {
    this.entries = generateSession({ seed: SEED, entries: 3_000, model: 'anthropic:claude-sonnet-4-5' }).entries;
    this.entries.forEach((e, i) => {
      if (e.type !== 'message') return;
      if (e.message.role === 'user') this.turns.push(i);
      if (e.message.role === 'assistant' && e.message.stopReason === 'stop') {
        for (const p of e.message.content) if (p.type === 'text') this.replies.push(p.text);
      }
    });
    for (const t of this.replies) for (const s of t.split(/(?<=[.?!])\s+/)) if (s.length > 30 && !s.includes('```')) this.sentences.push(s.replace(/\n+/g, ' '));
  }

  /** Grows the text with `more()` until it has `min` tokens, then drops words from the end until it has at most `max`. */
  private fit(text: string, min: number, max: number, more: () => string): string {
    let t = text;
    while (countText(t) < min) t += `\n\n${more()}`;
    if (countText(t) <= max) return t;
    const words = t.split(/(?<=\s)/);
    let lo = 1;
    let hi = words.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (countText(words.slice(0, mid).join('')) <= max) lo = mid;
      else hi = mid - 1;
    }
    return words.slice(0, lo).join('').trimEnd();
  }

  private target(): number {
    return this.r.int(REPLY_TOKENS.min, REPLY_TOKENS.max);
  }

  chatReply(): string {
    const n = this.target();
    return this.fit(this.r.pick(this.replies), n, n, () => this.r.pick(this.replies));
  }

  summaryReply(): string {
    const n = this.target();
    const sections = ['## Goal', '## Constraints & Preferences', '## Progress', '### Done', '### In Progress', '## Key Decisions', '## Next Steps', '## Critical Context'];
    let i = 0;
    const more = () => {
      const s = sections[i++ % sections.length]!;
      return `${s}\n${Array.from({ length: this.r.int(1, 3) }, () => `- ${this.r.pick(this.sentences)}`).join('\n')}`;
    };
    return this.fit(more(), n, n, more);
  }

  /** Messages of `turns` consecutive turns starting at a random one. */
  private window(turns: number): MessageEntry[] {
    const start = this.r.int(0, this.turns.length - turns - 2);
    const from = this.turns[start]!;
    const to = this.turns[start + turns]!;
    return this.entries.slice(from, to).filter((e): e is MessageEntry => e.type === 'message');
  }

  chat(marker: string): Job {
    const history = this.window(this.r.int(2, 8));
    const prompt = this.window(1).find((e) => e.message.role === 'user')!;
    const context: ContextItem[] = [];
    if (this.r.chance(0.4)) {
      const summary = this.summaryReply();
      context.push({ kind: 'compactionSummary', entryId: `sum-${marker}`, summary, tokensBefore: this.r.int(40_000, 180_000) });
    }
    for (const e of history) context.push({ kind: 'message', entryId: e.id, message: e.message });
    const ask = prompt.message as UserMessage;
    const text = ask.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    context.push({ kind: 'message', entryId: `${prompt.id}-${marker}`, message: { role: 'user', content: [{ type: 'text', text: `${text}\n\n${marker}` }] } });
    const body: ChatBody = { model: MODEL, system: 'You are a careful coding assistant working in the user’s repository.', context, maxOutputTokens: 4_096 };
    return { kind: 'chat', marker, body, reply: this.chatReply(), bodyBytes: Buffer.byteLength(JSON.stringify(body)), contextItems: context.length };
  }

  summarize(marker: string): Job {
    const items: SummaryItem[] = this.window(this.r.int(4, 12)).map((e) => ({ kind: 'message', entryId: e.id, message: e.message }));
    const previous = this.r.chance(0.3) ? this.summaryReply() : null;
    const transcript = `[Request ${marker}]\n\n${serializeItems(items, { toolResultMaxChars: 2_000 })}`;
    const prompt = assemblePrompt(previous, transcript, previous ? updateInstructions() : initialInstructions());
    const body: SummarizeRequest = { model: MODEL, summarizerModel: MODEL, system: SUMMARIZER_SYSTEM, prompt, maxOutputTokens: 4_096 };
    return { kind: 'summarize', marker, body, reply: this.summaryReply(), bodyBytes: Buffer.byteLength(JSON.stringify(body)), contextItems: items.length };
  }

  round(round: number, concurrency: number): Job[] {
    const jobs: Job[] = [];
    const id = (i: number) => String(i).padStart(3, '0');
    // Interleaved, so chats and summaries reach the server mixed.
    for (let i = 0; i < concurrency; i++) {
      jobs.push(this.chat(`[bench r${round} chat ${id(i)}]`));
      jobs.push(this.summarize(`[bench r${round} sum ${id(i)}]`));
    }
    return jobs;
  }
}

// ------------------------------------------------------------------ one request

interface Sample {
  kind: Kind;
  ok: boolean;
  /** HTTP error, error chunk, exception or timeout. */
  error?: string;
  /** The stream ended without its finish chunk, or with less text than was sent. */
  dropped?: string;
  status: number;
  ttfbMs: number;
  ttftMs: number;
  totalMs: number;
  chars: number;
  tokens: number;
}

async function fire(appUrl: string, job: Job): Promise<Sample> {
  const path = job.kind === 'chat' ? '/api/chat' : '/api/summarize';
  const t0 = now();
  let ttfb = NaN;
  let ttft = NaN;
  const sample = (extra: Partial<Sample>): Sample => ({ kind: job.kind, ok: false, status: 0, ttfbMs: ttfb, ttftMs: ttft, totalMs: now() - t0, chars: 0, tokens: 0, ...extra });
  try {
    const res = await fetch(`${appUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(job.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!res.ok || !res.body) return sample({ status: res.status, error: `HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}` });
    const firstByte = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        if (Number.isNaN(ttfb)) ttfb = now() - t0;
        ctl.enqueue(chunk);
      },
    });
    const out = await readChatStream(res.body.pipeThrough(firstByte), {
      onText: () => {
        if (Number.isNaN(ttft)) ttft = now() - t0;
      },
    });
    const totalMs = now() - t0;
    const base = { status: res.status, totalMs, chars: out.text.length, tokens: countText(out.text) };
    if (out.error) return sample({ ...base, error: `${out.error.kind}: ${out.error.message}` });
    if (out.aborted) return sample({ ...base, error: 'aborted' });
    if (!out.finished) return sample({ ...base, dropped: `no finish chunk after ${out.text.length} characters` });
    if (!out.text) return sample({ ...base, dropped: 'empty reply' });
    if (out.text !== job.reply) return sample({ ...base, dropped: `text differs from the scripted reply (${out.text.length} of ${job.reply.length} characters)` });
    if (out.metadata?.finishReason !== 'stop') return sample({ ...base, error: `finish reason ${out.metadata?.finishReason ?? 'missing'}` });
    return { kind: job.kind, ok: true, ttfbMs: ttfb, ttftMs: ttft, ...base };
  } catch (e) {
    const name = (e as { name?: string } | null)?.name;
    return sample({ error: name === 'TimeoutError' ? `no complete reply within ${REQUEST_TIMEOUT_MS / 1000} s` : `${name ?? 'Error'}: ${(e as Error).message}` });
  }
}

interface MockRecord {
  kind: 'chat' | 'summarizer' | 'other';
  aborted?: boolean;
  path: string;
}

async function runRound(appUrl: string, mockUrl: string, jobs: Job[]) {
  await control(mockUrl, 'reset', {});
  await control(mockUrl, 'script', { steps: jobs.map((j) => ({ match: j.marker, for: j.kind === 'chat' ? 'chat' : 'summarizer', reply: j.reply })), replace: true });
  const t0 = now();
  const samples = await Promise.all(jobs.map((j) => fire(appUrl, j)));
  const wallMs = now() - t0;
  const recorded = (await control(mockUrl, 'requests')) as MockRecord[];
  const health = (await control(mockUrl, 'health')) as { queued: number };
  const completions = recorded.filter((r) => r.path.endsWith('/chat/completions'));
  return {
    samples,
    wallMs,
    mock: {
      requests: completions.length,
      chat: completions.filter((r) => r.kind === 'chat').length,
      summarizer: completions.filter((r) => r.kind === 'summarizer').length,
      aborted: completions.filter((r) => r.aborted).length,
      unusedReplies: health.queued,
    },
  };
}

// ------------------------------------------------------------------ main

function summarise(samples: Sample[]) {
  const ok = samples.filter((s) => s.ok);
  return {
    requests: samples.length,
    ok: ok.length,
    errors: samples.filter((s) => s.error).length,
    dropped: samples.filter((s) => s.dropped).length,
    ttfbMs: stats(ok.map((s) => s.ttfbMs)),
    ttftMs: stats(ok.map((s) => s.ttftMs)),
    totalMs: stats(ok.map((s) => s.totalMs)),
    tokens: samples.reduce((n, s) => n + s.tokens, 0),
    chars: samples.reduce((n, s) => n + s.chars, 0),
  };
}

async function main() {
  const t0 = now();
  console.log(
    `Route load bench — ${ROUNDS} round(s) of ${CONCURRENCY} chats + ${CONCURRENCY} summaries at once, ${BUSY ? `${BUSY} CPU-bound processes running alongside` : 'no extra load'}, ${machineLine()}\n`,
  );

  let buildSeconds = 0;
  let built = false;
  if (BUILD) {
    // scripts/lib.mjs is plain JS (no types): import it by URL and say what we use.
    const lib = (await import(new URL('./lib.mjs', import.meta.url).href)) as { buildIsStale: () => boolean; buildIfStale: () => Promise<number> };
    built = lib.buildIsStale();
    const tb = now();
    const code = await lib.buildIfStale();
    buildSeconds = (now() - tb) / 1000;
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  } else if (!existsSync(join(ROOT, '.next', 'BUILD_ID'))) throw new Error('--no-build, but there is no build in .next');

  const workload = new Workload();
  const rounds = Array.from({ length: ROUNDS }, (_, r) => workload.round(r + 1, CONCURRENCY));
  const warmup = workload.round(0, 2);

  const overall = setTimeout(() => {
    console.error(`\nThe load bench did not finish within ${OVERALL_TIMEOUT_MS / 60_000} minutes; stopping.`);
    void stopServers().then(() => process.exit(1));
  }, OVERALL_TIMEOUT_MS);
  overall.unref();

  const ts = now();
  const mock = await startMock();
  const app = await startApp(mock.url);
  const startSeconds = (now() - ts) / 1000;
  console.log(`Servers up in ${fmt(startSeconds, 1)} s: app ${app.url} → mock ${mock.url}/v1${built ? ` (rebuilt in ${fmt(buildSeconds, 1)} s)` : ''}`);

  // Warm-up (not counted): the first requests load the route modules and fill the JIT.
  const w = await runRound(app.url, mock.url, warmup);
  const wBad = w.samples.filter((s) => !s.ok);
  console.log(`Warm-up: ${warmup.length} requests in ${fmt(w.wallMs / 1000, 2)} s${wBad.length ? `, ${wBad.length} failed: ${wBad[0]!.error ?? wBad[0]!.dropped}` : ''}\n`);

  // Busy from here: the measured rounds share the cores with processes that never yield.
  startSpinners(BUSY);
  if (BUSY) await sleep(1_000);
  const results = [];
  for (const [i, jobs] of rounds.entries()) {
    if (app.proc.exitCode !== null || app.proc.signalCode !== null) throw new Error(`next start died before round ${i + 1}:\n${app.log.tail()}`);
    results.push(await runRound(app.url, mock.url, jobs));
  }
  const all = results.flatMap((r) => r.samples);
  const wallMs = results.reduce((n, r) => n + r.wallMs, 0);
  const mockRequests = results.reduce((n, r) => n + r.mock.requests, 0);
  const mockAborted = results.reduce((n, r) => n + r.mock.aborted, 0);
  const unused = results.reduce((n, r) => n + r.mock.unusedReplies, 0);

  const perRound = results.map((r, i) => {
    const s = summarise(r.samples);
    return { round: i + 1, ...s, wallMs: r.wallMs, requestsPerSecond: s.requests / (r.wallMs / 1000), tokensPerSecond: s.tokens / (r.wallMs / 1000), mock: r.mock };
  });
  console.log(`1. Rounds (each fires ${CONCURRENCY} chats + ${CONCURRENCY} summaries at once; replies ${REPLY_TOKENS.min}–${REPLY_TOKENS.max} tokens, 5 ms between words)`);
  table(
    ['round', 'requests', 'wall s', 'req/s', 'tokens/s', 'first byte p50', 'p95', 'ok', 'errors', 'dropped', 'mock saw', 'mock aborted'],
    perRound.map((r) => [
      r.round,
      r.requests,
      fmt(r.wallMs / 1000, 2),
      fmt(r.requestsPerSecond, 1),
      fmt(r.tokensPerSecond, 0),
      fmt(r.ttfbMs.p50, 0),
      fmt(r.ttfbMs.p95, 0),
      r.ok,
      r.errors,
      r.dropped,
      r.mock.requests,
      r.mock.aborted,
    ]),
  );

  const total = summarise(all);
  // Round 1 carries the server's JIT warm-up under full concurrency; the later rounds show the steady state.
  const steady = results.length > 1 ? summarise(results.slice(1).flatMap((r) => r.samples)) : undefined;
  const byKind = { chat: summarise(all.filter((s) => s.kind === 'chat')), summarize: summarise(all.filter((s) => s.kind === 'summarize')) };
  const lat = (name: string, s: ReturnType<typeof summarise>) => [
    name,
    s.requests,
    fmt(s.ttfbMs.p50, 0),
    fmt(s.ttfbMs.p95, 0),
    fmt(s.ttfbMs.max, 0),
    fmt(s.ttftMs.p50, 0),
    fmt(s.ttftMs.p95, 0),
    fmt(s.totalMs.p50, 0),
    fmt(s.totalMs.p95, 0),
    fmt(s.totalMs.max, 0),
    Math.round(s.tokens / Math.max(1, s.requests)),
  ];
  console.log('2. Latency of the completed requests (ms; first byte = first body chunk of the UI stream, first text = first text delta)');
  table(
    ['requests', 'n', 'first byte p50', 'p95', 'max', 'first text p50', 'p95', 'total p50', 'p95', 'max', 'tokens/reply'],
    [lat('POST /api/chat', byKind.chat), lat('POST /api/summarize', byKind.summarize), lat('all', total), ...(steady ? [lat('all after round 1', steady)] : [])],
  );

  const requestsPerSecond = total.requests / (wallMs / 1000);
  const tokensPerSecond = total.tokens / (wallMs / 1000);
  console.log(
    `3. Total: ${total.requests} requests in ${fmt(wallMs / 1000, 2)} s of rounds → ${fmt(requestsPerSecond, 1)} requests/s, ${fmt(tokensPerSecond, 0)} streamed tokens/s (${total.tokens.toLocaleString()} o200k tokens, ${total.chars.toLocaleString()} characters)`,
  );
  console.log(
    `   errors: ${total.errors}, dropped: ${total.dropped}; the mock served ${mockRequests} completions (${mockAborted} abandoned), ${unused} scripted replies unused; server logged ${app.log.failedCalls} failed provider calls. Goal: zero errors, nothing dropped.`,
  );
  const bad = all.filter((s) => !s.ok);
  for (const s of bad.slice(0, 10)) console.log(`   ✗ ${s.kind}: ${s.error ?? s.dropped}`);
  if (bad.length > 10) console.log(`   … and ${bad.length - 10} more`);
  console.log();

  const avgBody = (kind: Kind) => {
    const js = rounds.flat().filter((j) => j.kind === kind);
    return { bodyBytes: Math.round(js.reduce((n, j) => n + j.bodyBytes, 0) / js.length), contextItems: js.reduce((n, j) => n + j.contextItems, 0) / js.length };
  };
  const result = {
    ...machine(),
    quick: QUICK,
    rounds: ROUNDS,
    busyProcesses: BUSY,
    concurrency: { chats: CONCURRENCY, summaries: CONCURRENCY },
    requestBodies: { chat: avgBody('chat'), summarize: avgBody('summarize') },
    build: { rebuilt: built, seconds: buildSeconds },
    serverStartSeconds: startSeconds,
    warmup: { requests: warmup.length, seconds: w.wallMs / 1000, failed: wBad.length },
    requests: total.requests,
    wallSeconds: wallMs / 1000,
    requestsPerSecond,
    tokensPerSecond,
    errors: total.errors,
    dropped: total.dropped,
    mock: { completions: mockRequests, aborted: mockAborted, unusedReplies: unused },
    serverFailedCalls: app.log.failedCalls,
    latency: { all: total, chat: byKind.chat, summarize: byKind.summarize, afterFirstRound: steady },
    perRound,
    failures: bad.slice(0, 50).map((s) => ({ kind: s.kind, error: s.error, dropped: s.dropped })),
    loadAverage: loadavg(),
    seconds: (now() - t0) / 1000,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(result, null, 2));
  console.log(`Wrote ${OUT.slice(ROOT.length)} (${fmt(result.seconds, 1)} s)`);

  const failed = total.errors + total.dropped + mockAborted + unused + (mockRequests === total.requests ? 0 : 1) + wBad.length;
  if (failed > 0) {
    console.error(`\nserver log (last lines):\n${app.log.tail()}`);
    throw new Error('the load test had errors or dropped replies');
  }
}

main()
  .then(async () => {
    await stopServers();
    process.exit(0);
  })
  .catch(async (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    await stopServers();
    process.exit(1);
  });
