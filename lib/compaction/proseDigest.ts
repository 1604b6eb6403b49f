import type { EntryId } from '@/lib/session/types';
import type { SummaryItem } from './types';

/**
 * What the assistant worked out, picked from its own words. Agents' summaries
 * keep the names the assistant discovered, the root causes it found and the
 * decisions it took; a summary without a model can keep the sentences that
 * say them. Sentences are ranked by the names they carry (weighted by how
 * often the conversation used them, counted once: a second sentence about the
 * same names adds little) and by words that mark a finding or a decision, per
 * character spent. Narration ("Let me check…", "Now update the docs:") is
 * skipped: it says what was about to happen, which the next sentence says better.
 */

// ---------------------------------------------------------------- code names

/** Characters that can surround a name in prose and are not part of it. */
const EDGE = /^[("'[{<*_]+|[)"'\]}>*_,;:!?.]+$/g;

/** A path, not two words with a slash ("read/write"): it starts at a root or a dot, has an extension, or three segments. */
function isPath(t: string): boolean {
  if (!/[\w.-]\/[\w.-]/.test(t)) return false;
  return /^(?:~|\.{1,2})?\//.test(t) || /\.[A-Za-z0-9]{1,8}$/.test(t) || t.split('/').filter(Boolean).length >= 3;
}

/** A token is a code name when its shape says so: inner capitals, underscores, a dot between words, a slash, a call, a flag. */
function isCodeName(t: string): boolean {
  if (t.length < 3 || t.length > 120) return false;
  if (/^https?:\/\//.test(t)) return true;
  if (/^-/.test(t) || /^\d*[<>]/.test(t)) return false;
  if (!/[a-z]/i.test(t)) return false;
  if (/^\d/.test(t) && !/[a-z]{2}/i.test(t)) return false;
  return (
    /[a-z0-9][A-Z]/.test(t) || // camelCase, PascalCase with a second hump
    /[A-Za-z0-9]_[A-Za-z0-9]/.test(t) || // snake_case
    /[A-Za-z_$]\.[A-Za-z_$]/.test(t) || // member access, file.ext
    isPath(t) || // a path
    /\w\(\)$/.test(t) // a call
  );
}

/**
 * The code names in a text (original spelling, first occurrence first):
 * everything in backticks that reads as a name or a short command, and bare
 * tokens shaped like code.
 */
export function codeNames(text: string): string[] {
  const out = new Map<string, string>();
  const put = (raw: string) => {
    const t = raw.trim();
    const k = t.toLowerCase();
    if (t && !out.has(k)) out.set(k, t);
  };
  const bare = text.replace(/`([^`\n]+)`/g, (_, inner: string) => {
    const t = inner.trim();
    const words = t.split(/\s+/);
    if (words.length === 1 ? t.length >= 2 : words.length <= 5 && t.length <= 48 && /^[a-z0-9_./-]+$/.test(words[0]!)) put(t);
    return ' ';
  });
  for (const raw of bare.split(/[\s,;]+/)) {
    const t = raw.replace(EDGE, '');
    if (isCodeName(t)) put(t);
  }
  return [...out.values()];
}

// ---------------------------------------------------------------- sentences

/** Narration: the assistant saying what it is about to do, or reacting. */
const NARRATION =
  /^(?:(?:now|next|first|then|ok(?:ay)?|alright|great|perfect|good|excellent|done|sure|right)[,!.]?\s+)*(?:let me|let's|i'll|i will|i'm going to|i need to (?:check|look|see|read|find)|now i|we need to check|time to|going to|checking|looking|reading|searching|running)\b/i;
export const REACTION = /^(?:perfect|great|excellent|good|nice|done|ok(?:ay)?|alright|you're (?:absolutely )?right|i see|got it|understood|sure|thanks)\b[!.,]?\s*(?:$|[a-z]{0,12}[!.]?$)/i;
/** Words that mark a sentence that says what was found, why, or what was chosen. */
const FINDING =
  /\b(?:because|root cause|the (?:issue|problem|bug|cause|fix|reason|culprit) (?:is|was)|turns out|found|so that|which means|means that|instead|rather than|decided|decision|chose|going with|should|must|works|passes|fails|failing|broken|missing|wrong|fixed|resolved|added|removed|renamed|moved|replaced|changed|now (?:uses|takes|returns|has)|returns|calls|is called|defined in|lives in|handles|the plan|plan is|approach|trade-?off|summary|result)\b/i;
const DECIDED = /\b(?:decided|decision|instead of|rather than|chose|going with|we'll use|i'll use|let's use|opted|switch(?:ed)? to|the plan is)\b/i;
/** Sentences that give a reason or a cause: what a summary most often loses and the next model most needs. */
const REASON = /\b(?:because|so that|root cause|turns out|the (?:issue|problem|bug|cause|fix|solution|reason|culprit) (?:is|was)|the pattern is)\b/i;

export interface Sentence {
  text: string;
  entryId: EntryId;
  /** Position in the span (for the order they are shown in). */
  at: number;
  names: string[];
  /** It states a choice, or the reason or cause of something. */
  decision: boolean;
  finding: boolean;
}

const FENCED = /```[\s\S]*?(?:```|$)/g;

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

function split(text: string): string[] {
  const out: string[] = [];
  const blocks = text.replace(FENCED, '\n').split(/\n+/);
  for (let b = 0; b < blocks.length; b++) {
    const line = blocks[b]!.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6})\s+/, '').trim();
    if (!line || /^\|?[-:| ]+\|?$/.test(line)) continue;
    // "X handles:" followed by a list says nothing alone: it is kept with its first items.
    if (line.endsWith(':') && line.length < 160 && LIST_ITEM.test(blocks[b + 1] ?? '')) {
      const items: string[] = [];
      while (LIST_ITEM.test(blocks[b + 1] ?? '') && items.length < 4) items.push(blocks[++b]!.replace(LIST_ITEM, '').trim());
      out.push(`${line} ${items.join('; ')}`);
      continue;
    }
    // A table row is one statement; a paragraph is several sentences.
    if (line.startsWith('|')) out.push(line.replace(/\s*\|\s*/g, ' | ').replace(/^\| | \|$/g, ''));
    else out.push(...line.split(/(?<=[.!?])\s+(?=[A-Z`*(\["])/));
  }
  return out;
}

/** The assistant's sentences in a span, with their names; narration and reactions left out. */
export function assistantSentences(items: readonly SummaryItem[]): Sentence[] {
  const out: Sentence[] = [];
  items.forEach((it, at) => {
    if (it.kind !== 'message' || it.message.role !== 'assistant') return;
    for (const p of it.message.content) {
      if (p.type !== 'text') continue;
      for (const raw of split(p.text)) {
        const text = raw.trim();
        if (text.length < 16 || REACTION.test(text)) continue;
        const finding = FINDING.test(text);
        if (NARRATION.test(text) && !DECIDED.test(text) && (text.endsWith(':') || !finding)) continue;
        if (text.endsWith(':') && !finding && text.length < 120) continue;
        out.push({ text, entryId: it.entryId, at, names: codeNames(text), decision: DECIDED.test(text) || REASON.test(text), finding });
      }
    }
  });
  return out;
}

/**
 * How many messages of the span mention each name (by lower-cased spelling):
 * the conversation's own measure of what matters. `spelled` receives each
 * name as first written.
 */
export function nameCounts(items: readonly SummaryItem[], spelled?: Map<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const it of items) {
    if (it.kind !== 'message' || it.message.role === 'toolResult') continue;
    const texts: string[] = [];
    for (const p of it.message.content) {
      if (p.type === 'text') texts.push(p.text.replace(FENCED, ' '));
      else if (p.type === 'toolCall')
        for (const v of Object.values(p.arguments ?? {})) if (typeof v === 'string' && v.length <= 240 && !v.includes('\n')) texts.push(`\`${v}\``, v);
    }
    const names = codeNames(texts.join('\n'));
    const seen = new Set<string>();
    for (const n of names) {
      const k = n.toLowerCase();
      if (seen.has(k)) continue;
      seen.add(k);
      counts.set(k, (counts.get(k) ?? 0) + 1);
      if (spelled && !spelled.has(k)) spelled.set(k, n);
    }
  }
  return counts;
}

function weightOf(count: number): number {
  return 1 + Math.log2(1 + count);
}

/** Sentences longer than this are cut: a finding is said in its first two hundred characters or not at all. */
const SENTENCE_MAX = 240;

export function clipSentence(text: string, max = SENTENCE_MAX): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max * 0.6 ? cut : max - 1)}…`;
}

/**
 * The sentences worth keeping within `budget` characters (each line costs its
 * text plus three characters of list marker), greedily by what each adds
 * per character: names not yet covered, weighted by use, plus a finding or a
 * decision. Returned in conversation order. `covered` holds names already
 * said elsewhere in the summary; it is updated.
 */
export function pickSentences(sentences: readonly Sentence[], counts: ReadonlyMap<string, number>, budget: number, covered: Set<string>): Sentence[] {
  const chosen: Sentence[] = [];
  const pool = sentences.map((s) => ({ s, len: clipSentence(s.text).length + 3 }));
  const seenText = new Set<string>();
  let left = budget;
  for (;;) {
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < pool.length; i++) {
      const { s, len } = pool[i]!;
      if (len > left) continue;
      let gain = 0;
      for (const n of s.names) {
        const k = n.toLowerCase();
        if (!covered.has(k)) gain += weightOf(counts.get(k) ?? 1);
      }
      if (s.decision) gain += 3;
      else if (s.finding) gain += 1.5;
      // A sentence with nothing new is not worth its characters, however well it reads.
      if (gain < 2) continue;
      const score = gain / Math.pow(len + 40, 0.8);
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    if (best < 0) break;
    const { s, len } = pool.splice(best, 1)[0]!;
    const key = s.text.toLowerCase().replace(/\W+/g, ' ');
    if (seenText.has(key)) continue;
    seenText.add(key);
    chosen.push(s);
    left -= len;
    for (const n of s.names) covered.add(n.toLowerCase());
  }
  return chosen.sort((a, b) => a.at - b.at);
}
