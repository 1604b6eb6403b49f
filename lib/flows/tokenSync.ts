import type { ContextFigure } from '@/lib/tokens/pathIndex';
import type { PathUpdate } from '@/lib/sessionTokens/service';
import type { SessionEntry } from '@/lib/session/types';
import type { SessionStore, TokensPort } from './ports';

export interface TokenSyncOptions {
  model: string;
  contextWindow?: number;
  systemPrompt?: string;
}

/**
 * What about an entry can change its token count: a reply growing or
 * finishing, usage arriving. Entries come back from IndexedDB as new objects
 * after every write (a token cache being stored, say), so identity alone would
 * make every write look like a change and recount forever.
 */
function signature(e: SessionEntry): string {
  let sig = signatures.get(e);
  if (sig === undefined) signatures.set(e, (sig = computeSignature(e)));
  return sig;
}

/**
 * Per entry object: an unchanged entry keeps its object between updates of the path, so a saved chunk of a
 * streaming reply computes the signature of that one reply, not of all 10,000 entries before it.
 */
const signatures = new WeakMap<SessionEntry, string>();

function computeSignature(e: SessionEntry): string {
  if (e.type === 'message') {
    const m = e.message;
    let chars = 0;
    // A tool call's arguments can grow in place while a reply streams; its size is what its count follows.
    for (const p of m.content) chars += p.type === 'text' ? p.text.length : p.type === 'thinking' ? p.thinking.length : p.type === 'toolCall' ? p.name.length + JSON.stringify(p.arguments).length : 0;
    const usage = m.role === 'assistant' && m.usage ? `${m.usage.input}/${m.usage.output}` : '';
    const status = m.role === 'assistant' ? `${m.status}/${m.stopReason}` : '';
    return `${m.content.length}|${chars}|${usage}|${status}`;
  }
  if (e.type === 'compaction' || e.type === 'branch_summary') return String(e.summary.length);
  return e.type;
}

/**
 * Keeps the token worker's copy of a session's active path in step with the
 * UI, sending only what changed (appends, updated replies, or the new tail
 * after a leaf switch), and persists what the worker computed: token caches
 * (so nothing is counted twice) and calibrations (so they survive reloads).
 * Calls are chained, so the worker sees changes in order.
 */
export class TokenSync {
  private path: SessionEntry[] = [];
  private opts: TokenSyncOptions | null = null;
  private chain: Promise<void> = Promise.resolve();
  private listeners = new Set<(f: ContextFigure | null) => void>();
  figure: ContextFigure | null = null;
  /** The last figure the worker computed; a preview shows on top of it until the next one arrives. */
  private counted: ContextFigure | null = null;

  constructor(
    readonly sessionId: string,
    private readonly tokens: TokensPort,
    private readonly store: Pick<SessionStore, 'getCalibration' | 'setCalibration' | 'setEntryTokens'>,
  ) {}

  onFigure(fn: (f: ContextFigure | null) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Shows a message that is about to be stored, already counted, in the figure: the meter moves
   * when Send is pressed instead of after the write, the re-render and the worker's recount (which
   * then publish the counted figure). Approximate by nature: the count is the text's alone.
   */
  preview(extraTokens: number): void {
    if (!this.counted || extraTokens <= 0) return;
    this.publish({ ...this.counted, tokens: this.counted.tokens + extraTokens, approximate: true }, false);
  }

  /** Back to the counted figure: the previewed message was not stored. */
  dropPreview(): void {
    if (this.figure !== this.counted) this.publish(this.counted);
  }

  /** Resolves once every queued change reached the worker. */
  flush(): Promise<void> {
    return this.chain;
  }

  sync(path: SessionEntry[], opts: TokenSyncOptions | null): Promise<void> {
    this.chain = this.chain.then(() => this.apply(path, opts)).catch((err: unknown) => {
      // The meter is advisory: a failed count must not break chatting. The next change reloads.
      console.warn('token sync failed', err);
      this.opts = null;
    });
    return this.chain;
  }

  /**
   * Brings the worker to `path` and runs `fn` before any later sync can move
   * it elsewhere: a compaction prepared for one path must not be prepared on
   * the path the view switched to meanwhile (another tab's message arriving).
   * Unlike `sync`, failures reach the caller.
   */
  pinned<T>(path: SessionEntry[], opts: TokenSyncOptions, fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      try {
        await this.apply(path, opts);
      } catch (err) {
        this.opts = null; // the next change reloads the worker's copy
        throw err;
      }
      return fn();
    });
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async apply(path: SessionEntry[], opts: TokenSyncOptions | null) {
    const client = this.tokens;
    if (!opts) {
      this.opts = null;
      return this.publish(null);
    }
    const prev = this.opts;
    if (!prev || prev.systemPrompt !== opts.systemPrompt) {
      const calibration = await this.store.getCalibration(opts.model).catch(() => undefined);
      await this.handle(await client.loadPath(this.sessionId, path, { ...opts, calibration }), opts.model);
    } else {
      if (prev.model !== opts.model || prev.contextWindow !== opts.contextWindow) {
        const calibration = await this.store.getCalibration(opts.model).catch(() => undefined);
        await this.handle(await client.setOptions(this.sessionId, { model: opts.model, contextWindow: opts.contextWindow, calibration }), opts.model);
      }
      // First position where the paths hold different entries.
      let k = 0;
      const n = Math.min(path.length, this.path.length);
      while (k < n && path[k]!.id === this.path[k]!.id) k++;
      // The same object has the same signature: only the entries a write replaced are compared (a saved chunk: one).
      for (let j = 0; j < k; j++) if (path[j] !== this.path[j] && signature(path[j]!) !== signature(this.path[j]!)) await this.handle(await client.update(this.sessionId, path[j]!), opts.model);
      if (k < this.path.length) await this.handle(await client.switchPath(this.sessionId, k > 0 ? path[k - 1]!.id : null, path.slice(k)), opts.model);
      else if (k < path.length) await this.handle(await client.append(this.sessionId, path.slice(k)), opts.model);
    }
    this.path = path;
    this.opts = opts;
  }

  private async handle(update: PathUpdate, model: string) {
    this.publish(update.figure);
    if (update.computed.length) await this.store.setEntryTokens(this.sessionId, update.computed).catch(() => {});
    if (update.calibration) await this.store.setCalibration(model, update.calibration).catch(() => {});
  }

  private publish(f: ContextFigure | null, counted = true) {
    if (counted) this.counted = f;
    this.figure = f;
    for (const l of this.listeners) l(f);
  }
}
