import { messageText } from '@/lib/session/messages';
import type { AssistantMessage, SummaryFallback } from '@/lib/session/types';
import { stripFileFooter, withFileFooter } from './fileOps';
import { truncateMiddle } from './serialize';
import { FLAW_TEXT } from './summaryCheck';
import { commonCd, gatherFacts, quote, type Facts } from './transcriptFacts';
import type { FileLists, SummaryItem } from './types';
import { mergedUserMessages, renderUserMessages, splitUserMessages, userMessageText, type UserMessageRecord } from './userMessages';

/**
 * The summary used when no model is configured, and in place of a model
 * summary that was rejected: no LLM, nothing invented. It spends its budget on
 * what a model most needs to continue, in sections derived from the messages
 * alone: the first request as the goal, the latest requests as next steps,
 * the files touched, the commands run with their outcome, the distinct errors
 * (their actual message, not "exit code 1"), the last reply (marked when it
 * was cut off), the earlier summary, and every user message (verbatim while
 * the budget lasts, newest first; then by first line). The user messages of
 * an earlier summary are merged in, so the first request survives every cycle.
 */

export const EXTRACTIVE_LABEL = '**Extractive summary — no model.** Assembled from the messages themselves; nothing was paraphrased or inferred.';

/** The label of an extractive summary that stands in for a rejected model summary: says which model, and why. */
export function fallbackLabel(f: SummaryFallback): string {
  const tries = `${f.attempts} attempt${f.attempts === 1 ? '' : 's'}`;
  return `**Extractive summary — fallback.** The summary of ${f.model} was not used: ${FLAW_TEXT[f.reason]} (${tries}). Assembled from the messages themselves; nothing was paraphrased or inferred.`;
}

/** Either label, at the start of a summary. */
const LABEL_RE = /^\*\*Extractive summary — [^*\n]*\*\*[^\n]*\n*/;

export interface ExtractiveInput {
  kind: 'compaction' | 'branch';
  items: readonly SummaryItem[];
  /** Split turn: the prefix of the turn the kept messages continue. */
  turnPrefix?: readonly SummaryItem[];
  previousSummary?: string | null;
  fileOps: FileLists;
}

export interface ExtractiveOptions {
  /** Upper bound of the summary body (the file footer comes on top). Default 24 000 characters (~6k tokens). */
  maxChars?: number;
  /** Set when this summary replaces a rejected model summary: the label says so. */
  fallback?: SummaryFallback;
}

/** Share of the budget each section may use at most; the user messages get the rest (at least a third). */
const SHARE = { goal: 0.06, next: 0.1, files: 0.05, commands: 0.1, errors: 0.1, last: 0.08, earlier: 0.18 } as const;

/** Sentence ends, closing brackets and quotes, code fences and list-ish endings count as a finished reply. */
const FINISHED_END = /(?:[.!?:;)\]}>"'`*_…]|```|\d)$/;

/** A reply quoted in the summary, marked when it did not finish (output limit, interruption, or a sentence broken off). */
function quotedReply(m: AssistantMessage, max: number): string {
  const text = messageText(m).trim();
  const quoted = quote(truncateMiddle(text, max));
  if (m.stopReason === 'length') return `${quoted}\n_(this reply was cut off at the output limit)_`;
  if (m.stopReason === 'aborted' || m.stopReason === 'interrupted') return `${quoted}\n_(this reply was interrupted before it finished)_`;
  if (!FINISHED_END.test(text)) return `${quoted}\n_(this reply ends mid-sentence)_`;
  return quoted;
}

/** Items of a list, newest last, as many as fit `max` characters (the oldest are counted as left out). */
function fitList(lines: readonly string[], max: number, what: string): string[] {
  const out: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (used + l.length + 1 > max && out.length > 0) {
      out.unshift(`- … ${i + 1} earlier ${what} left out for space`);
      break;
    }
    out.unshift(l);
    used += l.length + 1;
  }
  return out;
}

function times(n: number): string {
  return n > 1 ? ` (×${n})` : '';
}

function filesSection(f: Facts, max: number): string[] {
  if (f.modified.size === 0 && f.read.size === 0) return [];
  const list = (m: Map<string, number>) => [...m.entries()].map(([p, n]) => `\`${p}\`${times(n)}`).join(', ');
  const lines = ['## Files touched here'];
  if (f.modified.size) lines.push(truncateMiddle(`Modified: ${list(f.modified)}`, Math.floor(max * 0.6), 'of the list cut'));
  const readOnly = new Map([...f.read].filter(([p]) => !f.modified.has(p)));
  if (readOnly.size) lines.push(truncateMiddle(`Read: ${list(readOnly)}`, Math.floor(max * 0.4), 'of the list cut'));
  lines.push('(Every file touched so far is listed at the end.)');
  return lines;
}

/** The earlier summary without what this one rebuilds (label, goal, user messages), headings one level down. */
function earlierBody(previous: string): string {
  let body = splitUserMessages(stripFileFooter(previous)).rest;
  const wasExtractive = LABEL_RE.test(body);
  body = body.replace(LABEL_RE, '');
  if (wasExtractive) body = body.replace(/^## Goal[^\n]*\n[\s\S]*?(?=^## |$(?![\s\S]))/m, '');
  return body.trim().replace(/^(#{1,5}) /gm, '$1# ');
}

/**
 * Lays the summary out with each section at its share of the budget times
 * `scale`. The shares are what a section may take when every section is
 * full; a span with few user messages leaves room, so the layout is tried at
 * growing scales and the largest one that fits is used: the budget is spent,
 * not left idle.
 */
function describe(input: ExtractiveInput, records: readonly UserMessageRecord[], opts: Required<Pick<ExtractiveOptions, 'maxChars'>> & ExtractiveOptions): string {
  const max = opts.maxChars;
  const label = opts.fallback ? fallbackLabel(opts.fallback) : EXTRACTIVE_LABEL;
  const f = gatherFacts([...input.items, ...(input.turnPrefix ?? [])]);
  let body = layout(input, records, f, opts, label, 1);
  // The user messages come first: they get what the sections leave at their base shares, and keep it.
  const users = renderUserMessages(records, max - body.length - 2);
  const room = max - (users ? users.length + 2 : 0);
  for (const scale of [1.5, 2.25, 3.5, 5]) {
    if (body.length >= room * 0.95) break;
    const next = layout(input, records, f, opts, label, scale);
    // A larger share can shorten the text (a request no longer cut loses the cut's marker): only the same layout again means nothing more to gain.
    if (next.length > room || next === body) break;
    body = next;
  }
  const out = users ? `${body}\n\n${users}` : body;
  if (out.length <= max) return out;
  // A budget too small for the sections: their middle goes, the label stays.
  return `${label}\n\n${truncateWithin(out.slice(label.length).trim(), max - label.length - 2, 'of the extractive summary cut for space')}`;
}

/**
 * truncateMiddle with its marker counted: at most `max` characters in all,
 * because maxChars is a bound the compaction's size estimate relies on.
 */
function truncateWithin(text: string, max: number, why: string): string {
  let keep = Math.max(0, max);
  for (;;) {
    const t = truncateMiddle(text, keep, why);
    if (t.length <= max || keep === 0) return t;
    keep = Math.max(0, keep - (t.length - max));
  }
}

function layout(input: ExtractiveInput, records: readonly UserMessageRecord[], f: Facts, opts: Required<Pick<ExtractiveOptions, 'maxChars'>> & ExtractiveOptions, label: string, scale: number): string {
  const max = opts.maxChars;
  const share = (k: keyof typeof SHARE) => Math.floor(max * SHARE[k] * scale);
  const prefix = input.turnPrefix ?? [];
  const all = [...input.items, ...prefix];
  const toolList = [...f.tools.entries()].sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} ×${c}`).join(', ');
  const what = input.kind === 'branch' ? 'This abandoned branch' : 'The summarised part';
  const sections: string[][] = [
    [label, '', `${what}: ${all.length} item${all.length === 1 ? '' : 's'} (${f.users} user, ${f.assistants} assistant, ${f.results} tool result${f.results === 1 ? '' : 's'}${toolList ? `; tools: ${toolList}` : ''}).`],
  ];

  const goal = records[0];
  if (goal) {
    const text = goal.full ? quote(truncateMiddle(goal.text, share('goal'))) : `> ${goal.text} _(first line only)_`;
    sections.push([input.kind === 'branch' ? '## Goal (the first request on this branch)' : '## Goal (the first request)', text]);
  }

  // The newest requests are what the kept messages are working on; a split turn's opener certainly is.
  const opener = prefix.length ? userMessageText(prefix[0]!) : null;
  const latest = userMessagesSpan(input.items).slice(-3);
  if (opener || latest.length) {
    const lines = [input.kind === 'branch' ? '## Last requests on this branch' : '## Next steps (the latest requests; the kept messages show how far they got)'];
    const each = Math.floor(share('next') / Math.max(1, latest.length + (opener ? 1 : 0)));
    for (const t of latest) lines.push(quote(truncateMiddle(t, each)), '');
    if (opener) lines.push('The kept messages continue a turn that began with:', quote(truncateMiddle(opener, each)));
    if (lines[lines.length - 1] === '') lines.pop();
    sections.push(lines);
  }

  const files = filesSection(f, share('files'));
  if (files.length) sections.push(files);

  if (f.commands.size) {
    // A command that failed before its latest run says so: the failures are often what the work was about.
    const earlier = (c: { outcome: string; failures: number; lastFailure: string | null }) =>
      c.outcome === 'ok' && c.failures > 0 ? `; failed ${c.failures}× before, last: ${c.lastFailure}` : '';
    const cmds = [...f.commands.values()];
    const dir = commonCd(cmds.map((c) => c.text));
    const strip = (t: string) => (dir && t.startsWith(`cd ${dir} && `) ? t.slice(dir.length + 7) : t);
    const lines = cmds.map((c) => `- \`${strip(c.text)}\`${times(c.count)} → ${c.outcome}${earlier(c)}`);
    sections.push([`## Commands run (latest outcome${dir ? `; in \`${dir}\` unless they say otherwise` : ''})`, ...fitList(lines, share('commands'), 'commands')]);
  }
  if (f.errors.size) {
    const lines = [...f.errors.values()].map((e) => `- ${e.text}${times(e.count)}`);
    sections.push(['## Errors seen (each distinct error once)', ...fitList(lines, share('errors'), 'errors')]);
  }
  if (f.summaries.length) sections.push(['## Summaries inside this part', ...f.summaries]);
  if (f.lastReply) sections.push(['## Last state (the last assistant reply summarised here)', quotedReply(f.lastReply, share('last'))]);

  const previous = input.previousSummary ? earlierBody(input.previousSummary) : '';
  if (previous) sections.push(['## Earlier summary', truncateMiddle(previous, share('earlier'), 'of the earlier summary cut')]);

  return sections.map((s) => s.join('\n')).join('\n\n');
}

/** User message texts of the span itself (not of an earlier summary), oldest first. */
function userMessagesSpan(items: readonly SummaryItem[]): string[] {
  const out: string[] = [];
  for (const it of items) {
    const t = userMessageText(it);
    if (t !== null) out.push(t);
  }
  return out;
}

/** Below this a summary is its label and little else; spans that small are not worth compacting (the caller's verdict refuses what does not shrink). */
const MIN_EXTRACTIVE_CHARS = 1200;

/**
 * The extractive summary's size bound: the model's output budget at a
 * conservative 3 characters per token, at most 24 000 characters (~6k
 * tokens), and never more than half the span it replaces (at ~4 characters
 * per token, 2 characters per span token), so it cannot grow the context.
 */
export function extractiveBudgetChars(outputBudgetTokens: number, spanTokens: number): number {
  const bound = Math.min(24_000, outputBudgetTokens * 3);
  return spanTokens > 0 ? Math.max(MIN_EXTRACTIVE_CHARS, Math.min(bound, spanTokens * 2)) : bound;
}

/** Builds the extractive summary text (file footer included). */
export function extractiveSummary(input: ExtractiveInput, options: ExtractiveOptions = {}): string {
  const opts = { ...options, maxChars: options.maxChars ?? 24_000 };
  const records = mergedUserMessages(input.previousSummary, [...input.items, ...(input.turnPrefix ?? [])]);
  return withFileFooter(describe(input, records, opts), input.fileOps);
}
