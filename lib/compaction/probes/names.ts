/**
 * Code-like names in prose, as a probe sees them: function, class and config
 * names, file names and paths, commands in backticks, flags and URLs. What a
 * reader would need to carry on the work and cannot guess. Plain English
 * words are not names, even capitalised at a sentence start.
 */

const FENCE = /```[\s\S]*?(?:```|$)/g;

/** Prose without fenced code blocks: a pasted file is data, not what someone wrote. */
export function proseOf(text: string): string {
  return text.replace(FENCE, ' ');
}

const BACKTICK = /`([^`\n]{2,80})`/g;
const CAMEL = /(?<![\w$.])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+(?![\w$])/g;
const PASCAL = /(?<![\w$.])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w$])/g;
const SNAKE = /(?<![\w$])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w$])/g;
const DOTTED = /(?<![\w$/.-])[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)+(?:\(\))?/g;
const CALL = /(?<![\w$.])[A-Za-z_$][\w$]{2,}\(\)/g;
const FLAG = /(?<![\w-])--[a-z][a-z0-9-]+/g;
const URL = /https?:\/\/[^\s)<>\]"'`]+/g;
const PATH = /(?<![\w$])(?:~|\.{1,2})?\/?(?:[\w.@-]+\/)+[\w.@-]+/g;

/** A backticked span is a name when it has no spaces, or is a short command (a few words, no sentence). */
function backtickName(s: string): string | null {
  const t = s.trim();
  if (t.length < 2) return null;
  if (!/\s/.test(t)) return t;
  const words = t.split(/\s+/);
  if (words.length > 5 || t.length > 48) return null;
  // "the config" in backticks is emphasis; `npm run check` is a command.
  return /^[a-z0-9_.\/-]+$/.test(words[0]!) && /[a-z]/.test(t) && !/[.!?]$/.test(t) ? t : null;
}

function clean(name: string): string | null {
  const t = name.replace(/[.,:;!?]+$/, '').replace(/^['"(]+|['")]+$/g, '');
  if (t.length < 3 || /^\d[\d.]*$/.test(t)) return null;
  // "e.g." and "i.e." are dotted but not names.
  if (/^(?:e\.g|i\.e|etc|vs)$/i.test(t)) return null;
  return t;
}

/** The distinct names in a piece of prose, in order of first appearance (original case). */
export function namesIn(prose: string): string[] {
  const found = new Map<string, string>();
  const add = (raw: string | null) => {
    const n = raw && clean(raw);
    if (n && !found.has(n.toLowerCase())) found.set(n.toLowerCase(), n);
  };
  for (const m of prose.matchAll(BACKTICK)) add(backtickName(m[1]!));
  // Each longer form is taken out before the shorter ones look: a URL's path is not a second name.
  let rest = prose.replace(BACKTICK, ' ');
  for (const re of [URL, PATH]) {
    for (const m of rest.matchAll(re)) add(m[0]);
    rest = rest.replace(re, ' ');
  }
  for (const re of [DOTTED, CALL, CAMEL, PASCAL, SNAKE, FLAG]) for (const m of rest.matchAll(re)) add(m[0]);
  return [...found.values()];
}
