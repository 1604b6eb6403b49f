import rehypeKatex from 'rehype-katex';
import type { PluggableList } from 'unified';
import { KATEX_OPTIONS, mathRemarkPlugins } from './math';

/**
 * The app's math plugins, loaded by components/common/Markdown.tsx the first
 * time a text can hold math: KaTeX's HTML (styled by katex.css, fonts bundled)
 * plus MathML for screen readers. rehype-katex parses KaTeX's markup with the
 * page's DOMParser, so this module is for the page only, never a worker.
 */
export const remarkPlugins: PluggableList = mathRemarkPlugins;
export const rehypeKatexPlugins: PluggableList = [[rehypeKatex, { ...KATEX_OPTIONS, output: 'htmlAndMathml' }], rehypeScrollableDisplayMath];

interface Node {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: Node[];
}

/** A wide formula scrolls sideways in its own box: focusable, so a keyboard can scroll it as well as a finger. */
function rehypeScrollableDisplayMath() {
  return (tree: Node) => {
    const stack: Node[] = [tree];
    while (stack.length) {
      const n = stack.pop()!;
      const classes = n.properties?.className;
      if (n.tagName === 'span' && Array.isArray(classes) && classes.includes('katex-display')) n.properties = { ...n.properties, tabIndex: 0 };
      else if (n.children) stack.push(...n.children);
    }
  };
}
