'use client';

import { memo } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { remarkRawHtmlAsText } from '@/lib/markdown/rawHtmlAsText';
import { markdownSanitizeSchema } from '@/lib/markdown/sanitizeSchema';

/**
 * Model output and imported transcripts are untrusted. Raw HTML is shown as
 * the text it is (the same remark plugin as the HTML export), react-markdown's
 * URL transform drops javascript: and other unsafe schemes, and
 * rehype-sanitize with the export's schema strips anything that slips through.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkRawHtmlAsText]}
        rehypePlugins={[[rehypeSanitize, markdownSanitizeSchema]]}
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {children}
            </a>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
