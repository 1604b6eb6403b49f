/** The language named in a code element's classes (`language-ts` → `ts`), as markdown renderers write it. */
export function codeLanguage(className: unknown): string | undefined {
  const classes = Array.isArray(className) ? className : typeof className === 'string' ? className.split(/\s+/) : [];
  for (const c of classes) if (typeof c === 'string' && c.startsWith('language-')) return c.slice('language-'.length) || undefined;
  return undefined;
}
