import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { mathRemarkPlugins, rehypeMathMl } from './math';
import { remarkRawHtmlAsText } from './rawHtmlAsText';
import { markdownSanitizeSchema } from './sanitizeSchema';

/**
 * Markdown → safe HTML string, for the HTML export (no DOM needed, runs in a
 * worker or in Node). Raw HTML is shown as text, links and images keep only
 * the schemes in the sanitize schema, and rehype-sanitize removes anything
 * else not on its allow-list (event handlers, style, iframes, …). Math is
 * typeset after the sanitizer, as MathML (lib/markdown/math.ts).
 */
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(mathRemarkPlugins)
  .use(remarkRawHtmlAsText)
  .use(remarkRehype)
  .use(rehypeSanitize, markdownSanitizeSchema)
  .use(rehypeMathMl)
  // Raw nodes exist only where rehypeMathMl put KaTeX's MathML (remark-rehype runs without raw HTML, and the sanitizer before).
  .use(rehypeStringify, { allowDangerousHtml: true })
  .freeze();

export function renderMarkdownToHtml(md: string): string {
  return String(processor.processSync(md));
}
