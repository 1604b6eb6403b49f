import { maskedMessage, resolveMasks } from './masks';
import { carriedPositions, resolvePins } from './pins';
import { resolveSummaries, type EffectiveSummary } from './revisions';
import { SessionTree } from './tree';
import type { ChatMessage, CompactionEntry, EntryId, SessionEntry } from './types';

export type ContextItem =
  | {
      kind: 'message';
      entryId: EntryId;
      /** As the model sees it: a masked tool result carries its stub here, the entry keeps the original. */
      message: ChatMessage;
      /** A pinned message (or a result of its calls) carried verbatim from before the kept part. */
      carried?: true;
      /** A tool result the model sees as a one-line stub (observation masking). */
      masked?: true;
    }
  | { kind: 'compactionSummary'; entryId: EntryId; summary: string; tokensBefore: number }
  | { kind: 'branchSummary'; entryId: EntryId; summary: string; fromId: EntryId };

export interface SessionContext {
  /** What the model sees, in order. */
  items: ContextItem[];
  /** Root → leaf. */
  path: SessionEntry[];
  /** The compaction in effect at the leaf, if any. */
  compaction: CompactionEntry | null;
  /** Index in `path` from which entries reach the model verbatim (0 without a compaction). */
  keptFromIndex: number;
  /** Effective state of every summary on the path (after regenerate / edit / undo). */
  summaries: Map<EntryId, EffectiveSummary>;
  /** Model of the latest model_change on the path. */
  model: string | undefined;
  /** Messages pinned on this path (never summarised away: carried verbatim after the summary). */
  pinned: Set<EntryId>;
  /** Tool results masked on this path (the model sees a stub). */
  masked: Set<EntryId>;
}

/** An assistant turn that failed, was stopped or was cut off before producing anything carries nothing for the model. */
function isEmptyFailedReply(m: ChatMessage): boolean {
  return m.role === 'assistant' && m.content.length === 0 && (m.stopReason === 'error' || m.stopReason === 'aborted' || m.stopReason === 'interrupted');
}

/** The entry appended last (latest timestamp, later insertion on a tie). */
function newestEntry(tree: SessionTree): SessionEntry | undefined {
  let best: SessionEntry | undefined;
  for (const e of tree.entries()) if (!best || e.timestamp >= best.timestamp) best = e;
  return best;
}

function messageItem(entryId: EntryId, message: ChatMessage, masked: ReadonlySet<EntryId>, carried: boolean): ContextItem {
  const item: ContextItem =
    message.role === 'toolResult' && masked.has(entryId)
      ? { kind: 'message', entryId, message: maskedMessage(message), masked: true }
      : { kind: 'message', entryId, message };
  if (carried) item.carried = true;
  return item;
}

/**
 * The messages the model sees at `leafId`: walk leaf → root, honour the latest
 * compaction still in effect (its summary, then the pinned messages before its
 * kept part, then the entries it kept, then everything after it) and the
 * branch summaries along the way. Masked tool results are sent as their stub.
 *
 * Earlier compactions inside the kept range are skipped: the latest summary
 * already merged them (iterative update), so sending both would repeat them.
 *
 * A leaf id the tree does not hold (a stale pointer) falls back to the newest
 * entry, as pi does, and is reported through `warn`: an empty context would
 * silently send the model nothing but the next prompt.
 */
export function buildSessionContext(
  source: SessionTree | Iterable<SessionEntry>,
  leafId: EntryId | null | undefined,
  opts: { warn?: (message: string) => void } = {},
): SessionContext {
  const tree = source instanceof SessionTree ? source : new SessionTree(source);
  let leaf = leafId;
  if (leaf && !tree.has(leaf)) {
    const newest = newestEntry(tree);
    (opts.warn ?? console.warn)(`Session leaf ${leaf} is not in the session; using the newest entry (${newest?.id ?? 'none'}) instead.`);
    leaf = newest?.id ?? null;
  }
  const path = tree.pathTo(leaf);
  const summaries = resolveSummaries(path);

  let model: string | undefined;
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'model_change') model = e.model;
    if (e.type === 'compaction' && !summaries.get(e.id)?.undone) compactionIndex = i;
  }

  const pinned = resolvePins(path);
  const masked = resolveMasks(path);
  const items: ContextItem[] = [];
  let keptFromIndex = 0;
  let compaction: CompactionEntry | null = null;
  if (compactionIndex >= 0) {
    compaction = path[compactionIndex] as CompactionEntry;
    const effective = summaries.get(compaction.id)!;
    items.push({ kind: 'compactionSummary', entryId: compaction.id, summary: effective.summary, tokensBefore: compaction.tokensBefore });
    const kept = path.findIndex((e) => e.id === compaction!.firstKeptEntryId);
    // A firstKeptEntryId off the path (a damaged import) keeps only what follows the compaction.
    keptFromIndex = kept >= 0 && kept <= compactionIndex ? kept : compactionIndex + 1;
    // Pinned messages are never summarised away: they follow the summary, in path order.
    for (const i of carriedPositions(path, keptFromIndex, pinned)) {
      const e = path[i] as Extract<SessionEntry, { type: 'message' }>;
      if (!isEmptyFailedReply(e.message)) items.push(messageItem(e.id, e.message, masked, true));
    }
  }

  for (let i = keptFromIndex; i < path.length; i++) {
    const e = path[i]!;
    if (e.type === 'message') {
      if (!isEmptyFailedReply(e.message)) items.push(messageItem(e.id, e.message, masked, false));
    } else if (e.type === 'branch_summary') {
      const eff = summaries.get(e.id);
      if (eff && !eff.undone) items.push({ kind: 'branchSummary', entryId: e.id, summary: eff.summary, fromId: e.fromId });
    }
  }

  return { items, path, compaction, keptFromIndex, summaries, model, pinned, masked };
}

/** How far back from the leaf a replaced entry is looked for: a streaming reply is the leaf or next to it. */
const NEAR_LEAF = 8;

/**
 * The context after `changed` messages were written, derived from the context
 * before instead of walking the whole path again: a saved chunk of a streaming
 * reply (the leaf replaced) or a new turn (messages appended under the leaf)
 * costs in proportion to what changed, not to the session. Messages carry no
 * summary, revision or model change, so the summaries, the compaction in
 * effect and the model stay as they were. Returns null when the change is of
 * another kind (a summary, a label, an entry far from the leaf, a leaf that
 * moved elsewhere): the caller then builds the context from scratch.
 */
export function advanceSessionContext(prev: SessionContext, tree: SessionTree, leafId: EntryId | null | undefined, changed: readonly SessionEntry[]): SessionContext | null {
  if (!leafId || changed.some((e) => e.type !== 'message')) return null;
  const path = prev.path.slice();
  const items = prev.items.slice();
  const oldLeaf = path.at(-1)?.id ?? null;
  // Appended: walk back from the new leaf to the old one, through nothing but the changed entries.
  const appended: SessionEntry[] = [];
  let cur = tree.get(leafId);
  while (cur && cur.id !== oldLeaf) {
    if (appended.length >= changed.length) return null;
    appended.push(cur);
    cur = cur.parentId ? tree.get(cur.parentId) : undefined;
  }
  if (!cur && oldLeaf !== null) return null;
  const fresh = new Set(appended.map((e) => e.id));
  for (const e of changed) {
    if (fresh.has(e.id)) continue;
    const at = path.findLastIndex((p, i) => i >= path.length - NEAR_LEAF && p.id === e.id);
    if (at < 0) return null;
    const before = path[at]!;
    // A masked or carried message is not the plain item this patches in: build afresh.
    if (prev.masked.has(e.id) || (at < prev.keptFromIndex && prev.pinned.size > 0)) return null;
    if (before.type !== 'message' || e.type !== 'message' || isEmptyFailedReply(before.message) !== isEmptyFailedReply(e.message)) return null;
    path[at] = e;
    if (at >= prev.keptFromIndex && !isEmptyFailedReply(e.message)) {
      const item = items.findLastIndex((it) => it.entryId === e.id);
      if (item < 0) return null;
      items[item] = { kind: 'message', entryId: e.id, message: e.message };
    }
  }
  for (const e of appended.reverse()) {
    path.push(e);
    if (e.type === 'message' && !isEmptyFailedReply(e.message)) items.push({ kind: 'message', entryId: e.id, message: e.message });
  }
  return { ...prev, path, items };
}
