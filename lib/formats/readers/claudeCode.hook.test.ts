import { describe, expect, it } from 'vitest';
import { prepareRegeneration } from '@/lib/compaction/prepare';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type SessionEntry } from '@/lib/session/types';
import { pathTokens } from '@/lib/testing/compactionData';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { asAsync, expectWellFormed, prng, randomChunks, withoutSessionId, type Raw } from '@/lib/testing/formatChecks';
import { DETECT_HEAD_CHARS, detectFormat } from '../detect';
import { importText } from '../import';
import { importStream } from '../stream';
import type { ImportResult } from '../types';
import { readClaudeCode } from './claudeCode';

/**
 * Claude Code 1.0.x transcripts as a Stop hook saves them: the records of
 * ~/.claude/projects/…/<session>.jsonl dumped as one pretty-printed JSON array
 * (`logs/chat.json`). Both real files hold a compaction of the old kind (the
 * summary line starts a new chain, no compact_boundary), hundreds of hook
 * `system` lines, and `summary` title lines Claude Code wrote for other
 * sessions; attio's file also opens with the last lines of the session it resumed.
 */

const HOOK_FILES = ['claudeHookTemplar', 'claudeHookAttio'] as const;
const importedAt = Date.parse('2026-12-01T12:00:00Z');
const CONTINUED = 'This session is being continued from a previous conversation that ran out of context.';

/** The text blocks of a line's message, as the reader joins them. */
function textOf(r: Raw): string {
  const content = (r.message as Raw | undefined)?.content;
  if (typeof content === 'string') return content;
  return ((content ?? []) as Raw[])
    .filter((b) => b.type === 'text')
    .map((b) => b.text as string)
    .join('\n\n');
}

/** An entry's source line: a user line split into tool results and text keeps its uuid on the last entry, `<uuid>:n` on the others. */
const lineOf = (id: string) => id.replace(/:\d+$/, '');

function load(name: (typeof HOOK_FILES)[number]) {
  const text = readFixture(name);
  const raw = JSON.parse(text) as Raw[];
  const result = importText(text, { fileName: FIXTURES[name], importedAt });
  const session = result.sessions[0]!;
  const tree = new SessionTree(session.entries);
  const byUuid = new Map(raw.filter((r) => typeof r.uuid === 'string').map((r) => [r.uuid as string, r]));
  const main = raw.filter((r) => typeof r.uuid === 'string' && r.isSidechain !== true);
  const mainSession = main.at(-1)!.sessionId as string;
  const summaryAt = raw.findIndex((r) => r.isCompactSummary === true);
  const compaction = session.entries.find((e) => e.id === raw[summaryAt]!.uuid) as CompactionEntry;
  return { text, raw, result, session, tree, byUuid, mainSession, summaryAt, compaction };
}

function comparable(r: ImportResult) {
  return { format: r.format, warnings: r.warnings, sessions: r.sessions.map(withoutSessionId) };
}

describe.each(HOOK_FILES)('%s (Claude Code records saved as one JSON array)', (name) => {
  const f = load(name);

  it('is detected as Claude Code from its first 64 KB, whatever the file is called', () => {
    const head = f.text.slice(0, DETECT_HEAD_CHARS);
    expect(f.text.trimStart().startsWith('[')).toBe(true);
    for (const fileName of [FIXTURES[name], 'chat.json', 'renamed.txt', undefined]) expect(detectFormat(head, fileName)).toBe('claude-code');
    expect(f.result.format).toBe('claude-code');
  });

  it('streams element by element to the same result as the whole text, for any chunking', async () => {
    const expected = comparable(f.result);
    const rand = prng(name.length * 104_729);
    for (const max of [997, 16_384, 200_000]) {
      const streamed = await importStream(asAsync(randomChunks(f.text, rand, max)), { fileName: FIXTURES[name], importedAt });
      expect(comparable(streamed)).toStrictEqual(expected);
    }
  });

  it('reads each element as the line it was: the same session as the records written one per line', () => {
    const jsonl = f.raw.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const lines = readClaudeCode(jsonl, { fileName: FIXTURES[name], importedAt }).sessions[0]!;
    const { id: _a, source: sa, ...metaArray } = f.session.meta;
    const { id: _b, source: sl, ...metaLines } = lines.meta;
    expect(metaArray).toStrictEqual(metaLines);
    expect(sa?.originalId).toBe(sl?.originalId);
    expect(f.session.entries).toStrictEqual(lines.entries);
  });

  it('gives one well-formed session: every line with a uuid is an entry, the summary lines none, and the main line is one chain', () => {
    expect(f.result.sessions).toHaveLength(1);
    expectWellFormed(f.session);
    expect(f.result.warnings).toEqual([]);
    expect(new Set(f.session.entries.map((e) => lineOf(e.id)))).toEqual(new Set(f.byUuid.keys()));
    // Nothing of the main line is left on a side branch: the path to the leaf holds all of it.
    const onPath = new Set(f.tree.pathTo(f.session.meta.leafId).map((e) => lineOf(e.id)));
    const mainLines = f.raw.filter((r) => typeof r.uuid === 'string' && r.isSidechain !== true);
    expect(mainLines.filter((r) => !onPath.has(r.uuid as string))).toEqual([]);
    expect(f.session.meta.leafId).toBe(mainLines.at(-1)!.uuid);
  });

  it('keeps the hook system lines as notes in the chain, never as messages or in the context', () => {
    const hookLines = f.raw.filter((r) => r.type === 'system');
    expect(hookLines.length).toBeGreaterThan(200);
    const entries = hookLines.map((r) => f.tree.get(r.uuid as string)!);
    expect(entries.every((e) => e.type === 'custom' && e.customType.startsWith('claude-code:system') && !/\u001b/.test(e.display ?? ''))).toBe(true);
    expect(entries.some((e) => e.type === 'custom' && /PreToolUse:|PostToolUse:/.test(e.display ?? ''))).toBe(true);
    const context = new Set(buildSessionContext(f.tree, f.session.meta.leafId).items.map((i) => i.entryId));
    expect(hookLines.filter((r) => context.has(r.uuid as string))).toEqual([]);
  });

  it("makes the boundary-less compact summary a compaction that keeps nothing, hung after the same session's last line before it", () => {
    const rec = f.raw[f.summaryAt]!;
    expect(rec.parentUuid).toBeNull();
    expect(f.raw.some((r) => r.subtype === 'compact_boundary')).toBe(false);
    expect(f.compaction).toMatchObject({ type: 'compaction', id: rec.uuid, firstKeptEntryId: rec.uuid, summary: textOf(rec), details: { summarizer: { kind: 'imported', source: 'claude-code' } } });
    expect(f.compaction.summary.startsWith(CONTINUED)).toBe(true);
    const before = f.raw.slice(0, f.summaryAt).filter((r) => typeof r.uuid === 'string' && r.isSidechain !== true && r.sessionId === rec.sessionId).at(-1)!;
    expect(f.compaction.parentId).toBe(before.uuid);
    // What Claude Code wrote after the summary still follows it, and the conversation goes through it.
    const after = f.raw.filter((r) => r.parentUuid === rec.uuid);
    expect(after.length).toBeGreaterThan(0);
    for (const r of after) expect(f.tree.get(r.uuid as string)!.parentId).toBe(f.compaction.id);
    const path = f.tree.pathTo(f.session.meta.leafId);
    expect(path.filter((e) => e.type === 'compaction').map((e) => e.id)).toEqual([f.compaction.id]);
    // The context starts with Claude Code's summary: nothing from before it is sent.
    expect(buildSessionContext(f.tree, f.session.meta.leafId).items[0]).toMatchObject({ kind: 'compactionSummary', entryId: f.compaction.id, summary: f.compaction.summary });
  });

  it('can be regenerated: prepareRegeneration spans the messages of the history it replaced', () => {
    const path = f.tree.pathTo(f.compaction.id);
    const pathBefore = path.slice(0, -1);
    const prep = prepareRegeneration(pathBefore, pathTokens(pathBefore), DEFAULT_COMPACTION_SETTINGS, f.compaction)!;
    expect(prep).not.toBeNull();
    expect(prep.keepsNothing || prep.firstKeptIndex === pathBefore.length).toBe(true);
    expect(prep.firstKeptEntryId).toBe(f.compaction.id);
    const span = [...prep.messagesToSummarize, ...prep.turnPrefixMessages].map((i) => i.entryId);
    expect(span).toEqual(pathBefore.filter((e) => e.type === 'message').map((e) => e.id));
    // In the file's terms: the user and assistant lines of this session's main line before the summary,
    // less the command markup shown as notes (never sent, so never summarised).
    const rec = f.raw[f.summaryAt]!;
    const replaced = f.raw.slice(0, f.summaryAt).filter((r) => (r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true && r.sessionId === rec.sessionId);
    const spanLines = new Set(span.map(lineOf));
    expect([...spanLines].every((id) => replaced.some((r) => r.uuid === id))).toBe(true);
    const left = replaced.filter((r) => !spanLines.has(r.uuid as string)).map((r) => f.tree.get(r.uuid as string)!);
    expect(left.every((e) => e.type === 'custom' && e.customType === 'claude-code:note')).toBe(true);
    expect(spanLines.size).toBeGreaterThan(100);
  });

  it('lets nothing of another session in: title, session id, messages and the compaction are this session’s', () => {
    const titles = f.raw.filter((r) => r.type === 'summary');
    expect(titles.length).toBeGreaterThan(0);
    // Every summary line's leaf is elsewhere or in another session: none titles this one.
    for (const t of titles) expect(f.byUuid.get(t.leafUuid as string)?.sessionId === f.mainSession).toBe(false);
    expect(titles.map((t) => t.summary)).not.toContain(f.session.meta.title);
    // The first thing the user typed in this session titles it.
    const firstPrompt = f.raw.find((r) => r.type === 'user' && r.isSidechain !== true && r.isMeta !== true && r.sessionId === f.mainSession && textOf(r) !== '')!;
    expect(f.session.meta.title.length).toBeGreaterThan(10);
    expect(textOf(firstPrompt).trim().startsWith(f.session.meta.title.replace(/…$/, ''))).toBe(true);
    expect(f.session.meta.source?.originalId).toBe(f.mainSession);
    const messages = f.session.entries.filter((e): e is Extract<SessionEntry, { type: 'message' }> => e.type === 'message');
    expect(messages.filter((e) => f.byUuid.get(lineOf(e.id))!.sessionId !== f.mainSession)).toEqual([]);
    expect(f.byUuid.get(f.compaction.parentId!)!.sessionId).toBe(f.mainSession);
  });
});

describe('claudeHookAttio: a file that opens with the tail of the session it resumed', () => {
  const f = load('claudeHookAttio');
  const others = f.raw.filter((r) => typeof r.sessionId === 'string' && r.sessionId !== f.mainSession);

  it('keeps those lines where the chain hangs from them, as notes only, out of the context and out of the compaction’s span', () => {
    expect(others.length).toBeGreaterThan(0);
    const entries = others.map((r) => f.tree.get(r.uuid as string)!);
    expect(entries.every((e) => e.type === 'custom' && e.customType === 'claude-code:note')).toBe(true);
    // The first line of this session names the other session's last line as its parent; the tree keeps that link.
    const first = f.raw.find((r) => r.sessionId === f.mainSession && r.isSidechain !== true)!;
    expect(others.map((r) => r.uuid)).toContain(first.parentUuid);
    expect(f.tree.get(first.uuid as string)!.parentId).toBe(first.parentUuid);
    const context = new Set(buildSessionContext(f.tree, f.compaction.parentId).items.map((i) => i.entryId));
    expect(others.filter((r) => context.has(r.uuid as string))).toEqual([]);
  });

  it('a compact summary with no line of its own session before it is a root with a warning, never hung after the other session’s lines', () => {
    const summary = f.raw[f.summaryAt]!;
    const next = f.raw.find((r) => r.parentUuid === summary.uuid)!;
    const r = importText(JSON.stringify([...others, summary, next], null, 2), { importedAt });
    const entry = r.sessions[0]!.entries.find((e) => e.id === summary.uuid)!;
    expect(entry).toMatchObject({ type: 'compaction', parentId: null });
    expect(r.warnings.some((w) => /the history this compaction's summary replaced is not in the file/.test(w))).toBe(true);
    // Lines of the other session between this session's last line and the summary do not move it off its own.
    const own: Raw = { ...f.raw.find((r) => r.sessionId === f.mainSession && r.type === 'assistant' && r.isSidechain !== true)!, parentUuid: others.at(-1)!.uuid };
    const later = others.map((o) => ({ ...o, uuid: `${o.uuid as string}-later`, parentUuid: null }));
    const mixed = importText(JSON.stringify([...others, own, ...later, summary, next], null, 2), { importedAt });
    expect(mixed.sessions[0]!.entries.find((e) => e.id === summary.uuid)).toMatchObject({ type: 'compaction', parentId: own.uuid });
  });

  it('does not take its title from the summary line whose leaf is that other session’s last line', () => {
    const inFile = f.raw.filter((r) => r.type === 'summary' && f.byUuid.has(r.leafUuid as string));
    expect(inFile).toHaveLength(1);
    expect(f.byUuid.get(inFile[0]!.leafUuid as string)!.sessionId).not.toBe(f.mainSession);
    expect(f.session.meta.title).not.toBe(inFile[0]!.summary);
  });
});

describe('Claude Code records as an array, beyond the two hook files', () => {
  it('a newer transcript dumped the same way (opening with a file-history snapshot) reads like its JSONL', () => {
    const jsonl = readFixture('claudeSpotter258');
    const records = jsonl
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Raw);
    expect(records[0]!.type).toBe('file-history-snapshot');
    const array = JSON.stringify(records, null, 2);
    expect(detectFormat(array.slice(0, DETECT_HEAD_CHARS), 'chat.json')).toBe('claude-code');
    const fromArray = importText(array, { fileName: 'chat.json', importedAt }).sessions[0]!;
    const fromLines = importText(jsonl, { fileName: 'chat.json', importedAt }).sessions[0]!;
    expect(fromArray.entries).toStrictEqual(fromLines.entries);
    expect(fromArray.meta.leafId).toBe(fromLines.meta.leafId);
  });

  it('names the line an element starts on when one is not a record, streamed or not', async () => {
    const text = readFixture('claudeHookAttio');
    const at = text.indexOf('\n  {', 50_000) + 1;
    const damaged = `${text.slice(0, at)}  42,\n${text.slice(at)}`;
    const line = damaged.slice(0, at).split('\n').length;
    expect(() => importText(damaged)).toThrow(new RegExp(`^Line ${line}: expected a JSON object, found 42`));
    await expect(importStream(asAsync(randomChunks(damaged, prng(5), 8192)))).rejects.toThrow(new RegExp(`^Line ${line}: expected a JSON object, found 42`));
  });
});
