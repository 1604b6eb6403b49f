import katex, { type KatexOptions } from 'katex';
import remarkMath from 'remark-math';
import type { PluggableList } from 'unified';

/**
 * Math in markdown: `$…$` inline and `$$…$$` (or a ```math block) on its own,
 * typeset by KaTeX. Both renderers (the app's, with rehype-katex in
 * mathApp.ts, and the HTML export's, rehypeMathMl here) run KaTeX after the
 * sanitizer: the sanitizer only lets the TeX source through as text
 * in a `code.math-inline` / `code.math-display` element, and KaTeX, with
 * `trust` off (no \href, \url, \htmlClass…), turns it into its own markup.
 */

interface Node {
  type: string;
  value?: string;
  children?: Node[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/**
 * Dollar signs in prose are usually money: Pandoc's rule tells the two apart,
 * and it is applied here to what remark-math parsed. Text between two `$` is
 * not math when it starts or ends with a space ("$5 and $10") or when the
 * closing `$` is followed by a digit ("$5-$10"); it goes back to being the
 * text it was, read from the source (remark-math trims spaces like a code span).
 */
export function remarkMoneyIsNotMath() {
  return (tree: Node, file: { value?: unknown }) => {
    const source = typeof file.value === 'string' ? file.value : String(file.value ?? '');
    const stack: Node[] = [tree];
    while (stack.length) {
      const node = stack.pop()!;
      const kids = node.children;
      if (!kids) continue;
      for (let i = 0; i < kids.length; i++) {
        const kid = kids[i]!;
        if (kid.type !== 'inlineMath') {
          stack.push(kid);
          continue;
        }
        const start = kid.position?.start.offset;
        const end = kid.position?.end.offset;
        const raw = start !== undefined && end !== undefined ? source.slice(start, end) : `$${kid.value ?? ''}$`;
        const inner = raw.replace(/^\$+|\$+$/g, '');
        const next = kids[i + 1];
        if (/^\s|\s$/.test(inner) || (next?.type === 'text' && /^\d/.test(next.value ?? ''))) kids[i] = { type: 'text', value: raw };
      }
    }
  };
}

export const mathRemarkPlugins: PluggableList = [remarkMath, remarkMoneyIsNotMath];

/** The same KaTeX settings everywhere: no trust (no \\href, \\url, \\html…), bounded sizes and macro expansion, errors shown in place. */
export const KATEX_OPTIONS = { throwOnError: false, strict: 'ignore', trust: false, maxSize: 50, maxExpand: 1000 } satisfies KatexOptions;

interface HastElement {
  type: 'element';
  tagName: string;
  properties?: { className?: unknown };
  children: HastNode[];
}
type HastNode = HastElement | { type: 'text'; value: string } | { type: 'raw'; value: string } | { type: string; children?: HastNode[] };

const classesOf = (e: HastElement): string[] => (Array.isArray(e.properties?.className) ? (e.properties.className as string[]) : []);
const textOf = (n: HastNode): string => ('value' in n && n.type === 'text' ? n.value : 'children' in n && n.children ? n.children.map(textOf).join('') : '');

/**
 * For the HTML export: math as MathML, which browsers typeset themselves, so
 * the exported file needs no fonts or stylesheet. KaTeX writes the markup (and
 * escapes the TeX in it); it goes into the document as it is, which is why the
 * export stringifies with raw HTML allowed: after the sanitizer these are the
 * only raw nodes in the tree. Runs without a DOM (the formats worker).
 */
export function rehypeMathMl() {
  return (tree: HastNode) => {
    const visit = (node: HastNode) => {
      if (!('children' in node) || !node.children) return;
      node.children = node.children.map((kid) => {
        if (kid.type !== 'element') return kid;
        const el = kid as HastElement;
        let math: HastElement | null = null;
        let display = false;
        if (el.tagName === 'code' && (classesOf(el).includes('math-inline') || classesOf(el).includes('math-display'))) {
          math = el;
          display = classesOf(el).includes('math-display');
        } else if (el.tagName === 'pre' && el.children.length === 1 && el.children[0]!.type === 'element') {
          const code = el.children[0] as HastElement;
          if (code.tagName === 'code' && classesOf(code).some((c) => c === 'language-math' || c === 'math-display')) {
            math = code;
            display = true;
          }
        }
        if (!math) {
          visit(el);
          return el;
        }
        return { type: 'raw', value: katex.renderToString(textOf(math), { ...KATEX_OPTIONS, displayMode: display, output: 'mathml' }) };
      });
    };
    visit(tree);
  };
}
