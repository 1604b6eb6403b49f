'use client';

import { memo } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { markdownSanitizeSchema } from '@/lib/markdown/sanitizeSchema';

/**
 * Model output and imported transcripts are untrusted. react-markdown never
 * renders raw HTML (it is shown as text), its URL transform drops javascript:
 * and other unsafe schemes, and rehype-sanitize with the same schema as the
 * HTML export strips anything else that slips through.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
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
