import { mulberry32 } from '@/lib/testing/generate';
import { expect } from 'vitest';
import { sessionEntrySchema, sessionMetaSchema } from '@/lib/session/schema';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantContent, SessionEntry, SessionSnapshot, UserContent } from '@/lib/session/types';

/**
 * Test-only helpers. The raw-file readers here are deliberately naive and
 * independent of lib/formats (JSON.parse per line, brute-force split of a
 * line holding two objects), so expectations are not computed by the code
 * under test.
 */

export type Raw = Record<string, unknown>;

/** Every JSON object of a JSONL text, in order. A line that does not parse is split at the first `}{` that gives two valid halves. */
export function rawRecords(text: string): { line: number; rec: Raw }[] {
  const out: { line: number; rec: Raw }[] = [];
  text.split('\n').forEach((l, i) => {
    if (!l.trim()) return;
    try {
      out.push({ line: i + 1, rec: JSON.parse(l) as Raw });
      return;
    } catch {
      /* fall through */
    }
    for (let at = l.indexOf('}{'); at !== -1; at = l.indexOf('}{', at + 1)) {
      try {
        const a = JSON.parse(l.slice(0, at + 1)) as Raw;
        const b = JSON.parse(l.slice(at + 1)) as Raw;
        out.push({ line: i + 1, rec: a }, { line: i + 1, rec: b });
        return;
      } catch {
        /* try the next split */
      }
    }
    throw new Error(`test helper: line ${i + 1} is not one or two JSON objects`);
  });
  return out;
}

/** Deterministic PRNG (mulberry32) so fuzz failures reproduce. */
export const prng = mulberry32;

export function randomChunks(text: string, rand: () => number, max: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rand() * max);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

export async function* asAsync(chunks: string[]): AsyncGenerator<string> {
  for (const c of chunks) yield c;
}

/** Schema-valid meta and entries, a buildable tree, a leaf that exists. */
export function expectWellFormed(s: SessionSnapshot): SessionTree {
  expect(sessionMetaSchema.safeParse(s.meta).success).toBe(true);
  for (const e of s.entries) {
    const r = sessionEntrySchema.safeParse(e);
    if (!r.success) throw new Error(`entry ${e.id} invalid: ${JSON.stringify(r.error.issues[0])}`);
  }
  const tree = new SessionTree(s.entries);
  const seen = new Set<string>();
  for (const e of s.entries) {
    if (e.parentId !== null && tree.has(e.parentId)) expect(seen.has(e.parentId)).toBe(true);
    seen.add(e.id);
  }
  if (s.meta.leafId !== null) expect(tree.has(s.meta.leafId)).toBe(true);
  return tree;
}

/** Every toolResult answers a toolCall that comes earlier on its own root→entry path. */
export function expectToolResultsPaired(s: SessionSnapshot): number {
  const tree = new SessionTree(s.entries);
  let n = 0;
  for (const e of s.entries) {
    if (e.type !== 'message' || e.message.role !== 'toolResult') continue;
    const id = e.message.toolCallId;
    const path = tree.pathTo(e.id);
    const found = path.slice(0, -1).some((p) => p.type === 'message' && p.message.role === 'assistant' && p.message.content.some((c) => c.type === 'toolCall' && c.id === id));
    if (!found) throw new Error(`toolResult ${e.id} (${id}) has no call on its path`);
    n++;
  }
  return n;
}

/** No base64 image payload hiding in a text part (PNG/JPEG/GIF base64 magic). */
export function expectNoBase64InText(s: SessionSnapshot): void {
  for (const e of s.entries) {
    if (e.type !== 'message') continue;
    for (const p of e.message.content) {
      if (p.type === 'text') expect(/iVBORw0KGgo|\/9j\/4AAQ|R0lGOD/.test(p.text), `base64 image in text of ${e.id}`).toBe(false);
    }
  }
}

export function countBy(entries: readonly SessionEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    const k = e.type === 'message' ? e.message.role : e.type;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Snapshots without the random session id, for comparing two imports of the same input. */
export function withoutSessionId(s: SessionSnapshot): SessionSnapshot {
  const { id: _id, ...meta } = s.meta;
  return { meta: meta as SessionSnapshot['meta'], entries: s.entries };
}

/** Every content part of every message, in entry order. */
export function allParts(s: SessionSnapshot): (UserContent | AssistantContent)[] {
  const out: (UserContent | AssistantContent)[] = [];
  for (const e of s.entries) if (e.type === 'message') out.push(...(e.message.content as (UserContent | AssistantContent)[]));
  return out;
}

/** Every start tag of an HTML string, so checks can ignore escaped text. Quoted attribute values may contain ">". */
export function startTags(html: string): string[] {
  return html.match(/<[a-zA-Z][^\s/>]*(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*\s*\/?>/g) ?? [];
}

/** Attribute names and (unescaped-enough) values of a start tag. */
export function attributes(tag: string): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  const re = /\s+([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  for (const m of tag.replace(/^<[^\s/>]+/, '').matchAll(re)) {
    const raw = m[2] ?? m[3] ?? m[4] ?? '';
    const value = raw.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d))).replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    out.push({ name: m[1]!.toLowerCase(), value });
  }
  return out;
}

/**
 * No construct that could run script: no script/iframe/… elements, no on* handlers, no javascript: URLs, no inline
 * styles in content. `allowMathMl` accepts the <math> that KaTeX writes from TeX (every attribute is still checked).
 */
export function expectInert(html: string, opts: { allowStyleElement?: boolean; allowMathMl?: boolean } = {}): void {
  expect(html).not.toMatch(/<script/i);
  const names = ['iframe', 'object', 'embed', 'link', 'form', 'svg', 'base', 'maction', ...(opts.allowStyleElement ? [] : ['style', 'meta']), ...(opts.allowMathMl ? [] : ['math'])];
  expect(html).not.toMatch(new RegExp(`<(${names.join('|')})\\b`, 'i'));
  for (const t of startTags(html)) {
    for (const a of attributes(t)) {
      expect(a.name, t).not.toMatch(/^on/);
      expect(a.name, t).not.toBe('style');
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset'].includes(a.name)) {
        expect(a.value.replace(/[\s\u0000-\u001f]/g, ''), t).not.toMatch(/^(javascript|vbscript|data:text)/i);
      }
    }
  }
}

/** A small session using every entry type, a branch, an image and a token cache. */
export function sampleSnapshot(): SessionSnapshot {
  const t = 1_700_000_000_000;
  const details = { readFiles: ['a.ts'], modifiedFiles: ['b.ts'], summarizer: { kind: 'model' as const, model: 'openai:gpt-4o' }, durationMs: 1200, usage: { input: 10, output: 5 } };
  const entries: SessionEntry[] = [
    { id: 'u1', parentId: null, timestamp: t, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', byteLength: 70 }, { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: 5, text: 'notes' }] }, tokens: { v: 1, o200k: 12, chars4: 3 } },
    { id: 'a1', parentId: 'u1', timestamp: t + 1, type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'let me look' }, { type: 'text', text: 'Reading the file.' }, { type: 'toolCall', id: 'call-1', name: 'read', arguments: { path: 'a.ts' } }], model: 'openai:gpt-4o', usage: { input: 100, output: 20, cacheRead: 5, totalTokens: 125, cost: 0.01 }, stopReason: 'toolUse', status: 'complete' } },
    { id: 'r1', parentId: 'a1', timestamp: t + 2, type: 'message', message: { role: 'toolResult', toolCallId: 'call-1', toolName: 'read', content: [{ type: 'text', text: 'const a = 1;' }], isError: false } },
    { id: 'c1', parentId: 'r1', timestamp: t + 3, type: 'compaction', summary: '## Goal\nRead a.ts', firstKeptEntryId: 'a1', tokensBefore: 5000, tokensAfter: 800, details },
    { id: 'm1', parentId: 'c1', timestamp: t + 4, type: 'model_change', model: 'anthropic:claude-x' },
    { id: 'a2', parentId: 'm1', timestamp: t + 5, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Done, **a** is 1.' }], stopReason: 'stop' } },
    { id: 'u2', parentId: 'a1', timestamp: t + 6, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Different question' }] } },
    { id: 'b1', parentId: 'u2', timestamp: t + 7, type: 'branch_summary', fromId: 'a2', summary: 'Explored a.ts, found a = 1.', details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
    { id: 'l1', parentId: 'b1', timestamp: t + 8, type: 'label', targetId: 'u1', label: 'start' },
    { id: 's1', parentId: 'l1', timestamp: t + 9, type: 'summary_revision', targetId: 'b1', action: 'edit', summary: 'Edited summary', details: { customInstructions: 'shorter' } },
    { id: 'x1', parentId: 's1', timestamp: t + 10, type: 'custom', customType: 'test:thing', data: { nested: [1, { a: null }] }, display: 'a custom record' },
    { id: 'a3', parentId: 'x1', timestamp: t + 11, type: 'message', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'rate limited' } },
  ];
  return {
    meta: { id: 'sess-1', title: 'Sample', createdAt: t, updatedAt: t + 11, leafId: 'a3', model: 'openai:gpt-4o', systemPrompt: 'Be brief.', compaction: { keepRecentTokens: 1000 }, source: { format: 'pi', fileName: 'x.jsonl', hash: 'abc', originalId: 'o' }, cwd: '/w' },
    entries,
  };
}

/** What `f` throws, or undefined when it returns: for asserting on an error's class and fields. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}
