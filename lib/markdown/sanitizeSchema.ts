import { defaultSchema, type Options as SanitizeSchema } from 'rehype-sanitize';

/**
 * One sanitize schema for everything that renders untrusted markdown (model
 * output, imported transcripts): the HTML export (render.ts) and the app's
 * react-markdown. GitHub's rules, narrowed: links only http(s), mailto and
 * relative; images only http(s) (the HTML export additionally forbids remote
 * images through its CSP). Event handlers, styles and scripts are never in
 * the allow-list, so they are dropped. Math reaches the sanitizer as TeX text
 * in `code.math-inline` / `code.math-display` (remark-math), and is typeset by
 * KaTeX after it (lib/markdown/math.ts).
 */
export const markdownSanitizeSchema: SanitizeSchema = {
  ...defaultSchema,
  protocols: {
    ...defaultSchema.protocols,
    href: ['http', 'https', 'mailto'],
    src: ['http', 'https'],
    cite: ['http', 'https'],
    longDesc: ['http', 'https'],
  },
  attributes: {
    ...defaultSchema.attributes,
    code: [['className', /^language-./, 'math-inline', 'math-display']],
  },
};
