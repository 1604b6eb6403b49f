import { isPinnable } from '@/lib/session/pins';
import type { AssistantMessage, EntryId, SessionEntry, Usage } from '@/lib/session/types';
import type { PathTokens } from './pathTokens';

/**
 * Token figures of the active path, kept current one entry at a time.
 *
 * Appending is O(1) amortised; moving the leaf pops back to the common
 * ancestor and pushes the new tail, so only the part that differs is touched.
 * From the arrays below, the context figure is O(1) at any moment, and
 * lib/compaction's cut search runs on pathTokens() plus the region start and
 * summary states kept here without a pass over the path (lib/sessionTokens/
 * cut.ts), which is what lets the UI update both after every append of a
 * 10,000-entry session.
 *
 * Two views of each path position are kept, as per-entry counts and prefix
 * sums (length n + 1):
 *   own       what the entry is when it reaches the model: a compaction's
 *             (effective) summary, a branch summary's text even while undone.
 *             Raw (one encoding, before calibration) and calibrated
 *             (factor × raw + media): the calibrated one is PathTokens as
 *             lib/compaction reads it, which picks what is in context itself
 *             (countsInKeptContext).
 *   verbatim  what the entry adds when it lies in the kept part of the
 *             context: compactions 0 (their summary enters once, at the top,
 *             only while in effect), undone branch summaries 0. Raw only: the
 *             context figure sums a range of it, then calibrates the sum.
 * and per prefix length k:
 *   compAt[k]   position of the compaction in effect for path[0..k), or -1;
 *   anchorAt[k] position of the last assistant message whose reported usage
 *               still describes the context, or -1 (see figure()).
 *
 * Summary revisions (regenerate / edit / undo / redo) change what an earlier
 * summary contributes; they are rare, so applying one patches the prefix sums
 * after its target (O(n)) and popping it restores them. A tool mask (and its
 * undo / redo) patches the same way: a masked result counts as its stub in
 * both views. Pins add the pinned messages before the kept part (with the
 * results of their calls) to the context figure: a few positions per pin,
 * summed when the figure is asked.
 */

export interface EntryTokenCounts {
  /** Raw text and framing tokens (for summaries: the wrapped summary). */
  text: number;
  /** Images and attachments. */
  media: number;
}

export interface IndexCounter {
  entry(entry: SessionEntry): EntryTokenCounts;
  /** Raw tokens of a revised summary text, wrapped as a summary of that kind. */
  revisedSummary(kind: 'compaction' | 'branch_summary', summary: string): number;
  /** Raw tokens of a tool result's mask stub as a message (lib/session/masks). */
  maskStub(entry: SessionEntry): number;
}

export interface IndexCalibration {
  /** Multiplies raw text counts (1 for exact tokenizers). */
  factor: number;
  /** Added once per request to estimates (hidden prompt tokens). */
  offset: number;
  /** Whether estimated parts should be shown as approximate ("≈"). */
  approximate: boolean;
}

export interface ContextFigure {
  tokens: number;
  source: 'usage+estimate' | 'estimate';
  approximate: boolean;
  /** Context window of the model, when known. */
  window?: number;
  /** Provider-reported part (usage of the anchor message), when source is usage+estimate. */
  usageTokens?: number;
  /** Counted part: everything after the anchor, or the whole context. */
  estimatedTokens: number;
}

/** What a request's input and output cost by the provider's report: the context after that reply. */
export function usageContextTokens(u: Usage): number {
  return (u.input || 0) + (u.cacheRead || 0) + (u.cacheWrite || 0) + (u.output || 0);
}

/** Input side of a reported usage (what calibration compares with a count). */
export function usageInputTokens(u: Usage): number {
  return (u.input || 0) + (u.cacheRead || 0) + (u.cacheWrite || 0);
}

/**
 * An assistant reply whose usage we trust as a measurement of its request:
 * finished (not streaming, not failed or aborted) and non-zero.
 */
export function usableUsage(e: SessionEntry): Usage | null {
  if (e.type !== 'message' || e.message.role !== 'assistant') return null;
  const m: AssistantMessage = e.message;
  if (!m.usage || m.status === 'streaming') return null;
  if (m.stopReason === 'error' || m.stopReason === 'aborted' || m.stopReason === 'interrupted') return null;
  return usageContextTokens(m.usage) > 0 ? m.usage : null;
}

interface SummaryState {
  kind: 'compaction' | 'branch_summary';
  pos: number;
  tokens: number;
  undone: boolean;
}

interface RevisionUndo {
  targetId: EntryId;
  prev: SummaryState;
  /** Raw changes applied at prev.pos to the own and verbatim views. */
  ownDelta: number;
  verbDelta: number;
}

class F64 {
  a: Float64Array;
  constructor(cap: number) {
    this.a = new Float64Array(cap);
  }
  ensure(n: number) {
    if (n <= this.a.length) return;
    const b = new Float64Array(Math.max(n, this.a.length * 2));
    b.set(this.a);
    this.a = b;
  }
}

class I32 {
  a: Int32Array;
  constructor(cap: number) {
    this.a = new Int32Array(cap);
  }
  ensure(n: number) {
    if (n <= this.a.length) return;
    const b = new Int32Array(Math.max(n, this.a.length * 2));
    b.set(this.a);
    this.a = b;
  }
}


/** Raw per-entry counts of one view of the path and their prefix sums (see the header). */
class RawSums {
  readonly raw = new F64(64);
  readonly R = new F64(65);

  ensure(n: number) {
    this.raw.ensure(n);
    this.R.ensure(n + 1);
  }

  set(i: number, raw: number) {
    this.raw.a[i] = raw;
    this.R.a[i + 1] = this.R.a[i]! + raw;
  }

  /** Adds `delta` raw tokens at position p and to the sums after it, up to prefix length `upTo`. */
  shift(p: number, delta: number, upTo: number) {
    if (delta === 0) return;
    this.raw.a[p] = this.raw.a[p]! + delta;
    for (let k = p + 1; k <= upTo; k++) this.R.a[k] = this.R.a[k]! + delta;
  }

  /** Several shifts at once, in one pass over the sums (a mask touches many positions). */
  shiftMany(deltas: ReadonlyMap<number, number>, upTo: number) {
    let from = upTo;
    for (const [p, d] of deltas) {
      this.raw.a[p] = this.raw.a[p]! + d;
      from = Math.min(from, p);
    }
    for (let k = from + 1; k <= upTo; k++) this.R.a[k] = this.R.a[k - 1]! + this.raw.a[k - 1]!;
  }
}

/** Raw sums plus calibrated per-entry counts and prefix sums (factor × raw + media): PathTokens. */
class CalibratedSums {
  readonly sums = new RawSums();
  readonly counts = new F64(64);
  readonly P = new F64(65);

  ensure(n: number) {
    this.sums.ensure(n);
    this.counts.ensure(n);
    this.P.ensure(n + 1);
  }

  set(i: number, raw: number, media: number, f: number) {
    const c = f * raw + media;
    this.sums.set(i, raw);
    this.counts.a[i] = c;
    this.P.a[i + 1] = this.P.a[i]! + c;
  }

  shift(p: number, delta: number, upTo: number, f: number) {
    if (delta === 0) return;
    const fd = f * delta;
    this.sums.shift(p, delta, upTo);
    this.counts.a[p] = this.counts.a[p]! + fd;
    for (let k = p + 1; k <= upTo; k++) this.P.a[k] = this.P.a[k]! + fd;
  }

  shiftMany(deltas: ReadonlyMap<number, number>, upTo: number, f: number) {
    this.sums.shiftMany(deltas, upTo);
    let from = upTo;
    for (const [p, d] of deltas) {
      this.counts.a[p] = this.counts.a[p]! + f * d;
      from = Math.min(from, p);
    }
    for (let k = from + 1; k <= upTo; k++) this.P.a[k] = this.P.a[k - 1]! + this.counts.a[k - 1]!;
  }

  recalibrate(n: number, f: number, media: Float64Array) {
    const raw = this.sums.raw.a;
    const counts = this.counts.a;
    const P = this.P.a;
    for (let i = 0; i < n; i++) {
      counts[i] = f * raw[i]! + media[i]!;
      P[i + 1] = P[i]! + counts[i]!;
    }
  }

  view(n: number): PathTokens {
    return { counts: this.counts.a.subarray(0, n), prefix: this.P.a.subarray(0, n + 1) };
  }
}

export class PathTokenIndex {
  private readonly path: SessionEntry[] = [];
  private readonly pos = new Map<EntryId, number>();
  private readonly own = new CalibratedSums();
  private readonly verb = new RawSums();
  private readonly media = new F64(64);
  /** Prefix sums of media. */
  private readonly M = new F64(65);
  private readonly compAt = new I32(65);
  private readonly anchorAt = new I32(65);
  private readonly compactions: number[] = [];
  private readonly summaries = new Map<EntryId, SummaryState>();
  private readonly revisions = new Map<number, RevisionUndo>();
  /** Tool masks on the path: the positions each masks and whether it is undone. */
  private readonly masks = new Map<EntryId, { positions: number[]; undone: boolean }>();
  /** How many masks in effect cover a position, and what it counted before the first one. */
  private readonly maskedAt = new Map<number, { count: number; raw: number; stub: number }>();
  /** Undo / redo revisions of a mask, by their position: the state to restore when popped. */
  private readonly maskRevisions = new Map<number, { targetId: EntryId; prevUndone: boolean }>();
  /** Pinned targets now, with the positions carried for each (the message and the results of its calls). */
  private readonly pinned = new Map<EntryId, number[]>();
  /** Pin entries by position: the target's state before, to restore when popped. */
  private readonly pinUndo = new Map<number, { targetId: EntryId; prev: number[] | undefined }>();
  private cal: IndexCalibration;
  /** Raw tokens every request carries besides the path: system prompt, reply priming. */
  private requestText: number;

  /** Replies whose reported usage measured a request that no longer exists (another system prompt): not anchors. */
  private readonly staleUsage: ReadonlySet<EntryId>;

  constructor(
    private readonly counter: IndexCounter,
    opts: { calibration?: IndexCalibration; requestTokens?: number; staleUsage?: ReadonlySet<EntryId> } = {},
  ) {
    this.cal = opts.calibration ?? { factor: 1, offset: 0, approximate: false };
    this.requestText = opts.requestTokens ?? 0;
    this.staleUsage = opts.staleUsage ?? new Set();
    this.compAt.a[0] = -1;
    this.anchorAt.a[0] = -1;
  }

  get length(): number {
    return this.path.length;
  }

  get calibration(): IndexCalibration {
    return this.cal;
  }

  entries(): readonly SessionEntry[] {
    return this.path;
  }

  leafId(): EntryId | null {
    return this.path.at(-1)?.id ?? null;
  }

  indexOf(id: EntryId): number {
    return this.pos.get(id) ?? -1;
  }

  // ------------------------------------------------------------ mutation

  /** Appends `entry`, which must be a child of the current leaf (or any entry for an empty index). */
  push(entry: SessionEntry): void {
    const i = this.path.length;
    if (i > 0 && entry.parentId !== this.path[i - 1]!.id) {
      throw new Error(`PathTokenIndex.push: ${entry.id} is not a child of the leaf ${this.path[i - 1]!.id}`);
    }
    if (this.pos.has(entry.id)) throw new Error(`PathTokenIndex.push: ${entry.id} is already on the path`);
    this.own.ensure(i + 1);
    this.verb.ensure(i + 1);
    this.media.ensure(i + 1);
    this.M.ensure(i + 2);
    this.compAt.ensure(i + 2);
    this.anchorAt.ensure(i + 2);

    const c = this.counter.entry(entry);
    let verbatim = c.text;
    let comp = this.compAt.a[i]!;
    let anchor = this.anchorAt.a[i]!;

    if (entry.type === 'compaction' || entry.type === 'branch_summary') {
      this.summaries.set(entry.id, { kind: entry.type, pos: i, tokens: c.text, undone: false });
    }
    if (entry.type === 'compaction') {
      this.compactions.push(i);
      comp = i;
      anchor = -1; // usage reported before a compaction measured the history it replaced
      verbatim = 0;
    } else if (entry.type === 'summary_revision' && this.masks.has(entry.targetId)) {
      if (entry.action === 'undo' || entry.action === 'redo') {
        const prevUndone = this.masks.get(entry.targetId)!.undone;
        if (this.toggleMask(entry.targetId, entry.action === 'undo', i)) this.maskRevisions.set(i, { targetId: entry.targetId, prevUndone });
        anchor = -1; // as for a summary revision: the last report no longer describes the context
      }
    } else if (entry.type === 'tool_mask') {
      const positions = entry.maskedIds.map((id) => this.indexOf(id)).filter((p) => p >= 0 && this.isMaskable(p));
      this.masks.set(entry.id, { positions, undone: true });
      this.toggleMask(entry.id, false, i);
      anchor = -1; // the context changed under the last report
    } else if (entry.type === 'pin') {
      this.pinUndo.set(i, { targetId: entry.targetId, prev: this.pinned.get(entry.targetId) });
      const target = this.indexOf(entry.targetId);
      if (entry.pinned && target >= 0 && isPinnable(this.path[target]!)) this.pinned.set(entry.targetId, this.unitOf(target));
      else this.pinned.delete(entry.targetId);
      anchor = -1;
    } else if (entry.type === 'summary_revision') {
      const undo = this.applyRevision(entry.targetId, entry.action, entry.summary, i);
      if (undo) {
        this.revisions.set(i, undo);
        if (undo.prev.kind === 'compaction') comp = this.activeCompaction();
        anchor = -1; // the context changed under the last report
      }
    } else if (entry.type === 'model_change') {
      anchor = -1; // another model's usage is in another tokenizer's units
    } else if (usableUsage(entry)) {
      anchor = this.staleUsage.has(entry.id) ? -1 : i;
    }
    if (entry.type === 'message' && entry.message.role === 'toolResult') this.pinnedUnitOf(entry.message.toolCallId)?.push(i);

    const f = this.cal.factor;
    this.path.push(entry);
    this.pos.set(entry.id, i);
    this.media.a[i] = c.media;
    this.M.a[i + 1] = this.M.a[i]! + c.media;
    this.own.set(i, c.text, c.media, f);
    this.verb.set(i, verbatim);
    this.compAt.a[i + 1] = comp;
    this.anchorAt.a[i + 1] = anchor;
  }

  /** Removes the leaf and returns it. */
  pop(): SessionEntry | undefined {
    const i = this.path.length - 1;
    if (i < 0) return undefined;
    const entry = this.path.pop()!;
    this.pos.delete(entry.id);
    if (entry.type === 'compaction') this.compactions.pop();
    if (entry.type === 'compaction' || entry.type === 'branch_summary') this.summaries.delete(entry.id);
    if (entry.type === 'tool_mask') {
      this.toggleMask(entry.id, true, i);
      this.masks.delete(entry.id);
    }
    const maskRev = this.maskRevisions.get(i);
    if (maskRev) {
      this.maskRevisions.delete(i);
      this.toggleMask(maskRev.targetId, maskRev.prevUndone, i);
    }
    if (entry.type === 'message' && entry.message.role === 'toolResult') {
      const unit = this.pinnedUnitOf(entry.message.toolCallId);
      if (unit?.at(-1) === i) unit.pop();
    }
    const pin = this.pinUndo.get(i);
    if (pin) {
      this.pinUndo.delete(i);
      if (pin.prev) this.pinned.set(pin.targetId, pin.prev);
      else this.pinned.delete(pin.targetId);
    }
    const undo = this.revisions.get(i);
    if (undo) {
      this.revisions.delete(i);
      this.summaries.set(undo.targetId, undo.prev);
      this.own.shift(undo.prev.pos, -undo.ownDelta, i, this.cal.factor);
      this.verb.shift(undo.prev.pos, -undo.verbDelta, i);
    }
    return entry;
  }

  /** Pops back to `ancestorId` (kept), or to an empty path for null. Returns the number popped. */
  popTo(ancestorId: EntryId | null): number {
    const keep = ancestorId === null ? 0 : this.indexOf(ancestorId) + 1;
    if (ancestorId !== null && keep === 0) throw new Error(`PathTokenIndex.popTo: ${ancestorId} is not on the path`);
    let n = 0;
    while (this.path.length > keep) {
      this.pop();
      n++;
    }
    return n;
  }

  /**
   * Moves the leaf: pops to the common ancestor and pushes `tail` (the new
   * path after the ancestor, in root→leaf order).
   */
  switchTo(ancestorId: EntryId | null, tail: readonly SessionEntry[]): void {
    this.popTo(ancestorId);
    for (const e of tail) this.push(e);
  }

  /**
   * Replaces an entry already on the path (a streaming reply that finished,
   * usage that arrived late): re-pushes it and everything after it.
   */
  replace(entry: SessionEntry): void {
    const at = this.indexOf(entry.id);
    if (at < 0) throw new Error(`PathTokenIndex.replace: ${entry.id} is not on the path`);
    const tail: SessionEntry[] = [];
    while (this.path.length > at + 1) tail.push(this.pop()!);
    this.pop();
    this.push(entry);
    for (let k = tail.length - 1; k >= 0; k--) this.push(tail[k]!);
  }

  /** New calibration or per-request tokens: rebuilds the calibrated sums (O(n), once per reply at most). */
  setCalibration(cal: IndexCalibration, requestTokens: number = this.requestText): void {
    this.requestText = requestTokens;
    const refactor = cal.factor !== this.cal.factor;
    this.cal = cal;
    if (!refactor) return;
    const n = this.path.length;
    this.own.recalibrate(n, cal.factor, this.media.a);
  }

  /** Only text tool results are masked: a stub has no images, and media are counted apart. */
  private isMaskable(p: number): boolean {
    const e = this.path[p];
    return e?.type === 'message' && e.message.role === 'toolResult' && this.media.a[p] === 0;
  }

  /**
   * Puts the mask `id` in effect (undone = false) or out of it, patching the
   * sums up to prefix length `at` (the entry being pushed or popped). A
   * position covered by two masks (one undone, then a newer one made, then
   * the first redone) keeps its stub until neither is in effect. Returns
   * whether the mask's state changed.
   */
  private toggleMask(id: EntryId, undone: boolean, at: number): boolean {
    const m = this.masks.get(id);
    if (!m || m.undone === undone) return false;
    m.undone = undone;
    const deltas = new Map<number, number>();
    for (const p of m.positions) {
      let s = this.maskedAt.get(p);
      if (!undone) {
        if (!s) {
          const entry = this.path[p]!;
          s = { count: 0, raw: this.own.sums.raw.a[p]!, stub: this.counter.maskStub(entry) };
          this.maskedAt.set(p, s);
        }
        if (s.count++ === 0) deltas.set(p, s.stub - s.raw);
      } else if (s && --s.count === 0) {
        deltas.set(p, s.raw - s.stub);
        this.maskedAt.delete(p);
      }
    }
    this.own.shiftMany(deltas, at, this.cal.factor);
    this.verb.shiftMany(deltas, at);
    return true;
  }

  /** The carried positions of the pinned assistant message that made call `callId`, if any. */
  private pinnedUnitOf(callId: string): number[] | undefined {
    for (const unit of this.pinned.values()) {
      const e = this.path[unit[0]!];
      if (e?.type === 'message' && e.message.role === 'assistant' && e.message.content.some((c) => c.type === 'toolCall' && c.id === callId)) return unit;
    }
    return undefined;
  }

  /**
   * The pinned message at `p` and every result of its tool calls that follows it on the path: all of them,
   * as carriedPositions (lib/session/pins) carries them, even a second result for one call (a damaged import).
   */
  private unitOf(p: number): number[] {
    const e = this.path[p]!;
    const out = [p];
    if (e.type !== 'message' || e.message.role !== 'assistant') return out;
    const calls = new Set(e.message.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : [])));
    if (calls.size === 0) return out;
    for (let i = p + 1; i < this.path.length; i++) {
      const r = this.path[i]!;
      if (r.type === 'message' && r.message.role === 'toolResult' && calls.has(r.message.toolCallId)) out.push(i);
    }
    return out;
  }

  /**
   * Raw text and media of the pinned messages carried before `keptFrom` in a
   * request made with path[0..k): what buildSessionContext puts after the summary.
   */
  private carried(keptFrom: number, k: number): { text: number; media: number } {
    let text = 0;
    let media = 0;
    if (keptFrom <= 0 || this.pinned.size === 0) return { text, media };
    for (const unit of this.pinned.values()) {
      if (unit[0]! >= keptFrom) continue;
      for (const u of unit) {
        if (u >= keptFrom || u >= k) continue;
        text += this.verb.raw.a[u]!;
        media += this.media.a[u]!;
      }
    }
    return { text, media };
  }

  private activeCompaction(): number {
    for (let k = this.compactions.length - 1; k >= 0; k--) {
      const at = this.compactions[k]!;
      if (!this.summaries.get(this.path[at]!.id)?.undone) return at;
    }
    return -1;
  }

  /** Same rules as resolveSummaries: only summaries earlier on the path, text edits need a text. */
  private applyRevision(targetId: EntryId, action: string, summary: string | undefined, at: number): RevisionUndo | null {
    const s = this.summaries.get(targetId);
    if (!s) return null;
    const prev = { ...s };
    if (action === 'undo') s.undone = true;
    else if (action === 'redo') s.undone = false;
    else if (summary !== undefined) s.tokens = this.counter.revisedSummary(s.kind, summary);
    else return null;
    const f = this.cal.factor;
    const ownDelta = s.tokens - this.own.sums.raw.a[s.pos]!;
    this.own.shift(s.pos, ownDelta, at, f);
    let verbDelta = 0;
    if (s.kind === 'branch_summary') {
      verbDelta = (s.undone ? 0 : s.tokens) - this.verb.raw.a[s.pos]!;
      this.verb.shift(s.pos, verbDelta, at);
    }
    return { targetId, prev, ownDelta, verbDelta };
  }

  // ------------------------------------------------------------ queries

  /**
   * Calibrated own counts and prefix sums of the path, as lib/compaction takes
   * them (counts[i] is what path[i] is when it reaches the model). Views into
   * the index's buffers: valid until the next mutation.
   */
  pathTokens(): PathTokens {
    return this.own.view(this.path.length);
  }

  /**
   * Whether each compaction and branch summary on the path is undone, after
   * the revisions on the path (as resolveSummaries decides it): what
   * lib/compaction's countsInKeptContext reads. A view: valid until the next
   * mutation.
   */
  summaryStates(): ReadonlyMap<EntryId, { readonly undone: boolean }> {
    return this.summaries;
  }

  /** The compaction in effect for path[0..k) (default: the whole path) and where its kept part starts. */
  compactionState(k: number = this.path.length): { compactionIndex: number; keptFromIndex: number; summaryTokens: number } {
    const comp = this.compAt.a[k]!;
    if (comp < 0) return { compactionIndex: -1, keptFromIndex: 0, summaryTokens: 0 };
    const entry = this.path[comp]!;
    const firstKept = entry.type === 'compaction' ? this.indexOf(entry.firstKeptEntryId) : -1;
    // A firstKeptEntryId off the path (a damaged import) keeps only what follows the compaction, as buildSessionContext does.
    const keptFromIndex = firstKept >= 0 && firstKept <= comp ? firstKept : comp + 1;
    return { compactionIndex: comp, keptFromIndex, summaryTokens: this.summaries.get(entry.id)?.tokens ?? 0 };
  }

  /**
   * What a request made with path[0..k) as its context counts, split in raw
   * text (before calibration) and media: request tokens, the summary in
   * effect, and the entries from its kept part on. This is the "counted"
   * side of a calibration sample for the reply at position k.
   */
  requestCount(k: number = this.path.length): { text: number; media: number } {
    const { keptFromIndex, summaryTokens } = this.compactionState(k);
    const pinned = this.carried(keptFromIndex, k);
    return {
      text: this.requestText + summaryTokens + pinned.text + this.verb.R.a[k]! - this.verb.R.a[keptFromIndex]!,
      media: pinned.media + this.M.a[k]! - this.M.a[keptFromIndex]!,
    };
  }

  /** The counted figure of the whole context, ignoring any reported usage: what figure() shows once a change resets the anchor. */
  estimate(): number {
    const r = this.requestCount(this.path.length);
    return this.cal.factor * r.text + this.cal.offset + r.media;
  }


  /**
   * Position of the reply whose reported usage still describes the context at
   * the leaf, or -1. The running anchor (anchorAt) drops a report at every
   * compaction, revision or model change; that is right until a revision
   * undoes the compaction that came after the report: then the report
   * measured exactly the context that is back, and the meter should show it
   * again (undo returns to the pre-compaction figure). So when the running
   * anchor is gone, walk back from the leaf: stop at a compaction in effect or
   * a model change; a report counts if no revision after it changed a summary
   * before it.
   */
  private usageAnchor(): number {
    const n = this.path.length;
    const running = this.anchorAt.a[n]!;
    if (running >= 0) return running;
    let firstRevisedTarget = Infinity;
    for (let i = n - 1; i >= 0; i--) {
      const e = this.path[i]!;
      if (e.type === 'compaction' && !this.summaries.get(e.id)?.undone) return -1;
      if (e.type === 'model_change' || e.type === 'pin' || this.staleUsage.has(e.id)) return -1;
      if (e.type === 'tool_mask' && !this.masks.get(e.id)?.undone) return -1;
      if (e.type === 'summary_revision') {
        const t = this.pos.get(e.targetId);
        if (t !== undefined) firstRevisedTarget = Math.min(firstRevisedTarget, t);
        continue;
      }
      if (usableUsage(e)) return firstRevisedTarget > i ? i : -1;
    }
    return -1;
  }

  /**
   * The context size now. Hybrid: the last reply's reported usage (input,
   * cache reads and writes, output) plus counts of what came after it. A
   * report only counts when it comes after the compaction in effect (and
   * after any summary revision or model change): before that point it
   * measured a context that no longer exists. Without such a report, counts
   * of the whole context as buildSessionContext returns it, summary included.
   */
  figure(window?: number): ContextFigure {
    const n = this.path.length;
    const f = this.cal.factor;
    const anchor = this.usageAnchor();
    const withWindow = (fig: ContextFigure): ContextFigure => (window ? { ...fig, window } : fig);
    if (anchor >= 0) {
      const usage = usageContextTokens(usableUsage(this.path[anchor]!)!);
      const estimated = f * (this.verb.R.a[n]! - this.verb.R.a[anchor + 1]!) + (this.M.a[n]! - this.M.a[anchor + 1]!);
      return withWindow({
        tokens: Math.round(usage + estimated),
        source: 'usage+estimate',
        approximate: estimated > 0 && this.cal.approximate,
        usageTokens: usage,
        estimatedTokens: Math.round(estimated),
      });
    }
    const counted = this.countedTokens();
    return withWindow({ tokens: counted, source: 'estimate', approximate: this.cal.approximate, estimatedTokens: counted });
  }

  /**
   * The context at the leaf as counted here (no provider report): request
   * tokens, the summary in effect and what reaches the model from its kept
   * part, calibrated. Never below 0: a negative calibration offset on an
   * empty path (the leaf moved to the root) is not a context size.
   */
  countedTokens(): number {
    const r = this.requestCount(this.path.length);
    return Math.max(0, Math.round(this.cal.factor * r.text + this.cal.offset + r.media));
  }

  /**
   * The counted context right after a compaction with this summary, keeping
   * path[keptFromIndex..), were appended at the leaf: what figure() will say
   * then (a compaction drops the provider's report). Its card shows this.
   */
  countedAfterCompaction(keptFromIndex: number, summary: string): number {
    const n = this.path.length;
    // Pinned messages before the cut are carried after the summary (buildSessionContext): they count too.
    const pinned = this.carried(keptFromIndex, n);
    const text = this.requestText + this.counter.revisedSummary('compaction', summary) + pinned.text + this.verb.R.a[n]! - this.verb.R.a[keptFromIndex]!;
    const media = pinned.media + this.M.a[n]! - this.M.a[keptFromIndex]!;
    return Math.max(0, Math.round(this.cal.factor * text + this.cal.offset + media));
  }

  /** Tokens every request carries besides the path (system prompt, framing, the calibration's offset), calibrated. */
  requestOverheadTokens(): number {
    return this.cal.factor * this.requestText + this.cal.offset;
  }
}
