import rehypeKatex, { type Options as KatexOptions } from 'rehype-katex';
import remarkMath from 'remark-math';
import type { Pluggable, PluggableList } from 'unified';

/**
 * Math in markdown: `$…$` inline and `$$…$$` (or a ```math block) on its own,
 * typeset by KaTeX. Both renderers (the app's and the HTML export's) run KaTeX
 * after the sanitizer: the sanitizer only lets the TeX source through as text
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

// rehype-katex catches KaTeX's errors itself and shows the source in red; strict off keeps unusual but valid TeX quiet.
const KATEX_COMMON = { strict: 'ignore', trust: false, maxSize: 50, maxExpand: 1000 } satisfies KatexOptions;

/** The app: KaTeX's HTML (styled by katex.css, fonts bundled) plus MathML for screen readers. */
export const appKatex: Pluggable = [rehypeKatex, { ...KATEX_COMMON, output: 'htmlAndMathml' } satisfies KatexOptions];

/** The HTML export: MathML only, which browsers typeset themselves, so the file needs no fonts or stylesheet. */
export const exportKatex: Pluggable = [rehypeKatex, { ...KATEX_COMMON, output: 'mathml' } satisfies KatexOptions];

/** Whether a text can hold math at all: the plugins are loaded only for texts that can. */
export function mayHoldMath(text: string): boolean {
  return text.includes('$') || text.includes('```math');
}
