/**
 * Session titles. A new session is named after the first words of its first
 * prompt at once; after the first reply the chat model is asked for a short
 * title, which replaces that one unless the user renamed the session
 * meanwhile. Without a model, or when the call fails, the word title stays.
 */

export const TITLE_MAX_CHARS = 60;
const TITLE_MAX_WORDS = 8;

/** Enough for any short title in any language, little enough that a rambling model is cut off early. */
export const TITLE_MAX_OUTPUT_TOKENS = 24;

/** The words "conversation title" are also how the test LLM (e2e/mock-llm) tells these requests apart. */
export const TITLE_SYSTEM =
  "Write a conversation title: three to six words naming what the exchange below is about, in the language of the user's message. Answer with the title alone: no quotes, no trailing full stop, no preamble.";

/** At most `maxWords` words and `maxChars` characters, cut between words, "…" where something was left out. */
function firstWords(flat: string, maxWords: number, maxChars: number): string {
  const words = flat.split(' ');
  let out = '';
  let n = 0;
  for (const w of words) {
    const next = out ? `${out} ${w}` : w;
    if (n === maxWords || next.length > maxChars) break;
    out = next;
    n++;
  }
  if (!out) return `${flat.slice(0, maxChars - 1)}…`;
  return n < words.length ? `${out}…` : out;
}

/** The title a session gets from its first prompt: its first words (markdown heading or quote marks dropped). */
export function wordTitle(text: string): string {
  const flat = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[#>*\-\s]+/, '');
  return flat ? firstWords(flat, TITLE_MAX_WORDS, TITLE_MAX_CHARS) : 'Untitled';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What the model is shown: the start of the first prompt and of its reply; a title needs no more. */
export function titlePrompt(userText: string, replyText: string): string {
  return `<user>\n${clip(userText.trim(), 2000)}\n</user>\n<assistant>\n${clip(replyText.trim(), 1000)}\n</assistant>`;
}

/**
 * A model's answer as a title: its first line, without the wrapping models
 * like to add ("Title:", quotes, bold, a trailing full stop). null when
 * nothing usable is left.
 */
export function cleanTitle(raw: string): string | null {
  const line = raw
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  const t = line
    .replace(/^#+\s*/, '')
    .replace(/^(?:[^:]{0,30}\btitle\b[^:]{0,10}):\s*/i, '')
    .replace(/^[*_"'“”‘’«»`]+|[*_"'“”‘’«»`]+$/g, '')
    .replace(/[.。:;,]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) return null;
  return firstWords(t, 12, TITLE_MAX_CHARS);
}
