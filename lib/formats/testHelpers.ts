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
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
