import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { exportJsonl } from './export/jsonl';
import { importText } from './import';
import { entriesHash, planReimport, sourceIdentity, type ReimportPlan, type StoredSession } from './reimport';

/**
 * Every reader's sessions matched again by their tool and id, on the real
 * transcripts: a file cut at a line boundary (an import made while the agent
 * was still writing) and then the whole file update one session, whatever
 * line the cut fell on; a file whose earlier part changed does not.
 */

const read = (text: string, fileName: string) => importText(text, { fileName, importedAt: 1_700_000_000_000 });
const one = (text: string, fileName: string) => read(text, fileName).sessions[0]!;

/** A session as the store holds it after importing `snap` (bookkeeping as importStaging writes it). */
function stored(snap: SessionSnapshot): StoredSession {
  return { leafId: snap.meta.leafId, entries: snap.entries, source: { ...snap.meta.source!, entries: snap.entries.length, entriesHash: entriesHash(snap.entries) } };
}

/** The store after applying an update: entries appended, the position moved when the plan says so, the bookkeeping of the file. */
function apply(s: StoredSession, plan: ReimportPlan, from: SessionSnapshot): StoredSession {
  if (plan.kind !== 'updated') throw new Error(`expected an update, got ${JSON.stringify(plan)}`);
  const ids = new Set(s.entries.map((e) => e.id));
  for (const e of plan.append) {
    expect(ids.has(e.id), `appended twice: ${e.id}`).toBe(false);
    expect(e.parentId === null || ids.has(e.parentId), `parent of ${e.id} missing`).toBe(true);
    ids.add(e.id);
  }
  return {
    leafId: plan.leafId ?? s.leafId,
    entries: [...s.entries, ...plan.append],
    source: { ...s.source!, entries: from.entries.length, entriesHash: entriesHash(from.entries) },
  };
}

/** The text of every message on the path to the leaf, continuations folded into the reply they continue. */
function pathText(entries: readonly SessionEntry[], leafId: string | null): string[] {
  const tree = new SessionTree([...entries]);
  const out: string[] = [];
  for (const e of tree.pathTo(leafId)) {
    if (e.type !== 'message') continue;
    const text = e.message.content.map((p) => ('text' in p ? p.text : 'thinking' in p ? p.thinking : 'name' in p ? `${p.name}(${JSON.stringify('arguments' in p ? p.arguments : '')})` : p.type)).join('|');
    if (e.id.includes(':more') && out.length) out[out.length - 1] += `|${text}`;
    else out.push(`${e.message.role}:${text}`);
  }
  return out;
}

/** Line numbers to cut at: spread over the file, so cuts land mid-reply, mid-turn and between turns. */
function cuts(lines: number, n: number): number[] {
  const out = new Set<number>();
  for (let i = 1; i <= n; i++) out.add(Math.max(2, Math.floor((lines * i) / (n + 1))));
  return [...out];
}

const LINE_FORMATS: { name: FixtureName; cuts: number }[] = [
  { name: 'claudeViewer', cuts: 12 },
  { name: 'claudeLog', cuts: 12 },
  { name: 'claudeCodemie', cuts: 12 },
  { name: 'claudeSpotterManual', cuts: 6 },
  { name: 'claudeSpotterOrphan', cuts: 4 },
  { name: 'codexRollout', cuts: 16 },
  { name: 'piV1', cuts: 6 },
  { name: 'piSession', cuts: 6 },
];

describe('a grown transcript updates its session (real line-based transcripts cut at many lines)', () => {
  for (const { name, cuts: n } of LINE_FORMATS) {
    it(`${name}: the cut file, then the whole one, give the whole conversation in one session`, () => {
      const text = readFixture(name);
      const fileName = FIXTURES[name];
      const full = one(text, fileName);
      const id = sourceIdentity(full.meta);
      expect(id?.originalId, 'the reader names the session').toBeTruthy();
      const lines = text.split('\n');
      let updated = 0;
      for (const k of cuts(lines.length, n)) {
        let part: SessionSnapshot;
        try {
          part = one(lines.slice(0, k).join('\n') + '\n', fileName);
        } catch {
          continue; // a cut before the first message
        }
        expect(sourceIdentity(part.meta), `cut at line ${k}: same tool and id`).toEqual(id);
        const before = stored(part);
        const plan = planReimport(before, full, 'source');
        if (part.entries.length === full.entries.length && plan.kind === 'unchanged') continue;
        const after = apply(before, plan, full);
        updated++;
        // Every entry of the file is there once (a continuation carries the parts a cut reply missed).
        const ids = new Set(after.entries.map((e) => e.id));
        for (const e of full.entries) expect(ids.has(e.id), `cut at ${k}: ${e.id}`).toBe(true);
        // The conversation at the new position reads as the whole file does.
        expect(after.leafId).toBe(plan.kind === 'updated' && plan.leafId ? plan.leafId : before.leafId);
        expect(pathText(after.entries, after.leafId), `cut at line ${k}`).toEqual(pathText(full.entries, full.meta.leafId));
        // And the same file once more changes nothing.
        expect(planReimport(after, full, 'source')).toEqual({ kind: 'unchanged' });
      }
      expect(updated).toBeGreaterThan(0);
    });
  }

  it('the same file again is unchanged without a look at the entries (the hash of what was taken)', () => {
    const text = readFixture('claudeSpotter258');
    const snap = one(text, FIXTURES.claudeSpotter258);
    const s = stored(snap);
    expect(planReimport({ ...s, entries: [] }, one(text, FIXTURES.claudeSpotter258), 'source')).toEqual({ kind: 'unchanged' });
  });

  it('a Codex rollout cut inside a reply: the stored part keeps its id and a continuation carries the rest', () => {
    const text = readFixture('codexRollout');
    const fileName = FIXTURES.codexRollout;
    const full = one(text, fileName);
    const lines = text.split('\n');
    let seen = 0;
    for (let k = 10; k < lines.length - 1 && seen < 3; k++) {
      let part: SessionSnapshot;
      try {
        part = one(lines.slice(0, k).join('\n') + '\n', fileName);
      } catch {
        continue;
      }
      const last = part.entries.at(-1)!;
      const whole = full.entries.find((e) => e.id === last.id)!;
      if (last.type !== 'message' || whole.type !== 'message' || whole.message.content.length <= last.message.content.length) continue;
      seen++;
      const plan = planReimport(stored(part), full, 'source');
      expect(plan.kind).toBe('updated');
      if (plan.kind !== 'updated') continue;
      const cont = plan.append[0]!;
      expect(cont).toMatchObject({ id: `${last.id}:more${last.message.content.length}`, parentId: last.id, type: 'message' });
      expect(cont.type === 'message' && cont.message.content).toEqual(whole.message.content.slice(last.message.content.length));
      // What followed the reply in the file follows the continuation.
      const next = plan.append.find((e) => e.id !== cont.id && full.entries.find((f) => f.id === e.id)?.parentId === last.id);
      if (next) expect(next.parentId).toBe(cont.id);
    }
    expect(seen).toBeGreaterThan(0);
  });
});

describe('Claude Code sub-agents', () => {
  it('a sub-agent’s file is a session of its own, not the main conversation its lines name', () => {
    const agent = one(readFixture('claudeCompactAgent946'), FIXTURES.claudeCompactAgent946);
    const main = one(readFixture('claudeSpotterManual'), FIXTURES.claudeSpotterManual);
    expect(agent.meta.source?.originalId).toBe(`${main.meta.source?.originalId}:agent-acompact-946d2b`);
  });
});

describe('a file whose earlier part changed is not an update', () => {
  it('Claude Code: an earlier prompt edited', () => {
    const text = readFixture('claudeLog');
    const full = one(text, FIXTURES.claudeLog);
    const firstUser = full.entries.find((e) => e.type === 'message' && e.message.role === 'user' && e.message.content.some((p) => p.type === 'text'))!;
    const lines = text.split('\n').map((l) => {
      if (!l.includes(firstUser.id)) return l;
      const rec = JSON.parse(l) as { uuid?: string; message?: { content: unknown } };
      if (rec.uuid !== firstUser.id) return l;
      rec.message!.content = 'A different first prompt';
      return JSON.stringify(rec);
    });
    const plan = planReimport(stored(full), one(lines.join('\n'), FIXTURES.claudeLog), 'source');
    expect(plan.kind).toBe('changed');
    expect(plan.kind === 'changed' && plan.reason).toMatch(/user message of .* is different in the file/);
  });

  it('pi: lines removed from the middle', () => {
    const text = readFixture('piSession');
    const full = one(text, FIXTURES.piSession);
    const lines = text.split('\n');
    const shorter = [...lines.slice(0, 40), ...lines.slice(60)].join('\n');
    let plan: ReimportPlan;
    try {
      plan = planReimport(stored(full), one(shorter, FIXTURES.piSession), 'source');
    } catch {
      return; // a file that no longer reads is refused before any matching
    }
    expect(plan.kind).toBe('changed');
    expect(plan.kind === 'changed' && plan.reason).toMatch(/no longer in the file|follows another one/);
  });

  it('Codex: a file cut shorter than what was imported (the earlier part is gone)', () => {
    const text = readFixture('codexRollout');
    const full = one(text, FIXTURES.codexRollout);
    const part = one(text.split('\n').slice(0, 150).join('\n') + '\n', FIXTURES.codexRollout);
    expect(planReimport(stored(full), part, 'source')).toMatchObject({ kind: 'changed', reason: expect.stringMatching(/entries imported from it before are no longer in the file/) });
  });
});

describe('the user’s own entries stay in effect', () => {
  const text = readFixture('claudeSpotter846');
  const fileName = FIXTURES.claudeSpotter846;
  const full = one(text, fileName);
  const lines = text.split('\n');
  const part = one(lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n', fileName);

  it('a compaction and a label made here at the imported end: the file’s continuation goes after them, the position follows the file', () => {
    const s = stored(part);
    const compaction: SessionEntry = {
      id: 'mine-compaction',
      parentId: s.leafId,
      timestamp: 2,
      type: 'compaction',
      summary: 'Made here',
      firstKeptEntryId: s.leafId!,
      tokensBefore: 1000,
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } },
    };
    const label: SessionEntry = { id: 'mine-label', parentId: compaction.id, timestamp: 3, type: 'label', targetId: s.leafId!, label: 'checkpoint' };
    const withMine: StoredSession = { ...s, entries: [...s.entries, compaction, label], leafId: label.id };
    const plan = planReimport(withMine, full, 'source');
    expect(plan).toMatchObject({ kind: 'updated', leafId: full.meta.leafId, onBranch: false });
    const after = apply(withMine, plan, full);
    const path = new SessionTree([...after.entries]).pathTo(after.leafId).map((e) => e.id);
    expect(path).toContain('mine-compaction');
    expect(path).toContain('mine-label');
    expect(path.indexOf('mine-label')).toBeLessThan(path.indexOf(full.meta.leafId!));
    // Read again: the entry hung after the user's own keeps its place, nothing is new.
    expect(planReimport(after, full, 'source')).toEqual({ kind: 'unchanged' });
    const again = planReimport({ ...after, source: { ...after.source!, entriesHash: 'other' } }, full, 'source');
    expect(again).toEqual({ kind: 'unchanged' });
  });

  it('messages written here: the file’s continuation is a branch, the position stays with the user', () => {
    const s = stored(part);
    const mine: SessionEntry = { id: 'mine-message', parentId: s.leafId, timestamp: 2, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'asked here' }] } };
    const plan = planReimport({ ...s, entries: [...s.entries, mine], leafId: mine.id }, full, 'source');
    expect(plan).toMatchObject({ kind: 'updated', leafId: null, onBranch: true });
    expect(plan.kind === 'updated' && plan.messages).toBeGreaterThan(0);
  });
});

describe('the Gemini CLI session file (rewritten whole as it grows)', () => {
  const doc = JSON.parse(readFixture('geminiSession')) as { messages: unknown[] };
  const fileName = FIXTURES.geminiSession;

  it('with its last reply missing, then whole: updated with the reply and its tool results', () => {
    const older = { ...doc, messages: doc.messages.slice(0, -1), lastUpdated: '2020-01-01T00:00:00Z' };
    const part = one(JSON.stringify(older), fileName);
    const full = one(JSON.stringify(doc), fileName);
    expect(sourceIdentity(part.meta)).toEqual(sourceIdentity(full.meta));
    const plan = planReimport(stored(part), full, 'source');
    expect(plan.kind).toBe('updated');
    const after = apply(stored(part), plan, full);
    expect(pathText(after.entries, after.leafId)).toEqual(pathText(full.entries, full.meta.leafId));
  });
});

describe('chat exports: every conversation is matched by its id', () => {
  const exports: { name: FixtureName; format: string }[] = [
    { name: 'chatgptExport', format: 'chatgpt' },
    { name: 'chatgptTree', format: 'chatgpt' },
    { name: 'claudeAiExport', format: 'claude-ai' },
    { name: 'lobeChatExport', format: 'lobechat' },
    { name: 'librechatTree', format: 'librechat' },
    { name: 'sweTraj', format: 'swe-agent' },
  ];
  for (const { name, format } of exports) {
    it(`${name}: read twice, each conversation is the same session, unchanged`, () => {
      const text = readFixture(name);
      const a = read(text, FIXTURES[name]).sessions;
      const b = read(text, FIXTURES[name]).sessions;
      expect(a.length).toBeGreaterThan(0);
      const ids = a.map((s) => sourceIdentity(s.meta));
      for (const id of ids) expect(id?.format).toBe(format);
      expect(new Set(ids.map((i) => i?.originalId)).size, 'conversations have distinct ids').toBe(a.length);
      a.forEach((s, i) => expect(planReimport({ ...stored(s), source: { ...stored(s).source!, entriesHash: undefined } }, b[i]!, 'source')).toEqual({ kind: 'unchanged' }));
    });
  }

  it('an Open WebUI chat exported without an id has no identity: only the same file is noticed (by its hash)', () => {
    const s = one(readFixture('openWebUiChat'), FIXTURES.openWebUiChat);
    expect(sourceIdentity(s.meta)).toBeNull();
  });

  it('ChatGPT: a conversation continued since the older export gets the new messages', () => {
    const convs = JSON.parse(readFixture('chatgptExport')) as { id: string; current_node: string; mapping: Record<string, { parent: string | null; children: string[] }> }[];
    const older = structuredClone(convs);
    const c = older[0]!;
    const leaf = c.current_node;
    const parent = c.mapping[leaf]!.parent!;
    delete c.mapping[leaf];
    c.mapping[parent]!.children = c.mapping[parent]!.children.filter((x) => x !== leaf);
    c.current_node = parent;
    const before = read(JSON.stringify(older), 'conversations.json').sessions;
    const after = read(JSON.stringify(convs), 'conversations.json').sessions;
    const s = before.find((x) => x.meta.source?.originalId === after[0]!.meta.source?.originalId)!;
    const plan = planReimport(stored(s), after[0]!, 'source');
    expect(plan).toMatchObject({ kind: 'updated', messages: 1, leafId: leaf, onBranch: false });
    // The other conversation did not change.
    expect(planReimport(stored(before[1]!), after[1]!, 'source')).toEqual({ kind: 'unchanged' });
  });

  it('Claude.ai: a conversation with more messages gets them; one with an edited message is changed', () => {
    const convs = JSON.parse(readFixture('claudeAiExport')) as { uuid: string; chat_messages: { text: string; content?: { type: string; text?: string }[] }[] }[];
    const idx = convs.findIndex((c) => c.chat_messages.length >= 4);
    const older = structuredClone(convs);
    older[idx]!.chat_messages = older[idx]!.chat_messages.slice(0, -2);
    const before = read(JSON.stringify(older), 'conversations.json').sessions;
    const now = read(JSON.stringify(convs), 'conversations.json').sessions;
    const find = (list: SessionSnapshot[]) => list.find((s) => s.meta.source?.originalId === convs[idx]!.uuid)!;
    const plan = planReimport(stored(find(before)), find(now), 'source');
    expect(plan).toMatchObject({ kind: 'updated', messages: 2 });
    const edited = structuredClone(convs);
    const m = edited[idx]!.chat_messages[0]!;
    m.text = 'Edited';
    for (const p of m.content ?? []) if (p.type === 'text') p.text = 'Edited';
    expect(planReimport(stored(find(now)), find(read(JSON.stringify(edited), 'conversations.json').sessions), 'source').kind).toBe('changed');
  });
});

describe('the app’s own export, by session id', () => {
  const snap = one(readFixture('piSession'), FIXTURES.piSession);
  const native = { meta: { ...snap.meta, id: 'made-here' }, entries: snap.entries };
  const cut = native.entries.slice(0, 100);
  const olderExport = one(exportJsonl({ meta: { ...native.meta, leafId: cut.at(-1)!.id }, entries: cut }), 'older.jsonl');
  const newerExport = one(exportJsonl(native), 'newer.jsonl');

  it('a newer export adds what it has more and moves the position forward', () => {
    const plan = planReimport({ leafId: cut.at(-1)!.id, entries: cut }, newerExport, 'native');
    expect(plan).toMatchObject({ kind: 'updated', leafId: native.meta.leafId, onBranch: false });
    expect(plan.kind === 'updated' && plan.append.length).toBe(native.entries.length - 100);
  });

  it('an older export changes nothing', () => {
    expect(planReimport({ leafId: native.meta.leafId, entries: native.entries }, olderExport, 'native')).toEqual({ kind: 'unchanged' });
  });

  it('an export whose entry differs from the one here is changed', () => {
    const i = newerExport.entries.findIndex((e) => e.type === 'message' && e.message.role === 'user');
    const tampered = {
      ...newerExport,
      entries: newerExport.entries.map((e, k) => (k === i && e.type === 'message' ? { ...e, message: { role: 'user', content: [{ type: 'text', text: 'not what was said' }] } } : e)) as SessionEntry[],
    };
    expect(planReimport({ leafId: native.meta.leafId, entries: native.entries }, tampered, 'native')).toMatchObject({ kind: 'changed' });
    // A time is no part of what an entry says (an undated file is stamped with each import's time).
    const later = { ...newerExport, entries: newerExport.entries.map((e) => ({ ...e, timestamp: e.timestamp + 1 })) };
    expect(planReimport({ leafId: native.meta.leafId, entries: native.entries }, later, 'native')).toEqual({ kind: 'unchanged' });
  });
});
