import { collectBranchEntries } from '@/lib/branch/collect';
import { regenerationProblem } from '@/lib/compaction/prepare';
import type { SessionContext } from '@/lib/session/context';
import type { EffectiveSummary, SummaryEntry } from '@/lib/session/revisions';
import { isSummaryEntry, resolveSummaries } from '@/lib/session/revisions';
import type { SessionTree } from '@/lib/session/tree';
import { isMaskUndone } from '@/lib/session/masks';
import type { EntryId, ModelChangeEntry, SessionEntry, ToolMaskEntry } from '@/lib/session/types';

/** Entries a summary stands for, or kept verbatim next to it, on the path. */
export interface EntryRange {
  /** Conversation entries (messages and branch summaries) in order. */
  entries: SessionEntry[];
  firstId: EntryId | null;
  lastId: EntryId | null;
}

export interface TurnInfo {
  /** 1-based turn number along the path. */
  number: number;
  entries: SessionEntry[];
  /** The user message that opened the turn; null for replies before any prompt. */
  prompt: SessionEntry | null;
  /** Cached o200k tokens of the turn, or null when some entry was not counted yet. */
  tokens: number | null;
  /** Whether the model still sees the turn verbatim (after the kept start of the compaction in effect, or pinned). */
  inContext: boolean;
  /** Messages of the turn that are pinned (kept verbatim through compactions). */
  pinned: number;
}

export type TimelineItem =
  | { kind: 'turns'; key: string; turns: TurnInfo[] }
  | {
      kind: 'summary';
      key: string;
      entry: SummaryEntry;
      effective: EffectiveSummary;
      /** On the active path (actions allowed) or on another branch (all-branches view). */
      onPath: boolean;
      /** What the summary replaced. */
      summarized: EntryRange;
      /** For compactions: what stayed verbatim up to the compaction (the kept range). */
      kept: EntryRange | null;
      /** The compaction currently in effect at the leaf. */
      inEffect: boolean;
      /**
       * A compaction whose history is not in this session (an imported one that
       * opens its file, a continued session's first entry): nothing to regenerate it from.
       */
      historyMissing: boolean;
    }
  | { kind: 'model'; key: string; entry: ModelChangeEntry }
  /** Old tool output masked in the model's context; `undone` after an undo on the path. */
  | { kind: 'mask'; key: string; entry: ToolMaskEntry; undone: boolean };

function isConversation(e: SessionEntry): boolean {
  return e.type === 'message' || e.type === 'branch_summary';
}

function range(entries: SessionEntry[]): EntryRange {
  const conv = entries.filter(isConversation);
  return { entries: conv, firstId: conv[0]?.id ?? null, lastId: conv.at(-1)?.id ?? null };
}

/**
 * The compaction at `index` summarised the path from where the previous
 * compaction's kept range began (pi PR 1585: kept messages are summarised by
 * the next compaction) up to its own first kept entry. Newer entries record
 * their first summarised entry; imported ones are derived from the path.
 */
function compactionRanges(path: readonly SessionEntry[], index: number): { summarized: EntryRange; kept: EntryRange; historyMissing: boolean } {
  const c = path[index]!;
  if (c.type !== 'compaction') throw new Error('not a compaction');
  const keptAt = c.firstKeptEntryId === c.id ? index : path.findIndex((e) => e.id === c.firstKeptEntryId);
  const keptStart = keptAt >= 0 && keptAt <= index ? keptAt : index;
  let from = -1;
  if (c.details.firstSummarizedEntryId) from = path.findIndex((e) => e.id === c.details.firstSummarizedEntryId);
  if (from < 0 || from > keptStart) {
    from = 0;
    for (let i = index - 1; i >= 0; i--) {
      const prev = path[i]!;
      if (prev.type !== 'compaction') continue;
      const k = prev.firstKeptEntryId === prev.id ? i : path.findIndex((e) => e.id === prev.firstKeptEntryId);
      from = k >= 0 && k <= i ? k : i + 1;
      break;
    }
  }
  return {
    summarized: range(path.slice(from, keptStart)),
    kept: range(path.slice(keptStart, index)),
    historyMissing: regenerationProblem(path, c, index) === 'history-missing',
  };
}

function branchRange(tree: SessionTree, b: SessionEntry): EntryRange {
  if (b.type !== 'branch_summary' || !tree.has(b.fromId)) return range([]);
  const entries = b.parentId && tree.has(b.parentId) ? collectBranchEntries(tree, b.fromId, b.parentId).entries : tree.pathTo(b.fromId);
  return range(entries);
}

/**
 * The session timeline along the active path: turns (grouped between
 * summaries), compaction and branch-summary cards with what each replaced and
 * kept, and model changes. With `allBranches`, summaries on other branches are
 * appended as read-only cards.
 */
export function buildTimeline(tree: SessionTree, context: SessionContext, opts: { allBranches?: boolean } = {}): TimelineItem[] {
  const { path, summaries, keptFromIndex, compaction } = context;
  const items: TimelineItem[] = [];
  let turns: TurnInfo[] = [];
  let turnNumber = 0;
  let current: TurnInfo | null = null;

  const flushTurns = () => {
    if (current) turns.push(current);
    current = null;
    if (turns.length) items.push({ kind: 'turns', key: `turns-${turns[0]!.entries[0]!.id}`, turns });
    turns = [];
  };

  path.forEach((e, i) => {
    if (e.type === 'message') {
      const pinned = context.pinned.has(e.id);
      const inContext = i >= keptFromIndex || pinned;
      if (e.message.role === 'user' || !current) {
        if (current) turns.push(current);
        current = { number: ++turnNumber, entries: [], prompt: e.message.role === 'user' ? e : null, tokens: 0, inContext, pinned: 0 };
      }
      if (pinned) current.pinned++;
      current.entries.push(e);
      current.tokens = current.tokens !== null && e.tokens ? current.tokens + e.tokens.o200k : null;
      current.inContext ||= inContext;
      return;
    }
    if (isSummaryEntry(e)) {
      flushTurns();
      const effective = summaries.get(e.id)!;
      if (e.type === 'compaction') {
        const { summarized, kept, historyMissing } = compactionRanges(path, i);
        items.push({ kind: 'summary', key: e.id, entry: e, effective, onPath: true, summarized, kept, inEffect: compaction?.id === e.id, historyMissing });
      } else {
        items.push({ kind: 'summary', key: e.id, entry: e, effective, onPath: true, summarized: branchRange(tree, e), kept: null, inEffect: !effective.undone, historyMissing: false });
      }
      return;
    }
    if (e.type === 'model_change') {
      flushTurns();
      items.push({ kind: 'model', key: e.id, entry: e });
    }
    if (e.type === 'tool_mask') {
      flushTurns();
      items.push({ kind: 'mask', key: e.id, entry: e, undone: isMaskUndone(path, e.id) });
    }
  });
  flushTurns();

  if (opts.allBranches) {
    const onPath = new Set(path.map((e) => e.id));
    for (const e of tree.entries()) {
      if (!isSummaryEntry(e) || onPath.has(e.id)) continue;
      // Off the path, a summary is shown as it stands on its own branch (revisions there apply).
      const own = tree.pathTo(e.id);
      const effective = resolveSummaries([...own, ...tree.pathTo(tree.newestLeafUnder(e.id)).slice(own.length)]).get(e.id)!;
      const ranges = e.type === 'compaction' ? compactionRanges(own, own.length - 1) : { summarized: branchRange(tree, e), kept: null, historyMissing: false };
      items.push({ kind: 'summary', key: e.id, entry: e, effective, onPath: false, summarized: ranges.summarized, kept: ranges.kept, inEffect: false, historyMissing: ranges.historyMissing });
    }
  }
  return items;
}
