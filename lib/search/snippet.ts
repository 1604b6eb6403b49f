/**
 * A short excerpt of `text` around the first place one of `terms` occurs, for
 * a search result: the text before, the matched word, the text after. The
 * excerpt starts and ends on word boundaries where it can and is one line.
 */
export interface Snippet {
  before: string;
  match: string;
  after: string;
}

/** Characters kept on each side of the match. */
const CONTEXT = 60;

export function makeSnippet(text: string, terms: readonly string[]): Snippet {
  const flat = text.replace(/\s+/g, ' ').trim();
  const found = firstMatch(flat, terms);
  if (!found) return { before: '', match: '', after: ellipsis(flat, 2 * CONTEXT) };
  const { start, end } = found;
  let from = Math.max(0, start - CONTEXT);
  let to = Math.min(flat.length, end + CONTEXT);
  // Do not cut a word in half at either edge.
  if (from > 0) {
    const space = flat.indexOf(' ', from);
    if (space !== -1 && space < start) from = space + 1;
  }
  if (to < flat.length) {
    const space = flat.lastIndexOf(' ', to);
    if (space > end) to = space;
  }
  return {
    before: (from > 0 ? '…' : '') + flat.slice(from, start),
    match: flat.slice(start, end),
    after: flat.slice(end, to) + (to < flat.length ? '…' : ''),
  };
}

function ellipsis(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Earliest occurrence of any term at the start of a word, case-insensitively;
 * the match runs to the end of that word, so a prefix search for "compa"
 * highlights "compaction".
 */
function firstMatch(text: string, terms: readonly string[]): { start: number; end: number } | null {
  const lower = text.toLowerCase();
  let best: { start: number; end: number } | null = null;
  for (const term of terms) {
    const t = term.toLowerCase();
    if (!t) continue;
    let at = lower.indexOf(t);
    while (at !== -1 && at > 0 && isWordChar(lower[at - 1]!)) at = lower.indexOf(t, at + 1);
    if (at === -1 || (best && at >= best.start)) continue;
    let end = at + t.length;
    while (end < text.length && isWordChar(lower[end]!)) end++;
    best = { start: at, end };
  }
  return best;
}

const isWordChar = (c: string) => /[\p{L}\p{N}_]/u.test(c);
