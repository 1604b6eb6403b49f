import type { ContextItem } from '@/lib/session/context';
import type { AssistantMessage, EntryId, NewEntry, SessionEntry, StopReason, Usage } from '@/lib/session/types';

/** A provider failure as the server classified it (see lib/providers/errors.ts). */
export interface TurnError {
  kind: string;
  message: string;
  status?: number;
}

export interface ChatTurnRequest {
  model: string;
  system?: string;
  context: ContextItem[];
  temperature?: number;
  maxOutputTokens?: number;
}

export interface ChatStreamResult {
  text: string;
  reasoning?: string;
  usage?: Usage;
  finishReason?: string;
  error?: TurnError;
}

export interface StreamHandlers {
  signal: AbortSignal;
  onText: (full: string) => void;
  onReasoning?: (full: string) => void;
}

/**
 * What a turn needs from the outside world. The network, the database and the
 * browser's locks are injected so the turn logic is plain code that unit tests
 * drive with in-memory fakes and scripted streams.
 */
export interface TurnDeps {
  append: (parentId: EntryId | null, entries: NewEntry[]) => Promise<SessionEntry[]>;
  update: (entryId: EntryId, fn: (e: SessionEntry) => SessionEntry) => Promise<unknown>;
  streamChat: (req: ChatTurnRequest, handlers: StreamHandlers) => Promise<ChatStreamResult>;
  /** Marks the entry as being written by this tab until the returned release is called. */
  lock?: (entryId: EntryId) => Promise<() => void>;
  /** Streamed text reaches the database at most this often (default 400 ms). */
  persistIntervalMs?: number;
  onProgress?: (p: { entryId: EntryId | null; text: string; reasoning: string }) => void;
}

export type TurnOutcome =
  | { kind: 'done'; entry: SessionEntry }
  | { kind: 'aborted'; entry: SessionEntry | null }
  | { kind: 'error'; error: TurnError; entry: SessionEntry | null }
  /** The provider said the context is too long, before any text: nothing was written. */
  | { kind: 'overflow'; error: TurnError };

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof Error && err.name === 'AbortError');
}

function assistantContent(text: string, reasoning: string): AssistantMessage['content'] {
  const content: AssistantMessage['content'] = [];
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning });
  if (text) content.push({ type: 'text', text });
  return content;
}

function stopReasonFor(finish: string | undefined): StopReason {
  if (finish === 'length') return 'length';
  return 'stop';
}

/**
 * Streams one assistant reply under `parentId` and persists it as it arrives.
 *
 * The assistant entry is created at the first streamed text, not before: a
 * request the provider rejects outright (auth, overflow) leaves no empty reply
 * behind, and an overflow can be recovered by compacting and retrying without
 * an orphan sibling. Once text exists it is written at most every
 * `persistIntervalMs`, so closing the tab loses at most that much.
 */
export async function runAssistantTurn(
  args: { parentId: EntryId; request: ChatTurnRequest; signal: AbortSignal },
  deps: TurnDeps,
): Promise<TurnOutcome> {
  const { parentId, request, signal } = args;
  const interval = deps.persistIntervalMs ?? 400;
  let text = '';
  let reasoning = '';
  let entry: SessionEntry | null = null;
  // Held in an object because closures assign them: TypeScript's narrowing would otherwise think they stay null.
  const pending: { creating: Promise<SessionEntry> | null; release: (() => void) | null } = { creating: null, release: null };
  let timer: ReturnType<typeof setTimeout> | null = null;
  let writing: Promise<unknown> = Promise.resolve();
  let dirty = false;
  // Set when the stream ended: from then on only the final write may touch the entry. Without it, a timer
  // armed by a late `ensureEntry().then` (the stream outran the append) wrote "streaming" over the finished reply.
  let finished = false;

  const streamingMessage = (): AssistantMessage => ({
    role: 'assistant',
    content: assistantContent(text, reasoning),
    model: request.model,
    status: 'streaming',
  });

  const ensureEntry = (): Promise<SessionEntry> => {
    if (!pending.creating) {
      pending.creating = deps.append(parentId, [{ type: 'message', message: streamingMessage() }]).then(async ([e]) => {
        entry = e!;
        if (deps.lock) pending.release = await deps.lock(entry.id);
        return entry;
      });
    }
    return pending.creating;
  };

  const flush = () => {
    timer = null;
    if (finished || !entry || !dirty) return;
    dirty = false;
    const message = streamingMessage();
    const id = entry.id;
    writing = writing.then(() => deps.update(id, (e) => (e.type === 'message' ? { ...e, message } : e))).catch(() => {
      // A failed intermediate write is superseded by the final one; the final write reports errors.
    });
  };

  const schedule = () => {
    dirty = true;
    deps.onProgress?.({ entryId: entry?.id ?? null, text, reasoning });
    ensureEntry().then(
      () => {
        if (!finished && !timer) timer = setTimeout(flush, interval);
      },
      () => {
        // A failed creation is reported once, by the final write that awaits the same promise.
      },
    );
  };

  let result: ChatStreamResult | null = null;
  let thrown: unknown = null;
  try {
    result = await deps.streamChat(request, {
      signal,
      onText: (full) => {
        text = full;
        schedule();
      },
      onReasoning: (full) => {
        reasoning = full;
        schedule();
      },
    });
    if (result.text) text = result.text;
    if (result.reasoning) reasoning = result.reasoning;
  } catch (err) {
    thrown = err;
  }
  finished = true;
  if (timer) clearTimeout(timer);
  timer = null;

  try {
    const aborted = thrown !== null && isAbort(thrown, signal);
    const error: TurnError | undefined =
      result?.error ?? (thrown && !aborted ? { kind: 'network', message: thrown instanceof Error ? thrown.message : String(thrown) } : undefined);

    if (!text && !reasoning && error?.kind === 'context_overflow') return { kind: 'overflow', error };
    if (!text && !reasoning && aborted && !pending.creating) return { kind: 'aborted', entry: null };

    const final: AssistantMessage = {
      role: 'assistant',
      content: assistantContent(text, reasoning),
      model: request.model,
      status: 'complete',
      stopReason: aborted ? 'aborted' : error ? 'error' : stopReasonFor(result?.finishReason),
      ...(result?.usage ? { usage: result.usage } : {}),
      ...(error ? { errorMessage: error.message } : {}),
    };
    if (pending.creating) {
      const e = await pending.creating;
      // After `finished` no new intermediate write can start; the one in flight (if any) lands before ours.
      await writing;
      await deps.update(e.id, (cur) => (cur.type === 'message' ? { ...cur, message: final } : cur));
      entry = { ...e, message: final } as SessionEntry;
    } else {
      [entry] = (await deps.append(parentId, [{ type: 'message', message: final }])) as [SessionEntry];
    }
    deps.onProgress?.({ entryId: entry.id, text, reasoning });
    if (aborted) return { kind: 'aborted', entry };
    if (error) return { kind: 'error', error, entry };
    return { kind: 'done', entry };
  } finally {
    pending.release?.();
  }
}
