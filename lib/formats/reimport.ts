import type { AssistantContent, ChatMessage, EntryId, SessionEntry, SessionMeta, SessionSnapshot } from '@/lib/session/types';
import { Fnv1a64 } from './hash';

/**
 * A file read again: the session it updates, and how.
 *
 * Agent transcripts keep growing (Claude Code, Codex, pi and Gemini CLI append
 * to one file per session), so a file read a second time is usually the same
 * session with more at its end. Such a session is known by its tool and the
 * id the tool gave it (`source.format` + `source.originalId`), and its entries
 * by ids the readers derive from the file (uuids, line numbers, message ids),
 * so what is new is exactly the entries whose ids are not stored yet.
 *
 * Stored entries are never rewritten (sync and every tab rely on it), so the
 * decision is about whether the file still holds everything taken from it:
 * - `unchanged`: the same entries (by a hash over them, without reading the store);
 * - `updated`: every entry taken before is still there, the same; the new ones
 *   are appended under their own parents;
 * - `changed`: something taken before is gone or different: the file is
 *   imported as a separate copy and the user is told why.
 *
 * "The same" allows for what a transcript adds to a record after writing it,
 * which a file read mid-turn has not got yet: a reply's final usage and stop
 * reason, a command's exit status, the time of a record, and more parts of the
 * reply being written (Codex groups consecutive output items into one entry).
 * The stored entry keeps what it had; more parts become a continuation entry
 * (`<id>:more<n>`, an assistant message with the parts that were missing)
 * that the entries after it hang from.
 *
 * What the user added here stays: new entries hang from the entry the file
 * names, except that when the session's current position is the file's last
 * entry followed only by the user's own compactions, labels, pins, masks and
 * summary revisions (no messages), the file's continuation goes after them,
 * so they stay in effect. When the user went on chatting here, the file's
 * continuation is a branch of its own and the position stays where it is.
 */

export type ReimportMode =
  /** A transcript from another tool: it holds the source's entries only, and may lose some (then it changed). */
  | 'source'
  /** The app's own export: a whole tree that may hold less than this browser (an older export) but never differs. */
  | 'native';

export type ReimportPlan =
  | { kind: 'unchanged' }
  | {
      kind: 'updated';
      /** In order, parents first; their parents are stored or earlier in the list. */
      append: SessionEntry[];
      /** The position after the update, or null to leave it where it is. */
      leafId: EntryId | null;
      /** Messages among the appended entries (continuations of a reply stored in part count as none). */
      messages: number;
      /** The new entries do not continue from where the session is (the user went on chatting here). */
      onBranch: boolean;
    }
  | { kind: 'changed'; reason: string };

export interface StoredSession {
  leafId: EntryId | null;
  /** Every stored entry, in stored order. */
  entries: readonly SessionEntry[];
  source?: SessionMeta['source'];
}

/** Key order independent JSON, so two copies of one entry compare equal whatever path built them. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
}

/**
 * An entry as compared: without its token cache (this device's own) and its time, which is no part of
 * what a record says and which a transcript may refine later (Codex), or which is the time of the
 * import for a file that records none (SWE-agent).
 */
function withoutCaches(e: SessionEntry): Omit<SessionEntry, 'tokens' | 'timestamp'> {
  const { tokens: _t, timestamp: _s, ...rest } = e;
  return rest;
}

/** A hash over the entries a source gave (token caches and times aside): equal for the same entries in the same order. */
export function entriesHash(entries: readonly SessionEntry[]): string {
  const h = new Fnv1a64();
  for (const e of entries) h.update(canonical(withoutCaches(e))).update('\n');
  return h.hex();
}

const CONTINUATION = /^(.+):more(\d+)$/;

/** The id of the entry that carries parts `from`… of a reply stored in part. */
export const continuationId = (id: EntryId, from: number): EntryId => `${id}:more${from}`;

/** Fields a transcript may fill in after writing a record; a stored entry keeps its own. */
const LATE_FIELDS: Record<ChatMessage['role'], readonly string[]> = {
  user: [],
  assistant: ['usage', 'stopReason', 'status', 'errorMessage'],
  toolResult: ['isError'],
};

type Comparison = { kind: 'same' } | { kind: 'more'; parts: AssistantContent[] } | { kind: 'different' };

/** Compares a stored entry (its content including any continuations) with the file's version of it, parents aside. */
function compare(stored: SessionEntry, storedParts: readonly unknown[] | null, incoming: SessionEntry): Comparison {
  if (storedParts === null && canonical({ ...withoutCaches(stored), parentId: null }) === canonical({ ...withoutCaches(incoming), parentId: null })) return { kind: 'same' };
  if (stored.type !== 'message' || incoming.type !== 'message' || stored.message.role !== incoming.message.role) return { kind: 'different' };
  if (stored.id !== incoming.id) return { kind: 'different' };
  const late = LATE_FIELDS[stored.message.role];
  const strip = (m: ChatMessage) => {
    const rest: Record<string, unknown> = { ...m };
    for (const f of late) delete rest[f];
    delete rest.content;
    return canonical(rest);
  };
  if (strip(stored.message) !== strip(incoming.message)) return { kind: 'different' };
  const have = storedParts ?? (stored.message.content as readonly unknown[]);
  const want = incoming.message.content as readonly unknown[];
  if (have.length > want.length) return { kind: 'different' };
  for (let i = 0; i < have.length; i++) if (canonical(have[i]) !== canonical(want[i])) return { kind: 'different' };
  if (have.length === want.length) return { kind: 'same' };
  // Only a reply grows by parts; a prompt or a tool result with more in it is another record.
  if (stored.message.role !== 'assistant') return { kind: 'different' };
  return { kind: 'more', parts: want.slice(have.length) as AssistantContent[] };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Entry types the user adds to a session without saying anything: they leave the conversation where it was. */
const PATH_STATE = new Set<SessionEntry['type']>(['compaction', 'branch_summary', 'label', 'pin', 'tool_mask', 'summary_revision', 'model_change']);

export function planReimport(stored: StoredSession, incoming: SessionSnapshot, mode: ReimportMode, incomingHash?: string): ReimportPlan {
  if (mode === 'source' && stored.source?.entriesHash && (incomingHash ?? entriesHash(incoming.entries)) === stored.source.entriesHash) return { kind: 'unchanged' };
  const incomingById = new Map(incoming.entries.map((e) => [e.id, e]));
  const storedById = new Map(stored.entries.map((e) => [e.id, e]));

  // Continuations stored by an earlier update, by the entry they continue, in order.
  const chains = new Map<EntryId, SessionEntry[]>();
  for (const e of stored.entries) {
    const m = CONTINUATION.exec(e.id);
    if (!m || incomingById.has(e.id) || !incomingById.has(m[1]!)) continue;
    chains.set(m[1]!, [...(chains.get(m[1]!) ?? []), e]);
  }
  const isContinuation = (id: EntryId) => [...chains.values()].some((c) => c.some((e) => e.id === id));
  /** Where the children of a source entry hang: the end of its continuations. */
  const remap = new Map<EntryId, EntryId>();
  for (const [id, chain] of chains) remap.set(id, chain.at(-1)!.id);
  const parentOf = (id: EntryId | null) => (id === null ? null : (remap.get(id) ?? id));
  /** Where children hung before this update: continuations made now are not there yet. */
  const storedTail = new Map(remap);
  const isOwn = (id: EntryId) => storedById.has(id) && !incomingById.has(id) && !isContinuation(id);

  const taken = stored.entries.filter((e) => incomingById.has(e.id));
  if (mode === 'source' && stored.source?.entries !== undefined && taken.length < stored.source.entries) {
    const gone = stored.source.entries - taken.length;
    return { kind: 'changed', reason: `${plural(gone, 'entry', 'entries')} imported from it before ${gone === 1 ? 'is' : 'are'} no longer in the file` };
  }

  const continued: SessionEntry[] = [];
  const childrenStored = new Set<EntryId>();
  for (const e of taken) if (e.parentId !== null) childrenStored.add(e.parentId);
  for (const s of taken) {
    const inc = incomingById.get(s.id)!;
    const expected = parentOf(inc.parentId);
    // A parent of the user's own (a compaction made here) is where an earlier update hung the file's continuation.
    if (s.parentId !== expected && !(s.parentId !== null && isOwn(s.parentId))) {
      return { kind: 'changed', reason: 'an entry imported from it before now follows another one' };
    }
    const chain = chains.get(s.id);
    const storedParts: unknown[] | null =
      chain && s.type === 'message' ? [...s.message.content, ...chain.flatMap((c): unknown[] => (c.type === 'message' ? c.message.content : []))] : null;
    const cmp = compare(s, storedParts, inc);
    if (cmp.kind === 'different') {
      const when = new Date(s.timestamp).toISOString().slice(0, 16).replace('T', ' ');
      return { kind: 'changed', reason: `an entry imported from it before (${s.type === 'message' ? `${s.message.role} message` : s.type} of ${when} UTC) is different in the file` };
    }
    if (cmp.kind === 'more' && mode === 'native') return { kind: 'changed', reason: 'a reply in the file has more in it than the same reply here' };
    if (cmp.kind === 'more') {
      const tail = remap.get(s.id) ?? s.id;
      if (childrenStored.has(tail)) return { kind: 'changed', reason: 'a reply imported from it before has more parts in the file, but the entries after it were imported already' };
      const id = continuationId(s.id, storedParts?.length ?? (s.type === 'message' ? s.message.content.length : 0));
      if (incomingById.has(id) || storedById.has(id)) return { kind: 'changed', reason: `the file holds an entry named ${id}` };
      const message = { ...(inc as Extract<SessionEntry, { type: 'message' }>).message, content: cmp.parts } as ChatMessage;
      continued.push({ id, parentId: tail, timestamp: inc.timestamp, type: 'message', message });
      remap.set(s.id, id);
    }
  }

  const fresh = incoming.entries.filter((e) => !storedById.has(e.id)).map((e) => ({ ...e, parentId: parentOf(e.parentId) }) as SessionEntry);
  const append = [...continued, ...fresh];

  let leafId: EntryId | null = null;
  let onBranch = false;
  const newLeaf = parentOf(incoming.meta.leafId);
  if (mode === 'source') {
    // From the session's position up to the first entry from the file: only the user's path state on the way?
    let cur = stored.leafId;
    const own: SessionEntry[] = [];
    let base: EntryId | null = null;
    let chatted = false;
    while (cur !== null) {
      const e = storedById.get(cur);
      if (!e) break;
      if (!isOwn(cur)) {
        base = cur;
        break;
      }
      if (e.type === 'message' || !PATH_STATE.has(e.type)) {
        chatted = true;
        break;
      }
      own.push(e);
      cur = e.parentId;
    }
    if (chatted) onBranch = append.length > 0;
    else {
      const attach = base === null ? null : (storedTail.get(base) ?? base);
      if (attach !== null && own.length > 0) {
        // Path state the user added at the file's last entry stays in effect: the file's continuation goes after it.
        for (const e of append) if (e.parentId === attach) e.parentId = stored.leafId;
      }
      leafId = newLeaf !== null && newLeaf === attach && own.length > 0 ? null : newLeaf;
    }
  } else if (newLeaf !== null && newLeaf !== stored.leafId) {
    // The export moves this browser's position only forward along its own path (an older export never moves it back).
    const parents = new Map<EntryId, EntryId | null>([...stored.entries, ...append].map((e) => [e.id, e.parentId]));
    let cur: EntryId | null | undefined = newLeaf;
    while (cur != null && cur !== stored.leafId) cur = parents.get(cur);
    if (stored.leafId === null || cur === stored.leafId) leafId = newLeaf;
    else onBranch = append.length > 0;
  }
  if (leafId === stored.leafId) leafId = null;
  if (append.length === 0 && leafId === null) return { kind: 'unchanged' };
  const messages = fresh.filter((e) => e.type === 'message').length;
  return { kind: 'updated', append, leafId, messages, onBranch };
}

/** The tool and id a session is known by, for formats whose files keep one session each and name it. */
export function sourceIdentity(meta: Pick<SessionMeta, 'source'>): { format: string; originalId: string } | null {
  const s = meta.source;
  return s?.format && s.originalId ? { format: s.format, originalId: s.originalId } : null;
}
