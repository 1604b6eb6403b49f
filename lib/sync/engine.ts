import { errorMessage } from '@/lib/errors';
import { newId } from '@/lib/session/ids';
import { fromBase64Url, fromUtf8, randomBytes, toBase64Url, utf8 } from './crypto/bytes';
import { defaultBackend, type CryptoBackend } from './crypto/backend';
import { codeToWords, newSyncCode, wordsToCode } from './crypto/code';
import { authVerifierOf, DecryptError, deriveSpaceKeys, type SpaceKeys } from './crypto/keys';
import { OFF_STATUS, type OutboxBatch, type RemoteChange, type SpaceConfig, type SyncLocalStore, type SyncStatus } from './ports';
import { deviceAuthorization, spaceAuthorization, type DeviceInfo, type PulledRecord } from './protocol';
import { entryRecord, openRecord, RecordError, sessionRecord } from './records';
import { SyncHttpError, SyncOfflineError, type SyncTransport } from './transport';

/**
 * The sync engine of one device: pushes the outbox in batches, pulls by
 * checkpoint in pages, keeps a live stream open to hear of other devices'
 * pushes, and writes its status for the UI. Runs in the sync worker, so
 * encrypting a large history never blocks the page. Every step is
 * idempotent: interrupted anywhere (tab closed, server killed, offline), the
 * next round picks up where the stored marks and checkpoint say.
 */

export interface EngineOptions {
  local: SyncLocalStore;
  transport: SyncTransport;
  backend?: CryptoBackend;
  now?: () => number;
  /** Push batch limits (records, bytes of content). */
  batch?: { maxRecords: number; maxBytes: number };
  pullLimit?: number;
  /** Backoff after a failure, doubling up to the maximum. */
  retryMs?: { min: number; max: number };
  /** A safety-net round even when nothing was heard (a missed notification, a server without live). */
  pollMs?: number;
  /** Ms between status writes while a round is busy. */
  statusEveryMs?: number;
  /** After the server refused a push because the space is full, how long before pushing is tried again (pulls go on meanwhile). */
  quotaRetryMs?: number;
}

/** The longest the engine waits because the server asked it to (Retry-After), whatever the server says. */
const MAX_SERVER_WAIT_MS = 60 * 60_000;

const isCode = (err: unknown, code: string): err is SyncHttpError => err instanceof SyncHttpError && err.code === code;

export interface DeviceView extends Omit<DeviceInfo, 'name'> {
  name: string;
  current: boolean;
}

interface Active {
  config: SpaceConfig;
  keys: SpaceKeys;
  auth: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class SyncEngine {
  private readonly local: SyncLocalStore;
  private readonly transport: SyncTransport;
  private readonly backend: CryptoBackend;
  private readonly now: () => number;
  private readonly batchLimits: { maxRecords: number; maxBytes: number };
  private readonly pullLimit: number;
  private readonly retry: { min: number; max: number };
  private readonly pollMs: number;
  private readonly statusEveryMs: number;
  private readonly quotaRetryMs: number;

  private active: Active | null = null;
  /**
   * The server refused this device's pushes for a while: the space is full, or it pushed too fast.
   * Its changes wait until then (rounds go on pulling), with the sentence that says why.
   */
  private pushPaused: { until: number; message: string } | null = null;
  private running: AbortController | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  private roundInFlight: Promise<void> | null = null;
  private status: SyncStatus = OFF_STATUS;
  private lastStatusWrite = 0;
  private knownHead = 0;
  private unwatch: (() => void) | null = null;

  constructor(opts: EngineOptions) {
    this.local = opts.local;
    this.transport = opts.transport;
    this.backend = opts.backend ?? defaultBackend();
    this.now = opts.now ?? Date.now;
    this.batchLimits = opts.batch ?? { maxRecords: 500, maxBytes: 2_000_000 };
    this.pullLimit = opts.pullLimit ?? 500;
    this.retry = opts.retryMs ?? { min: 500, max: 5_000 };
    this.pollMs = opts.pollMs ?? 60_000;
    this.statusEveryMs = opts.statusEveryMs ?? 200;
    this.quotaRetryMs = opts.quotaRetryMs ?? 5 * 60_000;
  }

  // ------------------------------------------------------------ joining and leaving

  /** Creates a space holding this device's sessions; resolves with the code's words. */
  async create(deviceName: string): Promise<{ words: string }> {
    const code = newSyncCode();
    const keys = await deriveSpaceKeys(code, this.backend);
    const device = await this.newDevice(keys, deviceName);
    await this.transport.createSpace(
      { spaceId: keys.spaceId, authVerifier: await authVerifierOf(keys.authKey, this.backend), device: device.registration },
      spaceAuthorization(keys.spaceId, toBase64Url(keys.authKey)),
    );
    const words = codeToWords(code);
    await this.enter({ spaceId: keys.spaceId, words, deviceId: device.registration.id, deviceToken: device.token, deviceName, joinedAt: this.now() }, keys);
    return { words };
  }

  /** Joins the space of these words. A wrong code fails here (SyncCodeError, or the server's unknown_space) with nothing stored or merged. */
  async join(words: string, deviceName: string): Promise<void> {
    const code = wordsToCode(words);
    const keys = await deriveSpaceKeys(code, this.backend);
    const device = await this.newDevice(keys, deviceName);
    await this.transport.join({ spaceId: keys.spaceId, device: device.registration }, spaceAuthorization(keys.spaceId, toBase64Url(keys.authKey)));
    await this.enter({ spaceId: keys.spaceId, words: codeToWords(code), deviceId: device.registration.id, deviceToken: device.token, deviceName, joinedAt: this.now() }, keys);
  }

  /** Leaves the space: the server forgets this device (when reachable), this browser forgets the space. Sessions stay here. */
  async leave(): Promise<void> {
    const a = this.active ?? (await this.activate());
    // The loops stop while the space is forgotten (no round may run with credentials being revoked), then go on idling.
    const wasRunning = this.running !== null;
    this.pause();
    try {
      await this.forget(a);
    } finally {
      if (wasRunning) this.start();
    }
  }

  private async forget(a: Active | null): Promise<void> {
    if (a) {
      try {
        await this.transport.revoke(a.config.deviceId, a.auth);
      } catch (err) {
        // Offline or already removed: leaving locally is what the user asked for; the device entry stays listed on the other devices until revoked there.
        if (!(err instanceof SyncOfflineError || err instanceof SyncHttpError)) throw err;
      }
    }
    this.active = null;
    this.pushPaused = null;
    await this.local.forgetSpace();
    this.status = OFF_STATUS;
  }

  async devices(): Promise<DeviceView[]> {
    const a = this.active ?? (await this.activate());
    if (!a) return [];
    const list = await this.transport.devices(a.auth);
    return Promise.all(
      list.map(async (d) => ({ ...d, name: await this.openName(a.keys, d.id, d.name), current: d.id === a.config.deviceId })),
    );
  }

  async revoke(deviceId: string): Promise<void> {
    const a = this.active ?? (await this.activate());
    if (!a) throw new Error('This device is not in a sync space.');
    if (deviceId === a.config.deviceId) return this.leave();
    await this.transport.revoke(deviceId, a.auth);
  }

  private async newDevice(keys: SpaceKeys, name: string) {
    const id = toBase64Url(randomBytes(16));
    const token = toBase64Url(randomBytes(32));
    const sealedName = toBase64Url(await keys.seal(utf8(name.slice(0, 200)), `device\0${id}`));
    return { token, registration: { id, tokenVerifier: await authVerifierOf(fromBase64Url(token), this.backend), name: sealedName } };
  }

  private async openName(keys: SpaceKeys, id: string, sealed: string): Promise<string> {
    try {
      return fromUtf8(await keys.open(fromBase64Url(sealed), `device\0${id}`));
    } catch {
      return 'Unnamed device';
    }
  }

  private async enter(config: SpaceConfig, keys: SpaceKeys) {
    await this.local.saveSpace(config);
    this.pushPaused = null;
    this.active = { config, keys, auth: deviceAuthorization(config.deviceId, config.deviceToken) };
    this.status = { ...OFF_STATUS, state: 'syncing', pending: await this.local.pendingCount() };
    await this.local.writeStatus(this.status);
    this.kick();
  }

  private async activate(): Promise<Active | null> {
    const config = await this.local.loadSpace();
    if (!config) return (this.active = null);
    if (this.active?.config.deviceId === config.deviceId) return this.active;
    const keys = await deriveSpaceKeys(wordsToCode(config.words), this.backend);
    this.active = { config, keys, auth: deviceAuthorization(config.deviceId, config.deviceToken) };
    this.status = await this.local.readStatus();
    return this.active;
  }

  // ------------------------------------------------------------ running

  /** Starts the background loops (idempotent). They idle while this device is in no space. */
  start(): void {
    if (this.running) return;
    const ctl = new AbortController();
    this.running = ctl;
    let debounce: ReturnType<typeof setTimeout> | null = null;
    this.unwatch = this.local.watchOutbox(() => {
      if (debounce) clearTimeout(debounce);
      debounce = setTimeout(() => this.kick(), 40);
    });
    void this.loop(ctl.signal);
    void this.liveLoop(ctl.signal);
  }

  async stop(): Promise<void> {
    this.pause();
    await this.roundInFlight?.catch(() => {});
  }

  private pause() {
    this.running?.abort();
    this.running = null;
    this.unwatch?.();
    this.unwatch = null;
    this.wake?.();
  }

  /** Asks for a round now (a local write, a live event, the network back). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** One full round now: everything pending pushed, everything new pulled. Rejects with what went wrong. */
  async syncNow(): Promise<void> {
    while (this.roundInFlight) await this.roundInFlight.catch(() => {});
    const p = this.round();
    this.roundInFlight = p;
    try {
      await p;
    } finally {
      this.roundInFlight = null;
    }
  }

  private async loop(signal: AbortSignal) {
    let failures = 0;
    while (!signal.aborted) {
      this.kicked = false;
      let delay = this.pollMs;
      try {
        if (await this.activate()) {
          await this.syncNow();
          failures = 0;
        } else delay = this.pollMs;
      } catch (err) {
        // Stopped meanwhile (the tab closing, its database closed): what failed is the stop itself, not sync.
        if (signal.aborted) break;
        failures++;
        delay = Math.min(this.retry.max, this.retry.min * 2 ** Math.min(failures - 1, 10));
        // Asked to slow down: wait as long as the server said, not less (a retry sooner is refused again).
        if (isCode(err, 'rate_limited') && err.retryAfterMs !== null) delay = Math.max(delay, Math.min(err.retryAfterMs, MAX_SERVER_WAIT_MS));
        await this.fail(err);
      }
      // Pushes held back: the next round when they may go again (sooner if something wakes it, to pull).
      if (this.pushPaused) delay = Math.max(0, Math.min(delay, this.pushPaused.until - this.now()));
      if (this.kicked || signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private async liveLoop(signal: AbortSignal) {
    let failures = 0;
    let serverWait = 0;
    while (!signal.aborted) {
      const a = await this.activate().catch(() => null);
      if (!a) {
        await sleep(1000, signal);
        continue;
      }
      const ctl = new AbortController();
      const stopLive = () => ctl.abort();
      signal.addEventListener('abort', stopLive, { once: true });
      try {
        await this.transport.live(a.auth, ctl.signal, (e) => {
          failures = 0;
          if (e.type === 'revoked' || e.head > this.knownHead) this.kick();
        });
      } catch (err) {
        if (err instanceof SyncHttpError && err.code === 'revoked') this.kick();
        // Too many streams open (this device's other tabs, or the server's cap): the minute-by-minute rounds go on meanwhile.
        if (isCode(err, 'rate_limited')) serverWait = Math.min(err.retryAfterMs ?? 60_000, MAX_SERVER_WAIT_MS);
      } finally {
        signal.removeEventListener('abort', stopLive);
      }
      // Whatever was missed while the stream was down is pulled by the round this starts. A stream the
      // server ended (its lifetime, or idle) had delivered events, so failures is 0 and this reconnects at once.
      this.kick();
      failures++;
      await sleep(Math.max(serverWait, Math.min(this.retry.max, this.retry.min * 2 ** Math.min(failures - 1, 10))), signal);
      serverWait = 0;
    }
  }

  private async fail(err: unknown) {
    if (err instanceof SyncHttpError && (err.code === 'revoked' || err.code === 'unauthorized' || err.code === 'unknown_space')) {
      // Left on purpose meanwhile (another tab): nothing to report.
      if (!(await this.local.loadSpace())) return;
      // This device is out of the space: stop using credentials that no longer work. Sessions stay.
      this.active = null;
      await this.local.forgetSpace();
      this.status = { ...OFF_STATUS, state: 'error', message: err.code === 'revoked' ? 'This device was removed from the sync space. Its sessions stay here; join again with the sync code to resume.' : `Sync stopped: ${err.message}` };
      await this.local.writeStatus(this.status);
      return;
    }
    const offline = err instanceof SyncOfflineError;
    const message = offline ? null : isCode(err, 'rate_limited') ? `${err.message} Sync resumes on its own.` : errorMessage(err);
    await this.setStatus({ state: offline ? 'offline' : 'error', message, incoming: null, pending: await this.local.pendingCount().catch(() => this.status.pending) }, true);
  }

  private async setStatus(patch: Partial<SyncStatus>, force = false) {
    this.status = { ...this.status, ...patch };
    const t = this.now();
    if (!force && t - this.lastStatusWrite < this.statusEveryMs) return;
    this.lastStatusWrite = t;
    await this.local.writeStatus(this.status);
  }

  private async round(): Promise<void> {
    const a = await this.activate();
    if (!a) return;
    // A round with nothing to send (a pull woken by the live stream) does not flash "Syncing" in the UI.
    const pendingBefore = await this.local.pendingCount();
    // While pushing is paused (the space is full) the status keeps saying so, rather than flashing "Syncing".
    const paused = this.pushPaused !== null && this.now() < this.pushPaused.until;
    if (!paused && (pendingBefore > 0 || this.status.state !== 'synced')) await this.setStatus({ state: 'syncing', pending: pendingBefore }, true);
    if (this.pushPaused && this.now() >= this.pushPaused.until) this.pushPaused = null;
    if (!this.pushPaused) {
      try {
        await this.pushAll(a);
      } catch (err) {
        if (isCode(err, 'quota_exceeded')) {
          // The space is full. Sending again will not help until the server changes (its operator raises
          // the limit): this device's changes wait here, and the other devices' still arrive.
          this.pushPaused = {
            until: this.now() + this.quotaRetryMs,
            message: `${err.message} This device’s changes stay here and are not sent; sessions from your other devices still arrive. The server’s operator can raise the limit.`,
          };
        } else if (isCode(err, 'rate_limited')) {
          // Pushed too fast: no push before the time the server named (a sooner one is refused again), pulls meanwhile.
          this.pushPaused = { until: this.now() + Math.min(err.retryAfterMs ?? this.retry.max, MAX_SERVER_WAIT_MS), message: `${err.message} Sync resumes on its own.` };
        } else throw err;
      }
    }
    await this.pullAll(a);
    const pending = await this.local.pendingCount();
    if (this.pushPaused) {
      await this.setStatus({ state: 'error', pending, incoming: null, lastSyncAt: this.now(), message: this.pushPaused.message }, true);
      return;
    }
    await this.setStatus({ state: pending ? 'syncing' : 'synced', pending, incoming: null, lastSyncAt: this.now(), message: null }, true);
    if (pending) this.kick();
  }

  private async pushAll(a: Active) {
    for (;;) {
      const batch = await this.local.outbox(this.batchLimits);
      if (batch.sessions.length === 0 && batch.entries.length === 0) return;
      const records = await this.encode(a.keys, batch);
      const res = await this.transport.push(records, a.auth);
      this.knownHead = Math.max(this.knownHead, res.head);
      await this.local.markPushed(batch);
      await this.setStatus({ pending: await this.local.pendingCount() });
    }
  }

  private async encode(keys: SpaceKeys, batch: OutboxBatch) {
    // All at once: WebCrypto's calls are asynchronous and overlap; the order of the result is the batch's.
    return Promise.all([...batch.sessions.map((s) => sessionRecord(keys, s.sessionId, s.hlc, s.meta)), ...batch.entries.map((e) => entryRecord(keys, e.sessionId, e.entry))]);
  }

  private async pullAll(a: Active) {
    let after = await this.local.checkpoint();
    const start = after;
    for (;;) {
      const page = await this.transport.pull(after, this.pullLimit, a.auth);
      this.knownHead = Math.max(this.knownHead, page.head);
      const changes = await this.decode(a, page.records);
      const { revived } = await this.local.applyRemote(changes, page.checkpoint);
      for (const sessionId of revived) await this.refetchSession(a, sessionId);
      after = page.checkpoint;
      const total = page.head - start;
      await this.setStatus({ incoming: page.more && total > 0 ? { done: after - start, total } : null });
      if (!page.more) return;
    }
  }

  /** A session deleted here came back (edited later elsewhere): its entries were dropped with it, so they are fetched again. */
  private async refetchSession(a: Active, sessionId: string) {
    const key = await a.keys.sessionKey(sessionId);
    let after = 0;
    for (;;) {
      const page = await this.transport.pull(after, this.pullLimit, a.auth, key);
      await this.local.applyRemote(await this.decode(a, page.records, true), null);
      after = page.checkpoint;
      if (!page.more) return;
    }
  }

  private async decode(a: Active, records: PulledRecord[], includeOwn = false): Promise<RemoteChange[]> {
    const out: RemoteChange[] = [];
    let rejected = 0;
    // Our own pushes are already here.
    const opened = await Promise.allSettled(records.filter((r) => includeOwn || r.device !== a.config.deviceId).map((r) => openRecord(a.keys, r)));
    for (const o of opened) {
      if (o.status === 'fulfilled') out.push(o.value);
      else if (o.reason instanceof DecryptError || o.reason instanceof RecordError) rejected++; // refused, never applied; the checkpoint still passes it (no retry can make it valid)
      else throw o.reason;
    }
    if (rejected) await this.setStatus({ rejected: this.status.rejected + rejected }, true);
    return out;
  }
}

/** A default name for this device, from what the browser says it is. */
export function defaultDeviceName(userAgent: string): string {
  const browser = /Firefox\//.test(userAgent) ? 'Firefox' : /Edg\//.test(userAgent) ? 'Edge' : /Chrome\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : 'Browser';
  const os = /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS X/.test(userAgent) ? 'macOS' : /Windows/.test(userAgent) ? 'Windows' : /Linux/.test(userAgent) ? 'Linux' : 'this device';
  return `${browser} on ${os} (${newId(4)})`;
}
