import type { Root } from 'hast';
import { common, createLowlight } from 'lowlight';

/**
 * Syntax highlighting for code blocks: highlight.js grammars through lowlight,
 * which returns a tree of spans (no HTML string, no eval, no WebAssembly, so
 * the page's CSP stays as it is). The app loads this module only when a code
 * block is on screen.
 */

const lowlight = createLowlight(common);

/** Bigger blocks are shown plain: highlighting them would hold the main thread for too long. */
const MAX_HIGHLIGHT_CHARS = 60_000;

/** The highlighted tree, or null when the language is unknown (or absent) or the code too long: show it plain. */
export function highlightCode(code: string, language: string | undefined): Root | null {
  if (!language || code.length > MAX_HIGHLIGHT_CHARS) return null;
  const lang = language.toLowerCase();
  if (!lowlight.registered(lang)) return null;
  return lowlight.highlight(lang, code);
}
