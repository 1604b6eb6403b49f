import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { importText } from '@/lib/formats/import';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { pathTokensFromCounts, type PathTokens } from '@/lib/tokens/pathTokens';
import { FIXTURES, readFixture, type FixtureName } from './fixtures';

/**
 * Test-only support for the compaction tests: real sessions through the
 * importers of lib/formats, and o200k token counts of a plain rendering of
 * each entry (good enough to exercise budgets; the app's exact counting lives
 * in lib/tokens).
 */

const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counts by text, remembered: the compaction tests count the same transcripts' texts over and over
 * (every prefix, every budget), and exact BPE counting was most of their time, which mutation
 * testing pays once per mutant.
 */
const counted = new Map<string, number>();
const MAX_REMEMBERED = 50_000;

export function countText(text: string): number {
  if (text.length === 0) return 0;
  let n = counted.get(text);
  if (n === undefined) {
    n = countTokens(text, AS_TEXT);
    if (counted.size >= MAX_REMEMBERED) counted.clear();
    counted.set(text, n);
  }
  return n;
}

/** Images cost a fixed amount here: what matters is that base64 is never counted as text. */
export const IMAGE_TOKENS = 800;

/** What the model sees of an entry, as one string (media excluded). */
export function entryText(e: SessionEntry): string {
  if (e.type === 'compaction' || e.type === 'branch_summary') return e.summary;
  if (e.type !== 'message') return '';
  const m = e.message;
  const out: string[] = [];
  for (const p of m.content) {
    if (p.type === 'text') out.push(p.text);
    else if (p.type === 'thinking') out.push(p.redacted ? '' : p.thinking);
    else if (p.type === 'toolCall') out.push(`${p.name} ${JSON.stringify(p.arguments)}`);
    else if (p.type === 'file') out.push(p.text ?? '');
  }
  return out.join('\n');
}

const cache = new WeakMap<SessionEntry, number>();

export function entryTokens(e: SessionEntry): number {
  let n = cache.get(e);
  if (n === undefined) {
    n = countText(entryText(e));
    if (e.type === 'message') {
      n += 4;
      for (const p of e.message.content) if (p.type === 'image') n += IMAGE_TOKENS;
    }
    cache.set(e, n);
  }
  return n;
}

export function pathTokens(path: readonly SessionEntry[]): PathTokens {
  return pathTokensFromCounts(path.map(entryTokens));
}

export interface LoadedSession {
  snapshot: SessionSnapshot;
  tree: SessionTree;
  /** Root → leaf path at the session's leaf. */
  path: SessionEntry[];
}

const loaded = new Map<string, LoadedSession[]>();

/** Every session of a fixture, imported once per test file. */
export function loadSessions(name: FixtureName): LoadedSession[] {
  let out = loaded.get(name);
  if (!out) {
    const res = importText(readFixture(name), { fileName: FIXTURES[name] });
    out = res.sessions.map((snapshot) => {
      const tree = new SessionTree(snapshot.entries);
      return { snapshot, tree, path: tree.pathTo(snapshot.meta.leafId) };
    });
    loaded.set(name, out);
  }
  return out;
}

export function loadSession(name: FixtureName): LoadedSession {
  return loadSessions(name)[0]!;
}

/** Every root → leaf path of a session's tree (sub-agent sidechains are separate roots in Claude Code). */
export function allLeafPaths(s: LoadedSession): SessionEntry[][] {
  return s.tree.leaves().map((l) => s.tree.pathTo(l.id));
}
