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

function firstLineEntry(n: number, text: string): string {
  return `${n}. ${FIRST_LINE_TAG} ${firstLineOf(text)}`;
}

function verbatimEntry(n: number, text: string): string {
  return `${n}.\n${quoteLines(text)}`;
}

/**
 * The section for `records` (oldest first) in at most about `budgetChars`.
 * First lines of all messages are paid for first (only if even they do not
 * fit are the oldest left out, counted); what remains makes messages
 * verbatim, newest first. Empty string when there are no messages.
 */
export function renderUserMessages(records: readonly UserMessageRecord[], budgetChars: number): string {
  if (records.length === 0) return '';
  const n = records.length;
  const header = (verbatim: number, shortened: number, omitted: number): string => {
    const parts = [`${verbatim} verbatim`];
    if (shortened) parts.push(`${shortened} by their first line only`);
    if (omitted) parts.push(`the ${omitted} oldest left out`);
    return `${USER_MESSAGES_HEADING}\n_All ${n} user message${n === 1 ? '' : 's'} of the summarised conversation, oldest first (${parts.join(', ')}); kept by the app, not paraphrased._`;
  };
  const base = header(n, n, n).length + 2;
  const lineCost = records.map((r, i) => firstLineEntry(i + 1, r.text).length + 1);
  // Not even the newest message's first line fits: a section that only says what it left out is noise.
  if (base + lineCost[n - 1]! > budgetChars) return '';
  // Oldest first out when even the first lines do not fit.
  let from = 0;
  let used = base + lineCost.reduce((a, b) => a + b, 0);
  const omitNote = 60;
  while (from < n && used + (from ? omitNote : 0) > budgetChars) used -= lineCost[from++]!;
  if (from) used += omitNote;
  const verbatim = new Set<number>();
  for (let i = n - 1; i >= from; i--) {
    const r = records[i]!;
    if (!r.full) continue;
    const extra = verbatimEntry(i + 1, r.text).length + 1 - lineCost[i]!;
    if (used + extra > budgetChars) continue;
    used += extra;
    verbatim.add(i);
  }
  const lines: string[] = [header(verbatim.size, n - from - verbatim.size, from), ''];
  if (from) lines.push(`… ${from} older user message${from === 1 ? '' : 's'} left out for space …`);
  for (let i = from; i < n; i++) lines.push(verbatim.has(i) ? verbatimEntry(i + 1, records[i]!.text) : firstLineEntry(i + 1, records[i]!.text));
  return lines.join('\n');
}

const ENTRY_FIRST = /^\d+\. \(first line only\) (.*)$/;
const ENTRY_VERBATIM = /^\d+\.$/;

/** Where the section starts and ends in `summary` (end: the next heading, divider or file footer), or null. */
function sectionBounds(summary: string): { start: number; end: number } | null {
  const at = summary.lastIndexOf(`\n${USER_MESSAGES_HEADING}\n`);
  const start = summary.startsWith(`${USER_MESSAGES_HEADING}\n`) ? 0 : at >= 0 ? at + 1 : -1;
  if (start < 0) return null;
  const rest = summary.slice(start + USER_MESSAGES_HEADING.length);
  const next = /\n(?:#{1,3} |---\n|<read-files>|<modified-files>)/.exec(rest);
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
