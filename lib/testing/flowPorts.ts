// Global, not passed to Dexie as an option: Dexie's live queries only observe the global indexedDB.
import 'fake-indexeddb/auto';
import { AppDB } from '@/lib/db/db';
import { createStoredImportService } from '@/lib/db/importFile';
import { createSessionStore } from '@/lib/db/store';
import { dbSearchSource } from '@/lib/db/searchSource';
import { createSearchService } from '@/lib/search/service';
import type { ChatStreamResult, ChatTurnRequest, StreamHandlers } from '@/lib/chat/turn';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { createFormatsService } from '@/lib/formats/service';
import { AppFlows } from '@/lib/flows/app';
import { moveLeaf } from '@/lib/flows/branch';
import { importText } from '@/lib/formats';
import { readFixture, type FixtureName } from './fixtures';
import type { FlowPorts, ModelTransport, Notifier, StreamLocks, TextRequest, TokensPort } from '@/lib/flows/ports';
import { credentialsOf } from '@/lib/providers/browserProviders';
import { readServerConfig, type EnvLike } from '@/lib/providers/env';
import { listBrowserProvider } from '@/lib/providers/listing';
import type { SessionEnv } from '@/lib/flows/session';
import { createTokensService } from '@/lib/sessionTokens/service';
import type { ModelInfo } from '@/lib/providers/listing';
import type { CompactionSettings, Usage } from '@/lib/session/types';
import { scriptedModel } from './scriptedModel';
import { probeReport } from '@/lib/compaction/probes/report';

/**
 * The flows' ports for unit tests: the real store on a fresh fake-indexeddb,
 * the real token and formats services on this thread, a scripted chat
 * transport and an ai/test mock model for summaries, and recorders for what
 * the user would be told and what would be downloaded.
 */

export interface Notice {
  level: 'success' | 'info' | 'warning' | 'error';
  message: string;
  action?: { label: string; run: () => void };
}

/** One scripted reply of the chat transport. */
export interface ScriptedReply {
  text?: string;
  /** Characters per streamed delta (default: the whole text in one). */
  chunk?: number;
  /** Milliseconds between deltas. */
  delayMs?: number;
  usage?: Usage;
  finishReason?: string;
  error?: { kind: string; message: string; status?: number };
}

export interface ScriptedTransport extends ModelTransport {
  /** The chat requests received, in order. */
  chatRequests: ChatTurnRequest[];
  /** The summarizer prompts received, in order. */
  summaryPrompts: string[];
  /** The short-text requests (titles) received, in order. */
  textRequests: TextRequest[];
  script(...replies: ScriptedReply[]): void;
}

export interface ScriptedTransportOptions {
  /** The summarizer's answer to a prompt; `maxOutputTokens` is what the request allowed (a model that writes as long as it may). */
  summary?: (prompt: string, maxOutputTokens: number | undefined) => string;
  summaryDelayMs?: number;
  /**
   * What the model answers to a short-text request (a title), through an
   * ai/test mock model; throw to make the call fail. Without it the call
   * fails, as it does with no model behind it.
   */
  text?: (req: { system: string; prompt: string }) => string;
  /** The app server's environment for provider listings: they run the server's own listing code, over real HTTP. */
  serverEnv?: EnvLike;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function scriptedTransport(opts: ScriptedTransportOptions = {}): ScriptedTransport {
  const queue: ScriptedReply[] = [];
  const chatRequests: ChatTurnRequest[] = [];
  const summaryPrompts: string[] = [];
  const textRequests: TextRequest[] = [];
  const summaryText =
    opts.summary ??
    (() => '## Goal\nKeep the conversation going.\n\n## Progress\n- Scripted summary of the earlier messages.\n\n## Next Steps\n1. Continue.');
  return {
    chatRequests,
    summaryPrompts,
    textRequests,
    script: (...replies) => void queue.push(...replies),
    async completeText(req, signal) {
      textRequests.push(structuredClone(req));
      const answer = opts.text;
      if (!answer) throw new Error('No model answers short texts in this test.');
      // Asked first, so a test's failure reaches the caller as a rejection rather than through the SDK's error logging.
      const output = answer({ system: req.system, prompt: req.prompt });
      const { model } = scriptedModel(() => output);
      const summarizer = languageModelSummarizer(model, { modelName: req.model });
      const out = await summarizer.complete({ system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens, purpose: 'compaction' }, { signal });
      return out.text;
    },
    async listProvider(p) {
      const config = readServerConfig(opts.serverEnv ?? { OLLAMA_BASE_URL: 'off' });
      return listBrowserProvider({ provider: p.provider, ...credentialsOf(p) }, config, (input, init) => globalThis.fetch(input, init));
    },
    async streamChat(req: ChatTurnRequest, h: StreamHandlers): Promise<ChatStreamResult> {
      chatRequests.push(structuredClone(req));
      const reply = queue.shift() ?? { text: `Echo: ${chatRequests.length}` };
      const text = reply.text ?? '';
      const size = reply.chunk ?? Math.max(1, text.length);
      let full = '';
      for (let i = 0; i < text.length; i += size) {
        if (reply.delayMs) await sleep(reply.delayMs);
        if (h.signal.aborted) throw Object.assign(new Error('Aborted'), { name: 'AbortError' });
        full += text.slice(i, i + size);
        h.onText(full);
      }
      return { text: full, ...(reply.usage ? { usage: reply.usage } : {}), finishReason: reply.finishReason ?? 'stop', ...(reply.error ? { error: reply.error } : {}) };
    },
    summarizer(summarizerModel) {
      const { model } = scriptedModel(
        ({ prompt, maxOutputTokens }) => {
          summaryPrompts.push(prompt);
          return summaryText(prompt, maxOutputTokens);
        },
        { chunkDelayInMs: opts.summaryDelayMs ?? 0, deltaChars: 40 },
      );
      return languageModelSummarizer(model, { modelName: summarizerModel });
    },
  };
}

/** Web Locks in memory: a test holds or releases them by hand to play another tab. */
export function memoryLocks(): StreamLocks & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    async hold(id) {
      held.add(id);
      return () => held.delete(id);
    },
    async isHeld(id) {
      return held.has(id);
    },
  };
}

/** The token service as the worker would expose it: every call answers with a promise. */
export function asyncTokens(): TokensPort {
  const service = createTokensService() as unknown as Record<string, (...a: unknown[]) => unknown>;
  return new Proxy({} as TokensPort, { get: (_t, method: string) => async (...args: unknown[]) => structuredClone(await service[method]!(...args)) });
}

export interface TestPorts extends FlowPorts {
  db: AppDB;
  transport: ScriptedTransport;
  locks: StreamLocks & { held: Set<string> };
  notices: Notice[];
  saved: { name: string; data: string | Uint8Array; mime: string }[];
}

let dbCount = 0;

export function testPorts(opts: { transport?: ScriptedTransport } = {}): TestPorts {
  const db = new AppDB(`flows-test-${++dbCount}-${Math.random().toString(36).slice(2)}`);
  const notices: Notice[] = [];
  const record =
    (level: Notice['level']): Notifier['info'] =>
    (message, o) =>
      void notices.push({ level, message, ...(o?.action ? { action: o.action } : {}) });
  const saved: TestPorts['saved'] = [];
  const formats = createFormatsService();
  const storedImports = createStoredImportService(db);
  return {
    db,
    store: createSessionStore(db),
    tokens: asyncTokens(),
    formats: {
      importFileToStore: (file, name, o, onProgress) => storedImports.importFileToStore(file, name, o, onProgress),
      cancelImport: (importId) => storedImports.cancelImport(importId),
      exportSession: async (snap, kind) => formats.exportSession(snap, kind),
      exportAll: async (snaps) => formats.exportAll(snaps),
    },
    search: createSearchService(dbSearchSource(db)),
    transport: opts.transport ?? scriptedTransport(),
    locks: memoryLocks(),
    notify: { success: (m) => record('success')(m), info: record('info'), warning: record('warning'), error: (m) => record('error')(m) },
    saveFile: (name, data, mime) => void saved.push({ name, data, mime }),
    quota: { estimate: async () => ({ usage: 1_000, quota: 1_000_000 }), persisted: async () => true, persist: async () => true },
    probes: { report: async (span, summary) => probeReport(structuredClone(span), summary) },
    notices,
    saved,
  };
}

/** A model as /api/models would list it. */
export function testModel(id: string, contextWindow: number, maxOutputTokens?: number): ModelInfo {
  const [provider, name] = id.split(':') as [ModelInfo['provider'], string];
  return { id, provider, name, contextWindow, contextWindowSource: 'catalog', ...(maxOutputTokens ? { maxOutputTokens } : {}) };
}

/** Resolves once `check` holds, polling: for what happens behind a watcher (another tab's write arriving). */
export async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting for a condition');
    await sleep(10);
  }
}

/** Opens a session's flows as the session view does: subscribed to its live tree, loaded, with models and settings set. */
export async function openSession(flows: AppFlows, id: string, env: SessionEnv) {
  const s = flows.session(id);
  s.setEnv(env);
  const unsubscribe = s.live.subscribe(() => {});
  await until(() => s.live.getSnapshot().status !== 'loading');
  return Object.assign(s, { close: unsubscribe });
}

/**
 * A real agent transcript imported and opened with a 1M-token model. A fixture that holds compactions of its own
 * (pi) is moved to just before the first one, where its whole raw history is in context; moved as the Tree does
 * (stored too), since a leaf set only in this tab would be carried to the stored leaf by the catch-up of the
 * import's own write when that arrives late.
 */
export async function openRawAgentSession(fixture: FixtureName, settings: CompactionSettings) {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture(fixture), { fileName: fixture });
  const { imported } = await ports.store.importSnapshots([sessions[0]!]);
  const id = imported[0]!.id;
  const model = testModel('anthropic:claude-sonnet-4-5', 1_000_000, 64_000);
  const s = await openSession(flows, id, { chatModel: model, summarizer: model, settings });
  const first = s.live.getSnapshot();
  const path = first.tree.pathTo(first.leafId);
  const own = path.findIndex((e) => e.type === 'compaction');
  if (own > 0) await moveLeaf(s, path[own - 1]!.id);
  return { ports, flows, s, id, snapshot: sessions[0]! };
}
