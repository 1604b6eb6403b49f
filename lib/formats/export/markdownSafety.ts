import remarkParse from 'remark-parse';
import { unified } from 'unified';

/**
 * What the Markdown and Obsidian exports may pass on from a conversation.
 *
 * The text of a message is Markdown, and stays Markdown: headings, lists,
 * code and links survive the export. But a Markdown file is rendered by
 * whatever opens it (Obsidian, an editor's preview, a static site), most of
 * which render raw HTML and follow any link: a transcript holding
 * `<img src=x onerror=…>` or `[click](javascript:…)`, from a model's reply or
 * an imported file, would run in the reader's notes app. So:
 *
 * - raw HTML (a block or inline) is written as text: its `<` becomes `&lt;`,
 *   which shows the tag as it was typed and never makes one;
 * - links, images and link definitions to anything but http(s), mailto and
 *   relative addresses lose their address and keep their text;
 * - plain strings that are not Markdown (a title, a model name, a label) are
 *   escaped character by character, so they are read as text, never as markup.
 *
 * Code (fenced, indented, inline) is left alone: nothing in it is rendered.
 */

// CommonMark is enough to find raw HTML and links: GFM's additions (tables, strikethrough, www. autolinks)
// neither make HTML nor link to anything but http(s), and parsing without them is faster.
const parser = unified().use(remarkParse).freeze();

const SAFE_URL = /^(?:https?:|mailto:)/i;

/** An address that may stay clickable: http(s), mailto, or one without a scheme (relative, #anchor). */
export function isSafeLinkUrl(url: string): boolean {
  // Browsers drop tabs and newlines from URLs and ignore leading spaces and controls ("java\tscript:").
  const u = url.replace(/[\u0000-\u0020]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(u);
  return !scheme || SAFE_URL.test(u);
}

interface Positioned {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  url?: string;
  alt?: string | null;
  children?: Positioned[];
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

const span = (n: Positioned): [number, number] | null => {
  const s = n.position?.start.offset;
  const e = n.position?.end.offset;
  return s === undefined || e === undefined ? null : [s, e];
};

function collect(source: string, node: Positioned, edits: Edit[]): void {
  const at = span(node);
  if (node.type === 'html' && at) {
    edits.push({ start: at[0], end: at[1], text: source.slice(at[0], at[1]).replace(/</g, '&lt;') });
    return;
  }
  if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && at && typeof node.url === 'string' && !isSafeLinkUrl(node.url)) {
    let text = '';
    if (node.type === 'link') {
      const kids = node.children ?? [];
      const first = kids[0] ? span(kids[0]) : null;
      const last = kids.at(-1) ? span(kids.at(-1)!) : null;
      // The link's own text, made safe in turn (it may hold HTML); a definition or image has none worth keeping.
      text = first && last ? neutraliseMarkdown(source.slice(first[0], last[1])) : escapeMarkdownText(node.url);
    } else if (node.type === 'image') text = escapeMarkdownText(node.alt ?? '');
    edits.push({ start: at[0], end: at[1], text });
    return;
  }
  for (const child of node.children ?? []) collect(source, child, edits);
}

/** Markdown from a conversation, with raw HTML turned into text and unsafe links into their text. */
export function neutraliseMarkdown(markdown: string): string {
  // Raw HTML and autolinks need a '<' before a letter, '/', '!' or '?'; an unsafe link needs "](", a definition "]:".
  // Most messages have none of these, and are returned without being parsed.
  if (!/<[A-Za-z/!?]|\]\(|\]:/.test(markdown)) return markdown;
  const edits: Edit[] = [];
  collect(markdown, parser.parse(markdown) as unknown as Positioned, edits);
  let out = markdown;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/**
 * A plain string (not Markdown) as Markdown that reads as exactly that
 * string on one line: every character that could start markup is escaped.
 */
export function escapeMarkdownText(text: string): string {
  // Backslash escapes for the characters that open emphasis, code, links, images, HTML, entities, tables and
  // strikethrough; "#" too, so a title that starts with one is not a deeper heading. An underscore between two
  // letters or digits (a run of them, too) can neither open nor close emphasis, so file names (pydicom__pydicom-1458) stay as they are.
  const word = /[\p{L}\p{N}]/u;
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[\\`*[\]<>#!|~&]/g, '\\$&')
    .replace(/_+/g, (run, i: number, s: string) => (word.test(s[i - 1] ?? '') && word.test(s[i + run.length] ?? '') ? run : run.replace(/_/g, '\\_')));
}
