import { arr, obj, str, type Json } from '../util';

/**
 * Citation markers in ChatGPT replies. Browsing replies carry them inline:
 * older exports as `【13†source】` with `metadata.citations` ({start_ix,
 * end_ix, metadata: {url, title}}), newer ones as private-use characters
 * (U+E200 cite U+E202 turn0search3 U+E201, entities, highlight spans) with
 * `metadata.content_references` ({matched_text, items: [{url, title}]}).
 * Left in, they read as noise ("weight【13†source】."). A marker the export
 * resolves becomes a link to its source, `([carsales.com.au](https://…))`;
 * the rest are removed. An entity marker keeps its display name.
 */

const BRACKET_MARKER = /【[^【】\n]{1,60}】/g;
const PUA_BLOCK = /\uE200([a-z_]+)\uE202([\s\S]*?)\uE201/g;
const PUA_STRAY = /[\uE200-\uE206]/g;
const HAS_PUA = /[\uE200-\uE206]/;

interface Source {
  url: string;
}

function host(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** Parentheses and white space would end or break a Markdown link's address; encodeURIComponent leaves `(` and `)` as they are. */
function escapeInLink(c: string): string {
  if (c === '(') return '%28';
  if (c === ')') return '%29';
  return encodeURIComponent(c);
}

function links(sources: readonly Source[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const s of sources) {
    if (seen.has(s.url) || !/^https?:\/\//i.test(s.url)) continue;
    seen.add(s.url);
    parts.push(`[${host(s.url).replace(/[[\]]/g, '')}](${s.url.replace(/[()\s]/g, escapeInLink)})`);
  }
  return parts.length ? `(${parts.join(', ')})` : '';
}

/**
 * Index in code points of each UTF-16 offset where a character starts: the exporter counts characters,
 * not JS string units. The string iterator takes a surrogate pair as one character and a lone surrogate
 * as one too, as the exporter does (a high surrogate does not swallow the character after it).
 */
function codePointOffsets(text: string): Map<number, number> {
  const out = new Map<number, number>();
  let i = 0;
  let cp = 0;
  for (const ch of text) {
    out.set(i, cp++);
    i += ch.length;
  }
  return out;
}

/** Replaces matches of `re` by `replace(match)`; a removal also takes the space before it when punctuation follows. */
function replaceMarkers(text: string, re: RegExp, replace: (m: RegExpExecArray) => string): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let head = text.slice(last, m.index);
    const next = text.charAt(m.index + m[0].length);
    const rep = replace(m);
    if (rep === '' && /[ \t]$/.test(head) && (next === '' || /[\s.,;:!?)]/.test(next))) head = head.replace(/[ \t]+$/, '');
    else if (rep !== '' && !/(^|\s)$/.test(out + head)) head += ' ';
    out += head + rep;
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

function bracketCitations(text: string, meta: Json): string {
  const cites = (arr(meta.citations) ?? [])
    .map(obj)
    .filter((c): c is Json => c !== undefined)
    .map((c) => ({ start: typeof c.start_ix === 'number' ? c.start_ix : -1, url: str(obj(c.metadata)?.url) }))
    .sort((a, b) => a.start - b.start);
  const markers = [...text.matchAll(BRACKET_MARKER)];
  if (markers.length === 0) return text;
  const offsets = codePointOffsets(text);
  const byStart = new Map(cites.map((c) => [c.start, c]));
  // Matched by position where the offsets agree, else by order when there is one citation per marker.
  const inOrder = cites.length === markers.length;
  let n = 0;
  return replaceMarkers(text, BRACKET_MARKER, (m) => {
    const cite = byStart.get(offsets.get(m.index) ?? -1) ?? byStart.get(m.index) ?? (inOrder ? cites[n] : undefined);
    n++;
    return cite?.url ? links([{ url: cite.url }]) : '';
  });
}

function referenceSources(ref: Json): Source[] {
  const out: Source[] = [];
  for (const raw of arr(ref.items) ?? []) {
    const item = obj(raw);
    const url = str(item?.url);
    if (url) out.push({ url });
  }
  for (const raw of arr(ref.sources) ?? []) {
    const url = str(obj(raw)?.url);
    if (url) out.push({ url });
  }
  const url = str(ref.url);
  if (url) out.push({ url });
  return out;
}

function contentReferences(text: string, meta: Json): string {
  let out = text;
  const refs = (arr(meta.content_references) ?? []).map(obj).filter((r): r is Json => r !== undefined);
  // Longest first, so a marker that contains another is replaced whole.
  refs.sort((a, b) => (str(b.matched_text)?.length ?? 0) - (str(a.matched_text)?.length ?? 0));
  for (const ref of refs) {
    const matched = str(ref.matched_text);
    if (!matched || !matched.trim() || !out.includes(matched)) continue;
    const escaped = matched.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const rep = links(referenceSources(ref));
    out = replaceMarkers(out, new RegExp(escaped, 'g'), () => rep);
  }
  return out;
}

function entityName(body: string): string {
  try {
    const v: unknown = JSON.parse(body);
    const list = arr(v);
    if (list && typeof list[1] === 'string') return list[1];
  } catch {
    /* not the JSON the exporter writes: drop the marker */
  }
  return '';
}

/** The reply text with every citation marker resolved to a link or removed. */
export function resolveCitations(text: string, metadata: Json | undefined): string {
  const hasBracket = text.includes('【');
  if (!hasBracket && !HAS_PUA.test(text)) return text;
  const meta = metadata ?? {};
  let out = contentReferences(text, meta);
  if (hasBracket) out = bracketCitations(out, meta);
  out = replaceMarkers(out, PUA_BLOCK, (m) => (m[1] === 'entity' ? entityName(m[2]!) : ''));
  return out.replace(PUA_STRAY, '');
}
