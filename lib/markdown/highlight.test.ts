import { describe, expect, it } from 'vitest';
import { codeLanguage } from './codeLanguage';
import { highlightCode } from './highlight';

function texts(node: unknown): string {
  const n = node as { type: string; value?: string; children?: unknown[] };
  return n.type === 'text' ? (n.value ?? '') : (n.children ?? []).map(texts).join('');
}

function classesOf(node: unknown, out = new Set<string>()): Set<string> {
  const n = node as { type: string; properties?: { className?: string[] }; children?: unknown[] };
  for (const c of n.properties?.className ?? []) out.add(c);
  for (const k of n.children ?? []) classesOf(k, out);
  return out;
}

describe('highlightCode', () => {
  const code = 'export function add(a: number, b: number): number {\n  // sum\n  return a + b + 1;\n}\n';

  it('marks keywords, comments and numbers, and keeps every character of the code', () => {
    const tree = highlightCode(code, 'ts')!;
    expect(texts(tree)).toBe(code);
    const classes = classesOf(tree);
    expect(classes).toContain('hljs-keyword');
    expect(classes).toContain('hljs-comment');
    expect(classes).toContain('hljs-number');
  });

  it('knows languages by their aliases, in any case', () => {
    expect(highlightCode('x = 1', 'PY')).not.toBeNull();
    expect(highlightCode('echo hi', 'sh')).not.toBeNull();
  });

  it('leaves unknown, missing and oversized code plain', () => {
    expect(highlightCode(code, 'no-such-language')).toBeNull();
    expect(highlightCode(code, undefined)).toBeNull();
    expect(highlightCode('a'.repeat(70_000), 'ts')).toBeNull();
  });
});

describe('codeLanguage', () => {
  it('reads the language class as remark writes it, as an array or a string', () => {
    expect(codeLanguage(['language-rust'])).toBe('rust');
    expect(codeLanguage('hljs language-go')).toBe('go');
    expect(codeLanguage(['language-'])).toBeUndefined();
    expect(codeLanguage(undefined)).toBeUndefined();
  });
});
