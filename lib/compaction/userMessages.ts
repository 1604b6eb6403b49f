import { describeImage } from './serialize';
import type { SummaryItem } from './types';

/**
 * The user's own words survive every summary (issue 17, item 8). A summary,
 * whoever wrote it, ends with a "User messages" section the app assembles
 * itself: every user message of what was summarised, oldest first, verbatim
 * while the budget lasts (the newest get it first: they hold the task in
 * hand) and by their first line beyond it. Built here rather than asked of the
 * model because a model paraphrases, drops and merges, and because copying
 * the messages would spend its output budget on text we already have.
 *
 * The section is plain markdown a reader can follow, and one this module can
 * read back: the next compaction merges the earlier section with the newly
 * summarised messages, so the first request is still there after ten cycles.
 *
 *   ## User messages
 *   _…one line saying how many are verbatim…_
 *
 *   1. (first line only) Fix the login form
 *   2.
 *   > the verbatim text,
 *   > every line quoted
 */

const USER_MESSAGES_HEADING = '## User messages';

/** Marks an entry shown by its first line only. */
const FIRST_LINE_TAG = '(first line only)';
/** First lines are cut to this many characters. */
const FIRST_LINE_MAX = 200;

/**
 * Characters of user messages a summary may carry: Codex keeps ~20k tokens;
 * never more than about a third of the span. A compaction also caps the
 * section by its share of the output budget (summaryBudget.ts).
 */
export function userMessagesBudgetChars(spanTokens: number): number {
  return Math.max(0, Math.min(60_000, Math.floor(spanTokens * 1.2)));
}

export interface UserMessageRecord {
  text: string;
  /** False when only the first line is known (an earlier summary had already shortened it). */
  full: boolean;
  /** An earlier summary left this message out for space: it is counted, never shown again. */
  leftOut?: boolean;
}

/** A user message as text: its text parts, images and files as markers. Null when it has nothing to show. */
export function userMessageText(item: SummaryItem): string | null {
  if (item.kind !== 'message' || item.message.role !== 'user') return null;
  const parts: string[] = [];
  for (const p of item.message.content) {
    if (p.type === 'text') parts.push(p.text);
    else if (p.type === 'image') parts.push(describeImage(p));
    else parts.push(`[file: ${p.name}]`);
  }
  const t = parts.join('\n').trim();
  return t || null;
}

export function userMessagesOf(items: readonly SummaryItem[]): UserMessageRecord[] {
  const out: UserMessageRecord[] = [];
  for (const it of items) {
    const text = userMessageText(it);
    if (text !== null) out.push({ text, full: true });
  }
  return out;
}

/** The first non-empty line, cut to FIRST_LINE_MAX. */
export function firstLineOf(text: string, max = FIRST_LINE_MAX): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function quoteLines(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

function firstLineEntry(n: number, text: string, max = FIRST_LINE_MAX): string {
  return `${n}. ${FIRST_LINE_TAG} ${firstLineOf(text, max)}`;
}

function verbatimEntry(n: number, text: string): string {
  return `${n}.\n${quoteLines(text)}`;
}

/** First lines are cut shorter before any message is left out: the start of every request says more than all of a few. */
const FIRST_LINE_STEPS = [FIRST_LINE_MAX, 140, 100] as const;

/**
 * The section for `records` (oldest first) in at most about `budgetChars`.
 * First lines of all messages are paid for first, cut shorter when they do
 * not fit; only if even that is too much are messages left out, from the
 * second oldest on: the first request is the goal of the whole conversation
 * and stays. Messages an earlier summary left out stay out, and are still
 * counted. What remains makes messages verbatim, newest first. Empty string
 * when there are no messages.
 */
export function renderUserMessages(records: readonly UserMessageRecord[], budgetChars: number): string {
  if (records.length === 0) return '';
  const n = records.length;
  const header = (verbatim: number, shortened: number, omitted: number): string => {
    const parts = [`${verbatim} verbatim`];
    if (shortened) parts.push(`${shortened} by their first line only`);
    if (omitted) parts.push(`${omitted} left out`);
    return `${USER_MESSAGES_HEADING}\n_All ${n} user message${n === 1 ? '' : 's'} of the summarised conversation, oldest first (${parts.join(', ')}); kept by the app, not paraphrased._`;
  };
  const gapNote = (k: number) => `… ${k} user message${k === 1 ? '' : 's'} left out for space …`;
  const base = header(n, n, n).length + 2;
  const omitted = new Set<number>(records.flatMap((r, i) => (r.leftOut ? [i] : [])));
  const shown = (i: number) => !omitted.has(i);
  let width: number = FIRST_LINE_STEPS[0];
  const lineCost = (i: number) => firstLineEntry(i + 1, records[i]!.text, width).length + 1;
  /** The section's size with first lines only: every shown message, and one note per run of left-out ones. */
  const total = () => {
    let t = base;
    for (let i = 0; i < n; i++) {
      if (shown(i)) t += lineCost(i);
      else if (i === 0 || shown(i - 1)) {
        let k = 0;
        while (i + k < n && !shown(i + k)) k++;
        t += gapNote(k).length + 1;
      }
    }
    return t;
  };
  for (const w of FIRST_LINE_STEPS) {
    width = w;
    if (total() <= budgetChars) break;
  }
  // Left out from the second oldest on when even the shortened first lines do not fit; the first goes only if it must.
  for (let i = 1; i < n - 1 && total() > budgetChars; i++) omitted.add(i);
  if (total() > budgetChars && n > 1) omitted.add(0);
  // Not even the newest message's first line fits: a section that only says what it left out is noise.
  if (total() > budgetChars) return '';
  let used = total();
  const verbatim = new Set<number>();
  for (let i = n - 1; i >= 0; i--) {
    const r = records[i]!;
    if (!r.full || omitted.has(i)) continue;
    const extra = verbatimEntry(i + 1, r.text).length + 1 - lineCost(i);
    if (used + extra > budgetChars) continue;
    used += extra;
    verbatim.add(i);
  }
  const lines: string[] = [header(verbatim.size, n - omitted.size - verbatim.size, omitted.size), ''];
  for (let i = 0; i < n; i++) {
    if (omitted.has(i)) {
      if (i === 0 || !omitted.has(i - 1)) {
        let k = 0;
        while (omitted.has(i + k)) k++;
        lines.push(gapNote(k));
      }
      continue;
    }
    lines.push(verbatim.has(i) ? verbatimEntry(i + 1, records[i]!.text) : firstLineEntry(i + 1, records[i]!.text, width));
  }
  return lines.join('\n');
}

const ENTRY_FIRST = /^\d+\. \(first line only\) (.*)$/;
const LEFT_OUT = /^… (\d+) (?:older )?user messages? left out for space …$/;
const ENTRY_VERBATIM = /^\d+\.$/;

/** Where the section starts and ends in `summary` (end: the next heading, divider or file footer), or null. */
function sectionBounds(summary: string): { start: number; end: number } | null {
  const at = summary.lastIndexOf(`\n${USER_MESSAGES_HEADING}\n`);
  const start = summary.startsWith(`${USER_MESSAGES_HEADING}\n`) ? 0 : at >= 0 ? at + 1 : -1;
  if (start < 0) return null;
  const rest = summary.slice(start + USER_MESSAGES_HEADING.length);
  const next = /\n(?:#{1,3} |---\n|<read-files[ >]|<modified-files[ >])/.exec(rest);
  return { start, end: next ? start + USER_MESSAGES_HEADING.length + next.index + 1 : summary.length };
}

/** The user messages an earlier summary carried (oldest first), and the summary without that section. */
export function splitUserMessages(summary: string): { records: UserMessageRecord[]; rest: string } {
  const b = sectionBounds(summary);
  if (!b) return { records: [], rest: summary };
  const records: UserMessageRecord[] = [];
  let current: string[] | null = null;
  const flush = () => {
    if (current) records.push({ text: current.join('\n'), full: true });
    current = null;
  };
  for (const line of summary.slice(b.start, b.end).split('\n').slice(1)) {
    const gap = LEFT_OUT.exec(line);
    if (gap) {
      flush();
      for (let k = Number(gap[1]); k > 0; k--) records.push({ text: '', full: false, leftOut: true });
      continue;
    }
    const first = ENTRY_FIRST.exec(line);
    if (first) {
      flush();
      records.push({ text: first[1]!, full: false });
    } else if (ENTRY_VERBATIM.test(line)) {
      flush();
      current = [];
    } else if (current && (line === '>' || line.startsWith('> '))) {
      current.push(line.slice(2));
    } else flush();
  }
  flush();
  const rest = (summary.slice(0, b.start).trimEnd() + '\n\n' + summary.slice(b.end).trimStart()).trim();
  return { records, rest };
}

/** The earlier section's messages followed by the newly summarised ones. */
export function mergedUserMessages(previousSummary: string | null | undefined, items: readonly SummaryItem[]): UserMessageRecord[] {
  const earlier = previousSummary ? splitUserMessages(previousSummary).records : [];
  return [...earlier, ...userMessagesOf(items)];
}

/** `body` with its own user-messages section (if any) replaced by `section`. */
export function withUserMessages(body: string, section: string): string {
  const rest = splitUserMessages(body).rest.trimEnd();
  if (!section) return rest;
  return rest ? `${rest}\n\n${section}` : section;
}
