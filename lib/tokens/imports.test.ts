import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Value imports and re-exports of a module (type-only ones are erased and do not load anything). */
function valueImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^'";]*?\bfrom\s+)?['"]([^'"]+)['"]/gm;
  for (let m = re.exec(src); m; m = re.exec(src)) if (!m[2]) out.push(m[4]!);
  for (const m of src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

function resolveLocal(from: string, spec: string): string | null {
  const base = spec.startsWith('@/') ? join(ROOT, spec.slice(2)) : spec.startsWith('.') ? resolve(dirname(from), spec) : null;
  if (!base) return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(c) && c.match(/\.tsx?$/)) return c;
  return null;
}

/** Every module loaded at runtime from `entry`: local files and package specifiers. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const f = stack.pop()!;
    if (files.has(f)) continue;
    files.add(f);
    for (const spec of valueImports(f)) {
      const local = resolveLocal(f, spec);
      if (local) stack.push(local);
      else packages.add(spec);
    }
  }
  return { files, packages };
}

describe('what the main thread may load', () => {
  // The page and its layout are where the main thread's graph starts (the worker is a separate bundle).
  for (const entry of ['app/page.tsx', 'app/layout.tsx', 'workers/tokensClient.ts']) {
    it(`${entry} never reaches gpt-tokenizer`, () => {
      const { files, packages } = runtimeGraph(join(ROOT, entry));
      expect([...packages].filter((p) => p.startsWith('gpt-tokenizer'))).toEqual([]);
      expect([...files].map((f) => f.slice(ROOT.length))).not.toContain('lib/tokens/exact.ts');
      expect([...files].map((f) => f.slice(ROOT.length))).not.toContain('workers/tokens.api.ts');
    });
  }

  it('the worker side does load it (the check above can see it)', () => {
    const { packages } = runtimeGraph(join(ROOT, 'workers/tokens.worker.ts'));
    expect([...packages].some((p) => p.startsWith('gpt-tokenizer'))).toBe(true);
  });
});
