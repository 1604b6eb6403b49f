'use client';

import type * as HighlightModuleExports from '@/lib/markdown/highlight';
import type { Element, Root, RootContent } from 'hast';
import { useEffect, useState } from 'react';
import { toast } from 'sonner';
import { copyText } from '@/lib/browser/clipboard';
import { codeLanguage } from '@/lib/markdown/codeLanguage';

type HighlightModule = typeof HighlightModuleExports;

/** The highlighter (lowlight and its grammars) loads with the first code block shown. */
let highlighter: HighlightModule | null = null;
let loading: Promise<HighlightModule> | null = null;
function loadHighlighter(): Promise<HighlightModule> {
  loading ??= import('@/lib/markdown/highlight').then((m) => (highlighter = m));
  return loading;
}

function textOf(node: Element | RootContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

/** lowlight's tree as React: spans with highlight.js classes around text, nothing else. */
function Spans({ nodes }: { nodes: RootContent[] }) {
  return (
    <>
      {nodes.map((n, i) =>
        n.type === 'text' ? (
          n.value
        ) : n.type === 'element' ? (
          <span key={i} className={Array.isArray(n.properties.className) ? n.properties.className.join(' ') : undefined}>
            <Spans nodes={n.children} />
          </span>
        ) : null,
      )}
    </>
  );
}

function useHighlighted(code: string, language: string | undefined): Root | null {
  const [mod, setMod] = useState(highlighter);
  useEffect(() => {
    if (!language || mod) return;
    let live = true;
    void loadHighlighter().then((m) => live && setMod(m));
    return () => {
      live = false;
    };
  }, [language, mod]);
  return mod && language ? mod.highlightCode(code, language) : null;
}

/** A fenced code block: its language, a Copy button, and the code, highlighted once the highlighter has loaded. */
export function CodeBlock({ node, children }: { node?: Element; children: React.ReactNode }) {
  const code = node?.children.find((c): c is Element => c.type === 'element' && c.tagName === 'code');
  const language = codeLanguage(code?.properties.className);
  const text = code ? textOf(code).replace(/\n$/, '') : '';
  const tree = useHighlighted(text, language);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1800);
    return () => clearTimeout(t);
  }, [copied]);

  if (!code) return <pre>{children}</pre>;
  return (
    <div className="code-block" role="group" aria-label={`Code block, ${language ?? 'plain text'}`}>
      <div className="code-head">
        <span className="code-lang">{language ?? 'text'}</span>
        <button
          type="button"
          className="code-copy"
          aria-label={copied ? 'Copied' : 'Copy code'}
          onClick={async () => {
            if (await copyText(text)) setCopied(true);
            else toast.error('Copy failed: the browser refused clipboard access.');
          }}
        >
          {/* Text, not an icon: this block sits inside rendered model output, which carries no <svg> at all (the XSS tests check that). */}
          <span aria-hidden="true">{copied ? 'Copied' : 'Copy'}</span>
        </button>
      </div>
      {/* Focusable: a long line scrolls sideways, and keyboard users must be able to scroll it too. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <pre tabIndex={0}>
        <code className={tree ? `hljs language-${language}` : undefined}>{tree ? <Spans nodes={tree.children} /> : text}</code>
      </pre>
    </div>
  );
}
