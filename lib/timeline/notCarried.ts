import type { ProbeKind } from '@/lib/compaction/probes/probes';
import type { MissedProbe, ProbeReport } from '@/lib/compaction/probes/report';
import type { EntryId } from '@/lib/session/types';

/**
 * A summary's "Not carried over" list as a card shows it: what the span had
 * and the summary lacks, most consequential kinds first, grouped by kind.
 * The order is what someone carrying on the work misses first: the task in
 * hand, what was being done at the cut, what was asked, then the files,
 * errors and decisions, and the names last (there are many, and one lost
 * name rarely stops the work).
 */
export const KIND_ORDER: readonly ProbeKind[] = ['lastTask', 'currentWork', 'request', 'fileModified', 'error', 'decision', 'task', 'identifier', 'assistantIdentifier', 'fileRead'];

export const KIND_TITLE: Record<ProbeKind, string> = {
  lastTask: 'Last open task',
  currentWork: 'Work at the cut',
  request: 'Requests',
  fileModified: 'Files modified',
  error: 'Errors',
  decision: 'Decisions',
  task: 'Task list',
  identifier: 'Names',
  assistantIdentifier: 'Names in the replies',
  fileRead: 'Files read',
};

/** How the summary should name a missed item when it is asked to keep it. */
const KIND_NOUN: Record<ProbeKind, string> = {
  lastTask: 'the last open task',
  currentWork: 'what was being worked on when the history was cut',
  request: 'this request of the user',
  fileModified: 'this modified file',
  error: 'this error',
  decision: 'this decision',
  task: 'this task-list item',
  identifier: 'this name',
  assistantIdentifier: 'this name',
  fileRead: 'this file that was read',
};

/** The card's list shows this many items until "Show all". */
export const TOP_ITEMS = 8;

export interface MissedItem extends MissedProbe {
  /** Unique within the report. */
  key: string;
  /** `pin`: the message it came from can be pinned here; `pinned`: it already is (the model sees it verbatim); `none`: no message to pin. */
  pin: 'pin' | 'pinned' | 'none';
}

export interface MissedGroup {
  kind: ProbeKind;
  title: string;
  items: MissedItem[];
}

export interface NotCarriedOver {
  groups: MissedGroup[];
  /** Items in the groups. */
  shown: number;
  /** Items missed in all. */
  total: number;
}

/**
 * The missed items to list: the first `top` by kind order (all with
 * `all`), grouped by kind. `canPin` says whether a message may be pinned
 * from this card (on the current path, not another branch); `pinned` holds
 * the messages already pinned on the path.
 */
export function notCarriedOver(report: ProbeReport, opts: { all?: boolean; top?: number; canPin: (id: EntryId) => boolean; pinned: ReadonlySet<EntryId> }): NotCarriedOver {
  const rank = new Map(KIND_ORDER.map((k, i) => [k, i]));
  const ordered = report.missed
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank.get(a.m.kind)! - rank.get(b.m.kind)! || a.i - b.i)
    .map(({ m, i }): MissedItem => ({ ...m, key: `${m.kind}:${i}`, pin: m.entryId === undefined || !opts.canPin(m.entryId) ? 'none' : opts.pinned.has(m.entryId) ? 'pinned' : 'pin' }));
  const chosen = opts.all ? ordered : ordered.slice(0, opts.top ?? TOP_ITEMS);
  const groups: MissedGroup[] = [];
  for (const item of chosen) {
    const last = groups.at(-1);
    if (last?.kind === item.kind) last.items.push(item);
    else groups.push({ kind: item.kind, title: KIND_TITLE[item.kind], items: [item] });
  }
  return { groups, shown: chosen.length, total: ordered.length };
}

/** "Carries 78 % of what the span had"; null when the span gave nothing to check. */
export function healthText(report: ProbeReport): string | null {
  if (report.health === null) return null;
  return `Carries ${Math.round(report.health * 100)} % of what the span had`;
}

/** Focus instructions for a re-summary that must keep this item. */
export function focusInstructions(item: Pick<MissedProbe, 'kind' | 'label'>): string {
  return `Keep ${KIND_NOUN[item.kind]} in the summary, naming it exactly as written: “${item.label}”.`;
}
