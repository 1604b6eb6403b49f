import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { remarkRawHtmlAsText } from './rawHtmlAsText';
import { markdownSanitizeSchema } from './sanitizeSchema';

/**
 * Markdown → safe HTML string, for the HTML export (no DOM needed, runs in a
 * worker or in Node). Raw HTML is shown as text, links and images keep only
 * the schemes in the sanitize schema, and rehype-sanitize removes anything
 * else not on its allow-list (event handlers, style, iframes, …).
 */
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRawHtmlAsText)
  .use(remarkRehype)
  .use(rehypeSanitize, markdownSanitizeSchema)
  .use(rehypeStringify)
  .freeze();

export function renderMarkdownToHtml(md: string): string {
  return String(processor.processSync(md));
}
