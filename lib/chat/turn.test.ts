import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '@/lib/testing/memoryStore';
import type { AssistantMessage, SessionEntry } from '@/lib/session/types';
import { runAssistantTurn, type ChatStreamResult, type StreamHandlers, type TurnDeps } from './turn';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A scripted stream: emits the words with a delay, then returns the result or throws. */
function scripted(words: string[], end: Partial<ChatStreamResult> & { throwAfter?: Error } = {}, delay = 5) {
  return async (_req: unknown, h: StreamHandlers): Promise<ChatStreamResult> => {
    let full = '';
    for (const w of words) {
      if (h.signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      await sleep(delay);
      full += w;
      h.onText(full);
    }
    if (end.throwAfter) throw end.throwAfter;
    return { text: full, ...end };
  };
}

function assistant(e: SessionEntry | null | undefined): AssistantMessage {
  if (!e || e.type !== 'message' || e.message.role !== 'assistant') throw new Error('not an assistant entry');
  return e.message;
}

async function setup(stream: TurnDeps['streamChat'], persistIntervalMs = 10) {
  const store = new MemoryStore();
  const [user] = await store.append(null, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }]);
  const deps: TurnDeps = { append: store.append, update: store.update, streamChat: stream, persistIntervalMs };
  return { store, user: user!, deps };
}

const request = { model: 'compat:mock', context: [] };

describe('runAssistantTurn', () => {
  it('streams, persists partial text along the way, and finishes with usage', async () => {
    const words = Array.from({ length: 20 }, (_, i) => `w${i} `);
    const { store, user, deps } = await setup(scripted(words, { usage: { input: 12, output: 20 }, finishReason: 'stop' }));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    expect(out.kind).toBe('done');
    const msg = assistant(store.get((out as { entry: SessionEntry }).entry.id));
    expect(msg.content).toEqual([{ type: 'text', text: words.join('') }]);
    expect(msg.usage).toEqual({ input: 12, output: 20 });
    expect(msg.status).toBe('complete');
    expect(msg.stopReason).toBe('stop');
    // Intermediate writes happened while streaming, each a prefix of the final text and marked streaming.
    const partials = store.writes.filter((w) => w.op === 'update' && assistant(w.snapshot).status === 'streaming');
    expect(partials.length).toBeGreaterThan(0);
    for (const w of partials) expect(words.join('')).toContain((assistant(w.snapshot).content[0] as { text: string }).text);
  });

  it('keeps the partial reply on stop, marked aborted', async () => {
    const ctrl = new AbortController();
    const { store, user, deps } = await setup(scripted(Array.from({ length: 50 }, () => 'x'), {}, 5));
    setTimeout(() => ctrl.abort(), 60);
    const out = await runAssistantTurn({ parentId: user.id, request, signal: ctrl.signal }, deps);
    expect(out.kind).toBe('aborted');
    const msg = assistant(store.get((out as { entry: SessionEntry }).entry.id));
    expect(msg.stopReason).toBe('aborted');
    const text = (msg.content[0] as { text: string }).text;
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(50);
  });

  it('writes nothing when aborted before the first token', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const { store, user, deps } = await setup(scripted(['never']));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: ctrl.signal }, deps);
    expect(out).toEqual({ kind: 'aborted', entry: null });
    expect(store.entries).toHaveLength(1);
  });

  it('reports a provider error with a persisted error reply and keeps the user message', async () => {
    const { store, user, deps } = await setup(scripted([], { error: { kind: 'auth', status: 401, message: 'The API key was rejected (401).' } }));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    expect(out.kind).toBe('error');
    expect(store.get(user.id)).toBeDefined();
    const msg = assistant((out as { entry: SessionEntry }).entry);
    expect(msg.stopReason).toBe('error');
    expect(msg.errorMessage).toMatch(/401/);
    expect(msg.content).toEqual([]);
  });

  it('keeps what arrived when the stream breaks midway', async () => {
    const { store, deps, user } = await setup(scripted(['Hello ', 'wor'], { error: { kind: 'network', message: 'The connection dropped mid-reply.' } }));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    expect(out.kind).toBe('error');
    const msg = assistant(store.get((out as { entry: SessionEntry }).entry!.id));
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello wor' }]);
    expect(msg.stopReason).toBe('error');
  });

  it('returns overflow without writing anything so the caller can compact and retry', async () => {
    const { store, user, deps } = await setup(scripted([], { error: { kind: 'context_overflow', status: 400, message: 'too long' } }));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    expect(out.kind).toBe('overflow');
    expect(store.entries).toHaveLength(1);
  });

  it('treats a thrown network failure as an error, not a crash', async () => {
    const { deps, user } = await setup(scripted(['par'], { throwAfter: new TypeError('Failed to fetch') }));
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    expect(out.kind).toBe('error');
    expect((out as { error: { message: string } }).error.message).toBe('Failed to fetch');
  });

  it('holds the stream lock while writing and releases it at the end', async () => {
    const events: string[] = [];
    const { deps, user } = await setup(scripted(['a', 'b']));
    deps.lock = async (id) => {
      events.push(`lock:${id}`);
      return () => events.push(`release:${id}`);
    };
    const out = await runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps);
    const id = (out as { entry: SessionEntry }).entry.id;
    expect(events).toEqual([`lock:${id}`, `release:${id}`]);
  });
});

/**
 * IndexedDB's append takes longer than a fast stream: the whole reply can
 * arrive before its entry exists. Whatever the order, the last write must be
 * the finished reply, not a throttled streaming snapshot landing after it.
 */
describe('runAssistantTurn: the final write is the last write', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A MemoryStore whose append resolves only after `appendDelayMs` (fake timers drive it). */
  async function slowStore(appendDelayMs: number) {
    const store = new MemoryStore();
    const [user] = await store.append(null, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }]);
    const append: TurnDeps['append'] = async (parentId, entries) => {
      await new Promise((r) => setTimeout(r, appendDelayMs));
      return store.append(parentId, entries);
    };
    return { store, user: user!, append };
  }

  /** Runs the turn to its end, then lets every timer that could still fire fire. */
  async function settle(turn: Promise<unknown>, interval: number) {
    let done = false;
    void turn.then(() => (done = true));
    while (!done) await vi.advanceTimersByTimeAsync(interval);
    for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(interval * 2);
    return turn;
  }

  function storedReply(store: MemoryStore): AssistantMessage {
    const replies = store.entries.filter((e) => e.type === 'message' && e.message.role === 'assistant');
    expect(replies).toHaveLength(1);
    return assistant(replies[0]);
  }

  it('an instant reply (every chunk at once) ends complete, with its usage', async () => {
    vi.useFakeTimers();
    const interval = 400;
    const { store, user, append } = await slowStore(30);
    const words = ['Short ', 'and ', 'instant.'];
    // No delay between chunks: the stream is over before the entry exists.
    const streamChat: TurnDeps['streamChat'] = async (_req, h) => {
      let full = '';
      for (const w of words) h.onText((full += w));
      return { text: full, usage: { input: 9, output: 3 }, finishReason: 'stop' };
    };
    const deps: TurnDeps = { append, update: store.update, streamChat, persistIntervalMs: interval };
    const out = await settle(runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps), interval);
    expect((out as { kind: string }).kind).toBe('done');
    const msg = storedReply(store);
    expect(msg.status).toBe('complete');
    expect(msg.stopReason).toBe('stop');
    expect(msg.usage).toEqual({ input: 9, output: 3 });
    expect(msg.content).toEqual([{ type: 'text', text: words.join('') }]);
    expect(assistant(store.writes.at(-1)!.snapshot).status).toBe('complete');
  });

  it('a reply cut off at the output limit that ends while its entry is still being created keeps "length"', async () => {
    vi.useFakeTimers();
    const interval = 400;
    const { store, user, append } = await slowStore(120);
    const streamChat: TurnDeps['streamChat'] = async (_req, h) => {
      let full = '';
      for (const w of ['The ', 'answer ', 'is ']) {
        await new Promise((r) => setTimeout(r, 10));
        h.onText((full += w));
      }
      // The usage frame comes a little later, still before the append resolves.
      await new Promise((r) => setTimeout(r, 20));
      return { text: full, usage: { input: 40, output: 3 }, finishReason: 'length' };
    };
    const deps: TurnDeps = { append, update: store.update, streamChat, persistIntervalMs: interval };
    const out = await settle(runAssistantTurn({ parentId: user.id, request, signal: new AbortController().signal }, deps), interval);
    expect((out as { kind: string }).kind).toBe('done');
    const msg = storedReply(store);
    expect(msg.status).toBe('complete');
    expect(msg.stopReason).toBe('length');
    expect(msg.usage).toEqual({ input: 40, output: 3 });
    expect(assistant(store.writes.at(-1)!.snapshot).stopReason).toBe('length');
  });
});
