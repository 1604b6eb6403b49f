import { messageText } from '@/lib/session/messages';
import type { AssistantMessage, SummaryFallback } from '@/lib/session/types';
import { commonRoot, stripFileFooter, withFileFooter } from './fileOps';
import { REACTION, assistantSentences, clipSentence, codeNames, nameCounts, pickSentences, type Sentence } from './proseDigest';
import { truncateMiddle } from './serialize';
import { FLAW_TEXT } from './summaryCheck';
import { commonCd, gatherFacts, quote, type Facts } from './transcriptFacts';
import type { FileLists, SummaryItem } from './types';
import { mergedUserMessages, renderUserMessages, splitUserMessages, userMessageText, type UserMessageRecord } from './userMessages';

/**
 * The summary used when no model is configured, and in place of a model
 * summary that was rejected: no LLM, nothing invented, every line taken from
 * the messages. It keeps what a model needs to carry on, in this order:
 *
 *   - Current work: the latest request, the assistant's last substantive
 *     words and its last steps (what it was doing when the history was cut);
 *   - Task list: the latest todo or plan a tool call wrote, with statuses;
 *   - What was worked out: the assistant's own sentences that carry the names
 *     it discovered, findings, causes and decisions (proseDigest.ts);
 *   - Errors and fixes: each distinct error by its actual line, whether a
 *     later attempt succeeded, and the assistant's explanation after it;
 *   - Commands that changed something or failed (reads and searches are not
 *     news: their findings are in the sentences);
 *   - Other names in play: names used more than once that no line above
 *     mentions;
 *   - the earlier summary, and every user message (userMessages.ts), merged
 *     across compactions so the first request survives every cycle.
 *
 * Files are listed once, in the footer every summary ends with. The size is
 * what the span deserves (about what an agent's own summary takes), not all
 * the room there is: a summary is read again on every request.
 */

export const EXTRACTIVE_LABEL = '**Extractive summary — no model.** Taken from the messages themselves; nothing was paraphrased or inferred.';

/** The label of an extractive summary that stands in for a rejected model summary: says which model, and why. */
export function fallbackLabel(f: SummaryFallback): string {
  const tries = `${f.attempts} attempt${f.attempts === 1 ? '' : 's'}`;
  return `**Extractive summary — fallback.** The summary of ${f.model} was not used: ${FLAW_TEXT[f.reason]} (${tries}). Taken from the messages themselves; nothing was paraphrased or inferred.`;
}

/** Either label (and the older wording), at the start of a summary. */
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
  /** Upper bound of the summary without its file footer. Default 24 000 characters (~6k tokens). */
  maxChars?: number;
  /** Set when this summary replaces a rejected model summary: the label says so. */
  fallback?: SummaryFallback;
  /** Tokens of what the summary replaces, as the context counts them; without it, a quarter of the span's characters. */
  spanTokens?: number;
}

/** A section that renders itself into at most `budget` characters (its heading included), or '' when it has nothing to say. */
interface Section {
  /** Share of the body budget it starts with. */
  share: number;
  render: (budget: number) => string;
}

/** Commands worth reporting although they succeeded: they changed something, or they are the checks whose verdict is the state of the work. */
const STATE_CHANGING =
  /(?:^|&&|;|\|)\s*(?:git (?:commit|push|tag|merge|rebase|checkout -b|switch -c|reset|revert|cherry-pick|stash|rm|mv|apply|am|pull)|(?:npm|pnpm|yarn|bun) (?:install|i|add|remove|uninstall|publish|version|run (?:build|release|publish|version\S*|deploy|migrate\S*|check|test\S*|lint|typecheck))|(?:npm|pnpm|yarn|bun) (?:test|run-script)|npx (?:tsc|vitest|jest|playwright|eslint|prettier --write)|pip install|poetry (?:add|install)|cargo (?:add|build|test|publish)|go (?:build|test|get|mod)|make\b|pytest|rm |mv |cp |mkdir |touch |chmod |ln -s|sed -i|tee |patch |docker (?:build|run|push|compose)|kubectl (?:apply|delete)|gh (?:issue|pr|release) (?:create|comment|close|merge|edit)|curl -X ?(?:POST|PUT|PATCH|DELETE)|terraform (?:apply|destroy))/;

function times(n: number): string {
  return n > 1 ? ` (×${n})` : '';
}

/** Lines of a list, as many as fit `max` characters, newest kept; the oldest are counted as left out. */
function fitNewest(lines: readonly string[], max: number, what: string): string[] {
  const out: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (used + l.length + 1 > max) {
      if (out.length) out.unshift(`- … ${i + 1} earlier ${what} left out`);
      break;
    }
    out.unshift(l);
    used += l.length + 1;
  }
  return out;
}

function withHeading(heading: string, lines: readonly string[]): string {
  return lines.length ? [heading, ...lines].join('\n') : '';
}

/** Sentence ends, closing brackets and quotes, code fences and list-ish endings count as a finished reply. */
const FINISHED_END = /(?:[.!?:;)\]}>"'`*_…]|```|\d)$/;

function replyNote(m: AssistantMessage, text: string): string {
  if (m.stopReason === 'length') return '\n_(this reply was cut off at the output limit)_';
  if (m.stopReason === 'aborted' || m.stopReason === 'interrupted') return '\n_(this reply was interrupted before it finished)_';
  return FINISHED_END.test(text) ? '' : '\n_(this reply ends mid-sentence)_';
}

/** Replies that only announce the next step ("Now update the docs:") say nothing about where the work stood. */
const ANNOUNCEMENT = /^(?:(?:now|next|first|then|ok(?:ay)?|alright|great|perfect|good)[,!.]?\s+)*(?:let me|let's|i'll|i will|now i|time to)\b[^\n]{0,160}$/i;

/**
 * The last assistant reply that says something (by its end, where replies
 * conclude), and the short announcements after it: "Now update the docs:" is
 * no state of the work, but it names what was being done when the history
 * was cut.
 */
function lastSubstantive(items: readonly SummaryItem[]): { message: AssistantMessage; text: string; after: string[] } | null {
  const after: string[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    if (it.kind !== 'message' || it.message.role !== 'assistant') continue;
    const text = messageText(it.message).trim();
    if (!text) continue;
    if (ANNOUNCEMENT.test(text) || REACTION.test(text) || (text.length < 200 && text.endsWith(':'))) {
      if (after.length < 3 && !REACTION.test(text)) after.unshift(clipSentence(text.replace(/\s+/g, ' '), 160));
      continue;
    }
    return { message: it.message, text, after };
  }
  return null;
}

/** Text cut to `max` characters at a line or word boundary, head kept (a request says what it wants first), marked when cut. */
function head(text: string, max: number): string {
  if (text.length <= max) return text;
  const slice = text.slice(0, Math.max(0, max - 2));
  const at = Math.max(slice.lastIndexOf('\n'), slice.lastIndexOf(' '));
  return `${(at > max * 0.6 ? slice.slice(0, at) : slice).trimEnd()} …`;
}

/** A reply's prose with code blocks as one-line markers: the prose says where things stood; the code is one click away. */
function proseOfReply(text: string): string {
  return text.replace(/```[\s\S]*?(?:```|$)/g, (block) => `[code, ${block.split('\n').length - 2} lines]`).replace(/\n{3,}/g, '\n\n').trim();
}

function currentWork(input: ExtractiveInput, f: Facts): Section {
  const prefix = input.turnPrefix ?? [];
  const all = [...input.items, ...prefix];
  const requests = all.map(userMessageText).filter((t): t is string => t !== null);
  const latest = requests[requests.length - 1] ?? null;
  const reply = lastSubstantive(all);
  const branch = input.kind === 'branch';
  return {
    share: 0.24,
    render(budget) {
      const heading = branch ? '## Where this branch stood' : '## Current work (where the summarised part ends)';
      if (latest === null && !reply && !f.lastSteps.length) return '';
      let room = budget - heading.length - 1;
      const parts: string[] = [heading];
      // Paths under the footer's root and commands in the usual directory are written short, as the footer writes them.
      const root = commonRoot([...input.fileOps.readFiles, ...input.fileOps.modifiedFiles]);
      const dir = commonCd([...f.commands.values()].map((c) => c.text));
      const short = (st: string) => {
        let t = root ? st.split(`${root}/`).join('') : st;
        if (dir) t = t.split(`cd ${dir} && `).join('');
        return head(t, 80);
      };
      const steps = f.lastSteps.length ? `Last steps: ${f.lastSteps.map(short).join(' → ')}` : '';
      const then = reply?.after.length ? `Then: ${reply.after.map((a) => `“${head(a, 120)}”`).join(' ')}` : '';
      // The steps and the closing words are short and say what was in hand; the request and the reply share what is left.
      for (const line of [steps, then]) if (line && line.length + 1 <= budget * 0.5) room -= line.length + 1;
      if (latest !== null) {
        const intro = prefix.length && !branch ? 'The kept messages continue the turn of this request:' : 'Latest request:';
        const text = quote(head(latest, Math.max(100, Math.floor(room * (reply ? 0.4 : 1)) - intro.length - 4)));
        parts.push(intro, text);
        room -= intro.length + text.length + 2;
      }
      if (reply && room > 120) {
        const intro = 'The assistant’s last substantive reply:';
        const prose = proseOfReply(reply.text);
        parts.push(intro, quote(head(prose, room - intro.length - 50)) + replyNote(reply.message, reply.text));
      }
      if (then && then.length + 1 <= budget * 0.5) parts.push(then);
      if (steps && steps.length + 1 <= budget * 0.5) parts.push(steps);
      const text = parts.join('\n');
      return parts.length > 1 && text.length <= budget ? text : parts.length > 1 ? head(text, budget) : '';
    },
  };
}

/**
 * The latest todo or plan list, in its own order. When it does not fit, open
 * items (in progress, then to do) are kept before finished ones: what remains
 * to be done is what the next model must not lose.
 */
function taskList(f: Facts): Section {
  return {
    share: 0.14,
    render(budget) {
      if (!f.todos) return '';
      const heading = '## Task list (the latest todo/plan; [x] done, [~] in progress)';
      const done = (st: string) => /complete|done/i.test(st);
      const mark = (st: string) => (done(st) ? '[x]' : /progress|active|doing/i.test(st) ? '[~]' : '[ ]');
      // Finished items are named shortly; open ones get the room to say what they are.
      const items = f.todos.map((t, i) => ({ i, line: `- ${mark(t.status)} ${clipSentence(t.text, done(t.status) ? 50 : 80)}`, rank: mark(t.status) === '[~]' ? 0 : done(t.status) ? 2 : 1 }));
      const kept = new Set<number>();
      let used = heading.length + 1;
      for (const it of [...items].sort((a, b) => a.rank - b.rank || (a.rank === 2 ? b.i - a.i : a.i - b.i))) {
        if (used + it.line.length + 1 > budget - 40) continue;
        kept.add(it.i);
        used += it.line.length + 1;
      }
      if (!kept.size) return '';
      const left = items.length - kept.size;
      const lines = items.filter((it) => kept.has(it.i)).map((it) => it.line);
      if (left) lines.push(`- … ${left} more item${left === 1 ? '' : 's'} left out`);
      return withHeading(heading, lines);
    },
  };
}

interface ProseSection extends Section {
  /** Lower-cased names of the sentences the latest render picked. */
  said: Set<string>;
}

function workedOut(sentences: readonly Sentence[], counts: ReadonlyMap<string, number>, covered: ReadonlySet<string>, kind: ExtractiveInput['kind']): ProseSection {
  const section: ProseSection = {
    share: 0.3,
    said: new Set(),
    render(budget) {
      const heading = kind === 'branch' ? '## What was worked out on this branch (the assistant’s words)' : '## What was worked out (the assistant’s own words, in order)';
      const picked = pickSentences(sentences, counts, budget - heading.length - 2, new Set(covered));
      section.said = new Set(picked.flatMap((s) => s.names.map((n) => n.toLowerCase())));
      return withHeading(heading, picked.map((s) => `- ${clipSentence(s.text)}`));
    },
  };
  return section;
}

/**
 * Errors grouped by what failed (a command, or a tool on a file): one line per
 * group with its distinct error lines, what became of it, and the
 * assistant's explanation. A build that fails with five type errors is one
 * story, not five.
 */
function errorsAndFixes(f: Facts): Section {
  return {
    share: 0.16,
    render(budget) {
      const bare = (t: string) => /^(?:\(no output\)[,\s]*)?(?:command )?exit(?:ed)?(?: with)? (?:code|status)/i.test(t);
      const groups = new Map<string, { tool: string; subject: string | null; lines: string[]; count: number; fixed: boolean | null; note: string | null; named: boolean }>();
      for (const e of f.errorFacts) {
        const key = `${e.tool}\u0000${e.subject ?? ''}`;
        const g = groups.get(key) ?? { tool: e.tool, subject: e.subject, lines: [], count: 0, fixed: null, note: null, named: false };
        groups.delete(key);
        if (!g.lines.includes(e.text)) g.lines.push(e.text);
        g.count += e.count;
        g.fixed = g.fixed === true || e.fixed === true ? true : e.fixed ?? g.fixed;
        g.note = e.note ?? g.note;
        g.named ||= !bare(e.text);
        groups.set(key, g);
      }
      // Errors that say what went wrong are kept before bare exit codes; the newest of each last (kept first).
      const ordered = [...[...groups.values()].filter((g) => !g.named), ...[...groups.values()].filter((g) => g.named)];
      const lines = ordered.map((g) => {
        const where = g.subject ? ` \`${head(g.subject, 80)}\`` : '';
        const fate = g.fixed === true ? ' → later succeeded' : g.fixed === false ? ' → no later success here' : '';
        const shown = g.lines.slice(-4).map((l) => clipSentence(l, 120));
        const more = g.lines.length > 4 ? ` (+${g.lines.length - 4} more)` : '';
        const note = g.note ? `\n  - then: ${clipSentence(g.note, 160)}` : '';
        return `- ${g.tool}${where}: ${shown.join(' | ')}${more}${times(g.count)}${fate}${note}`;
      });
      return withHeading('## Errors and what became of them', fitNewest(lines, budget - 40, 'errors'));
    },
  };
}

function commands(f: Facts): Section {
  return {
    share: 0.08,
    render(budget) {
      const all = [...f.commands.values()];
      // Failures last so they are kept first: a failing command at the cut is the state of the work.
      const cmds = [...all.filter((c) => c.outcome === 'ok' && STATE_CHANGING.test(c.text)), ...all.filter((c) => c.outcome !== 'ok')];
      if (!cmds.length) return '';
      const dir = commonCd([...f.commands.values()].map((c) => c.text));
      const strip = (t: string) => (dir && t.startsWith(`cd ${dir} && `) ? t.slice(dir.length + 7) : t);
      const lines = cmds.map((c) => {
        const before = c.outcome === 'ok' && c.failures > 0 ? ` (failed ${c.failures}× before${c.lastFailure ? `: ${clipSentence(c.lastFailure, 140)}` : ''})` : '';
        return `- \`${strip(c.text)}\`${times(c.count)} → ${c.outcome === 'ok' ? 'ok' : clipSentence(c.outcome, 160)}${before}`;
      });
      const heading = `## Commands that changed something or failed (latest outcome${dir ? `; in \`${dir}\`` : ''})`;
      return withHeading(heading, fitNewest(lines, budget - heading.length - 1, 'commands'));
    },
  };
}

/** Names the conversation used more than once (then once) that nothing above mentions, most used first. */
function otherNames(counts: ReadonlyMap<string, number>, spelled: ReadonlyMap<string, string>, covered: ReadonlySet<string>, prose: ProseSection, fileNames: ReadonlySet<string>): Section {
  return {
    share: 0.08,
    render(budget) {
      const heading = '## Other names in play (most used first)';
      const names = [...counts.entries()]
        .filter(([k]) => !covered.has(k) && !prose.said.has(k) && !fileNames.has(k) && k.length >= 3)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([k, n]) => `\`${spelled.get(k) ?? k}\`${n > 1 ? ` ×${n}` : ''}`);
      const out: string[] = [];
      let used = heading.length + 1;
      for (const n of names) {
        if (used + n.length + 2 > budget) break;
        out.push(n);
        used += n.length + 2;
      }
      return out.length ? `${heading}\n${out.join(', ')}` : '';
    },
  };
}

/** The earlier summary without what this one rebuilds (label, user messages, file lists), headings one level down. */
function earlierBody(previous: string): string {
  return splitUserMessages(stripFileFooter(previous))
    .rest.replace(LABEL_RE, '')
    .trim()
    .replace(/^(#{1,5}) /gm, '$1# ');
}

function earlier(previous: string | null | undefined): Section {
  const body = previous ? earlierBody(previous) : '';
  return {
    share: 0.22,
    render: (budget) => (body ? `## Earlier summary\n${truncateMiddle(body, Math.max(0, budget - 20), 'of the earlier summary cut')}` : ''),
  };
}

/** Lower-cased file names and paths of the file lists: the footer lists them, so the names section need not. */
function fileKeys(fileOps: FileLists): Set<string> {
  const out = new Set<string>();
  for (const p of [...fileOps.readFiles, ...fileOps.modifiedFiles]) {
    const lower = p.toLowerCase();
    out.add(lower);
    const parts = lower.split('/');
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(i).join('/'));
  }
  return out;
}

/**
 * The body at a budget, shared out by water-filling: each section asks for
 * what it would write with the whole budget; sections that want less than
 * their share get what they want, and what they leave is shared among the
 * others by their shares, until everyone is either satisfied or at their
 * share. A short session's task list is not starved because the shares were
 * set for long ones.
 */
function layout(head: string, sections: readonly Section[], budget: number): string {
  const want = sections.map((s) => {
    const t = s.render(budget);
    return t ? t.length + 2 : 0;
  });
  const give = sections.map(() => 0);
  let open = sections.map((_, i) => i).filter((i) => want[i]! > 0);
  let left = budget;
  while (open.length && left > 0) {
    const shares = open.reduce((a, i) => a + sections[i]!.share, 0);
    const offer = new Map(open.map((i) => [i, Math.floor((left * sections[i]!.share) / shares)]));
    const satisfied = open.filter((i) => want[i]! - give[i]! <= offer.get(i)!);
    if (!satisfied.length) {
      for (const i of open) give[i]! += offer.get(i)!;
      break;
    }
    for (const i of satisfied) {
      left -= want[i]! - give[i]!;
      give[i] = want[i]!;
    }
    open = open.filter((i) => !satisfied.includes(i));
  }
  const texts = sections.map((s, i) => (give[i]! >= want[i]! ? s.render(budget) : give[i]! > 2 ? s.render(give[i]! - 2) : ''));
  return [head, ...texts.filter(Boolean)].join('\n\n');
}

/**
 * The size an extractive summary aims at, file lists included: about what an
 * agent writes for the same span (two thousand characters plus a little per
 * token summarised, an earlier summary counted as part of the span, at most
 * 6 000), within `maxChars`. More text is not more use: the summary is sent
 * with every request after it, the originals stay one click away, and an
 * earlier summary competes for the same room instead of growing the summary
 * at every cycle.
 */
export function extractiveTargetChars(spanTokens: number, maxChars: number): number {
  return Math.min(maxChars, Math.min(7_000, 2_400 + Math.floor(spanTokens * 0.03)));
}

/** Characters of a span as the model reads it: text, tool arguments and results, earlier summaries. */
function spanChars(items: readonly SummaryItem[], previous: string | null | undefined): number {
  let n = previous?.length ?? 0;
  for (const it of items) {
    if (it.kind !== 'message') {
      n += it.summary.length;
      continue;
    }
    for (const p of it.message.content) {
      if (p.type === 'text') n += p.text.length;
      else if (p.type === 'thinking') n += p.thinking.length;
      else if (p.type === 'toolCall') n += JSON.stringify(p.arguments ?? {}).length;
    }
  }
  return n;
}

/** The share of the summary the user messages get: the rest goes to what only the transcript's other parts say. */
const USER_SHARE = 0.25;

function describe(input: ExtractiveInput, records: readonly UserMessageRecord[], opts: Required<Pick<ExtractiveOptions, 'maxChars'>> & ExtractiveOptions): string {
  const label = opts.fallback ? fallbackLabel(opts.fallback) : EXTRACTIVE_LABEL;
  const all = [...input.items, ...(input.turnPrefix ?? [])];
  const f = gatherFacts(all);
  const spelled = new Map<string, string>();
  const counts = nameCounts(all, spelled);
  const footer = withFileFooter('', input.fileOps).length;
  const target = extractiveTargetChars(opts.spanTokens ?? Math.ceil(spanChars(all, input.previousSummary) / 4), opts.maxChars + footer) - footer;

  const users = renderUserMessages(records, Math.floor(target * USER_SHARE));
  // However long the file lists, the sections keep room to say something.
  const bodyBudget = Math.max(MIN_EXTRACTIVE_CHARS, target - (users ? users.length + 2 : 0) - label.length - 2);
  // Names the fixed sections already say need no sentence of their own (rendered at their shares to find out).
  const fixed: Section[] = [currentWork(input, f), taskList(f), errorsAndFixes(f), commands(f)];
  const covered = new Set<string>();
  for (const s of fixed) for (const n of codeNames(s.render(Math.floor(bodyBudget * s.share)))) covered.add(n.toLowerCase());
  const prose = workedOut(assistantSentences(all), counts, covered, input.kind);
  const [cw, tasks, errors, cmds] = fixed as [Section, Section, Section, Section];
  const ordered: Section[] = [cw, tasks, prose, errors, cmds, otherNames(counts, spelled, covered, prose, fileKeys(input.fileOps)), earlier(input.previousSummary)];
  const body = layout(label, ordered, bodyBudget);
  const out = users ? `${body}\n\n${users}` : body;
  if (out.length <= opts.maxChars) return out;
  return `${label}\n\n${truncateWithin(out.slice(label.length).trim(), opts.maxChars - label.length - 2, 'of the extractive summary cut for space')}`;
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
