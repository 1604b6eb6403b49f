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
  // The page and its layout are where the main thread's graph starts (the workers are separate bundles); the flows and
  // their browser ports (which start the workers) are checked on their own too.
  for (const entry of ['app/page.tsx', 'app/layout.tsx', 'lib/browser/ports.ts', 'lib/flows/app.ts', 'workers/tokensClient.ts']) {
    it(`${entry} never reaches gpt-tokenizer`, () => {
      const { files, packages } = runtimeGraph(join(ROOT, entry));
      expect([...packages].filter((p) => p.startsWith('gpt-tokenizer'))).toEqual([]);
      expect([...files].map((f) => f.slice(ROOT.length))).not.toContain('lib/tokens/exact.ts');
      expect([...files].map((f) => f.slice(ROOT.length))).not.toContain('lib/sessionTokens/service.ts');
    });
  }

  it('the worker side does load it (the check above can see it)', () => {
    const { packages } = runtimeGraph(join(ROOT, 'workers/tokens.worker.ts'));
    expect([...packages].some((p) => p.startsWith('gpt-tokenizer'))).toBe(true);
  });
});

describe('what the token worker may load', () => {
  // It reads model ids (lib/providers/modelId.ts and the descriptor table) and plans summaries, but must not pull in
  // the AI SDK or its provider packages: those run on the server.
  const isSdk = (p: string) => p === 'ai' || p.startsWith('ai/') || p.startsWith('@ai-sdk/');

  for (const entry of ['workers/tokens.worker.ts', 'workers/tokens.node-worker.ts']) {
    it(`${entry} reaches the model-id parser but never a provider package`, () => {
      const { files, packages } = runtimeGraph(join(ROOT, entry));
      const local = [...files].map((f) => f.slice(ROOT.length));
      expect(local).toContain('lib/providers/modelId.ts');
      expect(local).toContain('lib/providers/descriptors.ts');
      expect([...packages].filter(isSdk)).toEqual([]);
      expect(local).not.toContain('lib/providers/sdkAdapters.ts');
      expect(local).not.toContain('lib/compaction/languageModelSummarizer.ts');
    });
  }

  it('the server side does load the SDK (the check above can see it)', () => {
    const { packages } = runtimeGraph(join(ROOT, 'lib/providers/factory.ts'));
    expect([...packages].filter((p) => p.startsWith('@ai-sdk/')).sort()).toEqual(['@ai-sdk/anthropic', '@ai-sdk/google', '@ai-sdk/openai', '@ai-sdk/openai-compatible']);
  });
});
