import type { SessionEntry } from '@/lib/session/types';
import { countingInput, framingTokens } from './entryText';

/**
 * A tokenizer-free token estimate, for the main thread: a draft being typed,
 * an entry the worker has not counted yet. Better than chars/4 because it
 * follows how o200k cuts text before BPE: a word (with the space or
 * punctuation before it) is usually one token and long or rare words a few;
 * camelCase humps start new words; digits go in groups of three; runs of
 * punctuation merge partially; a newline run or an indentation run is one
 * token; CJK is a little over half a token per character. Nothing here reads the 2 MB
 * tables, so the UI bundle stays small.
 *
 * The constants were set by hand against o200k on ordinary prose, code and
 * JSON; bench-tokens reports the resulting error on every fixture.
 */

/** A word piece up to this many letters is usually a single token... */
const WORD_FREE_LETTERS = 6;
/** ...and each this many letters beyond it adds one. */
const WORD_LETTERS_PER_TOKEN = 4;
/** Non-ASCII letters (accents, Cyrillic, Greek...) weigh this many ASCII letters. */
const NON_ASCII_LETTER_WEIGHT = 1.2;
const CJK_TOKENS_PER_CHAR = 0.6;
const ASTRAL_TOKENS_PER_CHAR = 1.5;
const DIGITS_PER_TOKEN = 3;
/** Tokens per punctuation character after the first of a run. */
const PUNCT_EXTRA = 0.55;
/** Characters of an indentation run per token. */
const SPACES_PER_TOKEN = 16;

const enum K {
  Lower,
  Upper,
  Digit,
  Space,
  Newline,
  Punct,
  OtherLetter,
  Cjk,
  Astral,
}

function kind(c: number): K {
  if (c >= 97 && c <= 122) return K.Lower;
  if (c >= 65 && c <= 90) return K.Upper;
  if (c >= 48 && c <= 57) return K.Digit;
  if (c === 32 || c === 9) return K.Space;
  if (c === 10 || c === 13) return K.Newline;
  if (c < 128) return K.Punct;
  if (c >= 0xd800 && c <= 0xdfff) return K.Astral;
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef)) return K.Cjk;
  if (c === 0xa0 || (c >= 0x2000 && c <= 0x200b) || c === 0x3000) return K.Space;
  if ((c >= 0x2010 && c <= 0x2bff) || (c >= 0xa1 && c <= 0xbf) || c === 0xd7 || c === 0xf7) return K.Punct;
  return K.OtherLetter;
}

const isLetter = (k: K) => k === K.Lower || k === K.Upper || k === K.OtherLetter;

function wordCost(weightedLetters: number): number {
  return 1 + Math.max(0, weightedLetters - WORD_FREE_LETTERS) / WORD_LETTERS_PER_TOKEN;
}

/** Estimated o200k tokens of `text` (no framing). */
export function estimateTextTokens(text: string): number {
  const n = text.length;
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const k = kind(text.charCodeAt(i));
    if (isLetter(k)) {
      // One word piece: optional capitals, then lower-case (a new capital after lower case starts a new piece).
      let w = 0;
      let sawLower = false;
      while (i < n) {
        const kk = kind(text.charCodeAt(i));
        if (kk === K.Upper) {
          if (sawLower) break;
        } else if (kk === K.Lower) sawLower = true;
        else if (kk !== K.OtherLetter) break;
        w += kk === K.OtherLetter ? NON_ASCII_LETTER_WEIGHT : 1;
        i++;
      }
      tokens += wordCost(w);
    } else if (k === K.Digit) {
      let d = 0;
      while (i < n && kind(text.charCodeAt(i)) === K.Digit) {
        d++;
        i++;
      }
      tokens += Math.ceil(d / DIGITS_PER_TOKEN);
    } else if (k === K.Space) {
      let s = 0;
      while (i < n && kind(text.charCodeAt(i)) === K.Space) {
        s++;
        i++;
      }
      const next = i < n ? kind(text.charCodeAt(i)) : K.Newline;
      // A single space rides on the following word or punctuation; a longer run keeps one for it.
      if (next === K.Newline) continue; // trailing spaces merge into the newline run
      if (s > 1) tokens += Math.ceil((s - 1) / SPACES_PER_TOKEN);
    } else if (k === K.Newline) {
      while (i < n && kind(text.charCodeAt(i)) === K.Newline) i++;
      tokens += 1;
    } else if (k === K.Punct) {
      let p = 0;
      while (i < n && kind(text.charCodeAt(i)) === K.Punct) {
        p++;
        i++;
      }
      // The last mark before a word is that word's prefix and costs nothing of its own.
      const beforeWord = i < n && isLetter(kind(text.charCodeAt(i)));
      const own = beforeWord ? p - 1 : p;
      if (own > 0) tokens += 1 + (own - 1) * PUNCT_EXTRA;
    } else if (k === K.Cjk) {
      tokens += CJK_TOKENS_PER_CHAR;
      i++;
    } else {
      tokens += ASTRAL_TOKENS_PER_CHAR / 2; // per UTF-16 unit: a pair is one character
      i++;
    }
  }
  return Math.round(tokens);
}

/** Estimated raw tokens (text and framing, no media) of an entry, the heuristic twin of TokenCache.o200k. */
export function estimateEntryTokens(entry: SessionEntry): number {
  const input = countingInput(entry);
  let n = framingTokens(input);
  for (const p of input.pieces) n += estimateTextTokens(p);
  return n;
}
