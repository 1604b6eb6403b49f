'use client';

import type * as MathModuleExports from '@/lib/markdown/mathApp';
import 'katex/dist/katex.min.css';
import { memo, useEffect, useState } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { splitBlocks, tailOf } from '@/lib/markdown/blocks';
import { mayHoldMath } from '@/lib/markdown/mayHoldMath';
import { remarkRawHtmlAsText } from '@/lib/markdown/rawHtmlAsText';
import { markdownSanitizeSchema } from '@/lib/markdown/sanitizeSchema';
import { CodeBlock } from './CodeBlock';

type MathModule = typeof MathModuleExports;

/** KaTeX and its plugins load the first time a text can hold math; every later render has them at once. */
let mathModule: MathModule | null = null;
let mathLoading: Promise<MathModule> | null = null;
export function loadMath(): Promise<MathModule> {
  mathLoading ??= import('@/lib/markdown/mathApp').then((m) => (mathModule = m));
  return mathLoading;
}

function useMath(text: string): MathModule | null {
  const needed = mayHoldMath(text);
  const [loaded, setLoaded] = useState(mathModule);
  useEffect(() => {
    if (!needed || loaded) return;
    let live = true;
    void loadMath().then((m) => live && setLoaded(m));
    return () => {
      live = false;
    };
  }, [needed, loaded]);
  return needed ? loaded : null;
}

const COMPONENTS: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  pre: ({ node, children }) => <CodeBlock node={node}>{children}</CodeBlock>,
};

/**
 * Model output and imported transcripts are untrusted. Raw HTML is shown as
 * the text it is (the same remark plugin as the HTML export), react-markdown's
 * URL transform drops javascript: and other unsafe schemes, and
 * rehype-sanitize with the export's schema strips anything that slips through.
 * Math is typeset by KaTeX after the sanitizer (lib/markdown/mathApp.ts); code
 * blocks get a language label, a Copy button and lazy highlighting.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const math = useMath(text);
  return (
    <div className="md">
      <MarkdownBody text={text} math={math} />
    </div>
  );
});

/**
 * A reply while it streams. Its completed blocks are rendered once each (memoised by their text) and only the
 * block still growing is parsed again on every update, so the work is linear in the reply's length, not quadratic
 * (lib/markdown/blocks.ts decides where blocks end; rendered one by one they give what the whole text gives).
 */
export const StreamingMarkdown = memo(function StreamingMarkdown({ text }: { text: string }) {
  const [split, setSplit] = useState(() => splitBlocks(text));
  // Derived from the previous render's split (React's pattern for state that follows a prop): only the new tail is parsed.
  const current = split.text === text ? split : splitBlocks(text, split);
  if (current !== split) setSplit(current);
  const math = useMath(text);
  return (
    <div className="md">
      {current.blocks.map((block, i) => (
        <MarkdownBody key={i} text={block} math={math} />
      ))}
      <MarkdownBody text={tailOf(current)} math={math} />
    </div>
  );
});

const MarkdownBody = memo(function MarkdownBody({ text, math }: { text: string; math: MathModule | null }) {
  return (
    <ReactMarkdown
      remarkPlugins={math ? [remarkGfm, ...math.remarkPlugins, remarkRawHtmlAsText] : [remarkGfm, remarkRawHtmlAsText]}
      rehypePlugins={math ? [[rehypeSanitize, markdownSanitizeSchema], ...math.rehypeKatexPlugins] : [[rehypeSanitize, markdownSanitizeSchema]]}
      components={COMPONENTS}
    >
      {text}
    </ReactMarkdown>
  );
});
