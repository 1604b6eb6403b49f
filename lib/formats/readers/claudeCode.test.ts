import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { claudeCodeWithCompaction } from '@/lib/testing/claudeCodeCompaction';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import type { CompactionEntry, ImagePart, SessionEntry } from '@/lib/session/types';
import { allParts, expectNoBase64InText, expectToolResultsPaired, expectWellFormed, rawRecords, type Raw } from '@/lib/testing/formatChecks';
import { readClaudeCode } from './claudeCode';

function load(name: FixtureName) {
  const text = readFixture(name);
  const raw = rawRecords(text).map((r) => r.rec);
  const result = readClaudeCode(text, { fileName: `${name}.jsonl` });
  return { text, raw, result, session: result.sessions[0]! };
}

const blocks = (r: Raw): Raw[] => {
  const c = (r.message as Raw | undefined)?.content;
  return typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? (c as Raw[]) : [];
};

/** Entries a line should give, counted straight from the raw line. */
function expectedEntries(raw: Raw[]): number {
  let n = 0;
  for (const r of raw) {
    if (typeof r.uuid !== 'string') continue;
    if (r.type === 'user') {
      const results = blocks(r).filter((b) => b.type === 'tool_result').length;
      const others = blocks(r).length - results;
      n += results + (others > 0 || results === 0 ? 1 : 0);
    } else n += 1;
  }
  return n;
}

function lastMainUuid(raw: Raw[]): string {
  return raw.filter((r) => typeof r.uuid === 'string' && r.isSidechain !== true).pop()!.uuid as string;
}

describe.each(['claudeViewer', 'claudeLog'] as const)('Claude Code fixture %s', (name) => {
  const raw = rawRecords(readFixture(name)).map((r) => r.rec);
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => {
    const { result, session } = load(name);
    return { result, session, tree: new SessionTree(session.entries) };
  };
  const sidechain = new Set(raw.filter((r) => r.isSidechain === true).map((r) => r.uuid as string));

  it('imports every line with a uuid (tool results split per block)', () => {
    const { result, session } = read();
    expect(result.format).toBe('claude-code');
    expectWellFormed(session);
    expect(session.entries).toHaveLength(expectedEntries(raw));
    const toolResults = raw.flatMap(blocks).filter((b) => b.type === 'tool_result').length;
    expect(session.entries.filter((e) => e.type === 'message' && e.message.role === 'toolResult')).toHaveLength(toolResults);
    const toolUses = raw.flatMap((r) => (r.type === 'assistant' ? blocks(r) : [])).filter((b) => b.type === 'tool_use').length;
    expect(allParts(session).filter((p) => p.type === 'toolCall')).toHaveLength(toolUses);
  });

  it('keeps the uuid tree: same roots and branch points as the file', () => {
    const { tree } = read();
    const kids = new Map<string, number>();
    for (const r of raw) if (typeof r.parentUuid === 'string') kids.set(r.parentUuid, (kids.get(r.parentUuid) ?? 0) + 1);
    const rawBranchPoints = [...kids].filter(([, n]) => n > 1).map(([id]) => id);
    expect(tree.branchPoints().map((e) => e.id).sort()).toEqual(rawBranchPoints.sort());
    const rawRoots = raw.filter((r) => typeof r.uuid === 'string' && r.parentUuid === null).map((r) => r.uuid);
    expect(tree.roots().map((e) => e.id)).toEqual(rawRoots);
  });

  it('puts the leaf on the main line: last non-sidechain line, no sidechain entry on its path', () => {
    const { session, tree } = read();
    const leaf = lastMainUuid(raw);
    expect(session.meta.leafId).toBe(leaf);
    const path = tree.pathTo(session.meta.leafId);
    expect(path.some((e) => sidechain.has(e.id.split(':')[0]!))).toBe(false);
    expect(path[0]!.parentId).toBeNull();
  });

  it('pairs every tool result with its tool_use, with the tool name', () => {
    const { session } = read();
    expectToolResultsPaired(session);
    const names = new Map(raw.flatMap(blocks).filter((b) => b.type === 'tool_use').map((b) => [b.id as string, b.name as string]));
    for (const e of session.entries) if (e.type === 'message' && e.message.role === 'toolResult') expect(e.message.toolName).toBe(names.get(e.message.toolCallId));
  });

  it('keeps usage once per API reply (on its last line)', () => {
    const { session } = read();
    const lastOfReply = new Map<string, Raw>();
    for (const r of raw) if (r.type === 'assistant') lastOfReply.set((r.message as Raw).id as string, r);
    const rawOutput = [...lastOfReply.values()].reduce((s, r) => s + (((r.message as Raw).usage as Raw).output_tokens as number), 0);
    const output = session.entries.reduce((s, e) => s + (e.type === 'message' && e.message.role === 'assistant' ? (e.message.usage?.output ?? 0) : 0), 0);
    expect(output).toBe(rawOutput);
    const withUsage = session.entries.filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.usage);
    expect(withUsage.map((e) => e.id).sort()).toEqual([...lastOfReply.values()].map((r) => r.uuid as string).sort());
    for (const e of session.entries) if (e.type === 'message' && e.message.role === 'assistant') expect(e.message.model).toMatch(/^anthropic:/);
  });

  it('recognises compact boundaries (as many compactions as the file has)', () => {
    const { session } = read();
    const boundaries = raw.filter((r) => r.type === 'system' && r.subtype === 'compact_boundary').length;
    expect(session.entries.filter((e) => e.type === 'compaction')).toHaveLength(boundaries);
  });

  it('builds a context along the main path', () => {
    const { session, tree } = read();
    const ctx = buildSessionContext(tree, session.meta.leafId);
    expect(ctx.items.length).toBeGreaterThan(0);
    expect(ctx.items.every((i) => i.kind === 'message')).toBe(true);
    expect(ctx.items[0]!.kind === 'message' && ctx.items[0]!.message.role).toBe('user');
    expectNoBase64InText(session);
  });
});

describe('Claude Code specifics', () => {
  it('claudeViewer: sidechains are their own chains; the summary line, whose leaf is not in the file, titles another session', () => {
    const { raw, session } = load('claudeViewer');
    const summary = raw.find((r) => r.type === 'summary')!;
    expect(raw.some((r) => r.uuid === summary.leafUuid)).toBe(false);
    expect(session.meta.title).not.toBe(summary.summary);
    const firstTyped = raw.find((r) => r.type === 'user' && r.isSidechain !== true && r.isMeta !== true && typeof (r.message as Raw).content === 'string' && !/<command-/.test((r.message as Raw).content as string))!;
    expect(firstTyped.message).toMatchObject({ content: expect.stringMatching(/^Thanks! Please update CLAUDE\.md/) });
    expect(((firstTyped.message as Raw).content as string).startsWith(session.meta.title.replace(/…$/, ''))).toBe(true);
    const sidechainEntries = session.entries.filter((e) => raw.some((r) => r.uuid === e.id.split(':')[0] && r.isSidechain === true));
    expect(sidechainEntries.length).toBeGreaterThan(0);
    expect(raw.filter((r) => r.isSidechain === true)).toHaveLength(405);
  });

  it('claudeLog: the ~1 MB screenshot is an image part, system lines are custom entries without ANSI codes', () => {
    const { raw, session } = load('claudeLog');
    const rawImage = raw.flatMap(blocks).find((b) => b.type === 'image')!;
    const src = rawImage.source as Raw;
    const images = allParts(session).filter((p): p is ImagePart => p.type === 'image');
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ mimeType: src.media_type, data: src.data });
    expect(images[0]!.data!.length).toBeGreaterThan(1_000_000);
    const systems = session.entries.filter((e) => e.type === 'custom' && e.customType.startsWith('claude-code:system'));
    expect(systems).toHaveLength(raw.filter((r) => r.type === 'system').length);
    for (const s of systems) expect(s.type === 'custom' && /\u001b/.test(s.display ?? '')).toBe(false);
    // The edited prompt: one entry with three children.
    const bp = new SessionTree(session.entries).branchPoints();
    expect(bp).toHaveLength(1);
    expect(new SessionTree(session.entries).children(bp[0]!.id)).toHaveLength(3);
  });
});

describe('Claude Code notes: command markup and isMeta lines are shown, never sent', () => {
  const textOf = (r: Raw) => blocks(r).map((b) => b.text as string).join('\n\n');
  const isMarkup = (r: Raw) => r.type === 'user' && (r.isMeta === true || /<command-name>|<local-command-stdout>/.test(textOf(r)));

  it('claudeLog: the caveat, /doctor, /status, /mcp and their output become notes, out of the context', () => {
    const { raw, session } = load('claudeLog');
    const markup = raw.filter(isMarkup);
    expect(markup).toHaveLength(7);
    const notes = session.entries.filter((e) => e.type === 'custom' && e.customType === 'claude-code:note');
    expect(notes.map((e) => e.id)).toEqual(markup.map((r) => r.uuid));
    expect(notes.map((e) => e.type === 'custom' && e.display)).toEqual([
      expect.stringMatching(/^Caveat: The messages below were generated by the user while running local commands\./),
      '/doctor',
      'Command output: (no content)',
      '/status',
      'Command output: (no content)',
      '/mcp',
      expect.stringMatching(/^Command output: No MCP servers configured\./),
    ]);
    expect(notes.every((e) => e.type === 'custom' && (e.data as { text: string }).text === textOf(markup.find((r) => r.uuid === e.id)!))).toBe(true);
    const tree = new SessionTree(session.entries);
    for (const n of notes) {
      const ids = buildSessionContext(tree, n.id).items.map((i) => i.entryId);
      expect(ids).not.toContain(n.id);
      for (const other of notes) expect(ids).not.toContain(other.id);
    }
  });

  it('claudeViewer: the /orchestrator command is a note; the prompt it expanded to (isMeta) is what the model was asked, so it stays', () => {
    const { raw, session } = load('claudeViewer');
    const command = raw.find((r) => r.type === 'user' && /<command-name>/.test(textOf(r)))!;
    const expansion = raw.find((r) => r.isMeta === true)!;
    expect(expansion.parentUuid).toBe(command.uuid);
    expect(session.entries.find((e) => e.id === command.uuid)).toMatchObject({ type: 'custom', customType: 'claude-code:note', display: '/orchestrator create TODO app by Next.js' });
    expect(session.entries.find((e) => e.id === expansion.uuid)).toMatchObject({ type: 'message', message: { role: 'user' } });
  });

  it('a command is never the title; a command with arguments is, when nothing was typed', () => {
    const { text, raw } = load('claudeLog');
    const lines = text.split('\n');
    // The file from the caveat on, without its earlier prompts: only local commands remain.
    const from = raw.findIndex((r) => r.isMeta === true);
    const tail = lines.slice(from).join('\n');
    const s = readClaudeCode(tail).sessions[0]!;
    expect(s.meta.title).toBe('Claude Code session');
    // The viewer's first lines without its summary line: the command, its expansion and the work, nothing typed.
    const viewer = load('claudeViewer').text.split('\n');
    expect(viewer[0]).toMatch(/^\{"type":"summary"/);
    expect(readClaudeCode(viewer.slice(1, 30).join('\n')).sessions[0]!.meta.title).toBe('/orchestrator create TODO app by Next.js');
  });
});

describe('Claude Code compaction and mixed lines (constructed transcript)', () => {
  const lines = [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: 'start' } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2025-01-01T00:00:01Z', message: { id: 'm1', model: 'claude-x', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { p: 1 } }], usage: { input_tokens: 5, output_tokens: 2 } } },
    { type: 'assistant', uuid: 'a2', parentUuid: 'a1', timestamp: '2025-01-01T00:00:01Z', message: { id: 'm1', model: 'claude-x', content: [{ type: 'tool_use', id: 't2', name: 'Grep', input: {} }], usage: { input_tokens: 5, output_tokens: 9 }, stop_reason: 'tool_use' } },
    {
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a2',
      timestamp: '2025-01-01T00:00:02Z',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'one' }, { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'two' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' } }], is_error: true }, { type: 'text', text: 'and more' }] },
    },
    { type: 'assistant', uuid: 'a3', parentUuid: 'r1', timestamp: '2025-01-01T00:00:03Z', message: { id: 'm2', model: 'claude-x', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' } },
    { type: 'system', subtype: 'compact_boundary', uuid: 'c1', parentUuid: null, logicalParentUuid: 'a3', timestamp: '2025-01-01T00:00:04Z', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 2048 } },
    { type: 'user', uuid: 'cs1', parentUuid: 'c1', isCompactSummary: true, timestamp: '2025-01-01T00:00:05Z', message: { role: 'user', content: [{ type: 'text', text: 'condensed context' }] } },
    { type: 'user', uuid: 'u2', parentUuid: 'cs1', timestamp: '2025-01-01T00:00:06Z', message: { role: 'user', content: 'next question' } },
    { type: 'file-history-snapshot', messageId: 'x', snapshot: {} },
  ];
  const readLines = () => {
    const r = readClaudeCode(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const s = r.sessions[0]!;
    return { r, s, byId: new Map<string, SessionEntry>(s.entries.map((e) => [e.id, e])) };
  };

  it('turns compact_boundary + isCompactSummary into one compaction', () => {
    const { s, byId } = readLines();
    expectWellFormed(s);
    const compactions = s.entries.filter((e): e is CompactionEntry => e.type === 'compaction');
    expect(compactions).toHaveLength(1);
    // Claude Code keeps nothing of the history verbatim: the compaction names itself as its first kept entry.
    expect(compactions[0]).toMatchObject({ id: 'c1', parentId: 'a3', summary: 'condensed context', tokensBefore: 2048, firstKeptEntryId: 'c1' });
    expect(byId.get('u2')!.parentId).toBe('c1');
    expect(byId.has('cs1')).toBe(false);
    const ctx = buildSessionContext(s.entries, s.meta.leafId);
    expect(ctx.items.map((i) => i.kind)).toEqual(['compactionSummary', 'message']);
  });

  it('splits tool results and trailing text into a chain; children attach to its end', () => {
    const { s, byId } = readLines();
    expect(byId.get('r1:1')).toMatchObject({ parentId: 'a2', message: { role: 'toolResult', toolCallId: 't1', toolName: 'Read', isError: false } });
    expect(byId.get('r1:2')).toMatchObject({ parentId: 'r1:1', message: { role: 'toolResult', toolCallId: 't2', toolName: 'Grep', isError: true } });
    const img = byId.get('r1:2')!;
    expect(img.type === 'message' && img.message.content.map((p) => p.type)).toEqual(['text', 'image']);
    expect(byId.get('r1')).toMatchObject({ parentId: 'r1:2', message: { role: 'user', content: [{ type: 'text', text: 'and more' }] } });
    expect(byId.get('a3')!.parentId).toBe('r1');
    expectToolResultsPaired(s);
  });

  it('keeps the usage of a multi-line reply on its last line only, and warns about skipped lines', () => {
    const { r, s, byId } = readLines();
    const a1 = byId.get('a1')!;
    const a2 = byId.get('a2')!;
    expect(a1.type === 'message' && a1.message.role === 'assistant' && a1.message.usage).toBeUndefined();
    expect(a2.type === 'message' && a2.message.role === 'assistant' && a2.message.usage).toMatchObject({ input: 5, output: 9 });
    expect(r.warnings.join(' ')).toMatch(/file-history-snapshot/);
    expect(s.meta.leafId).toBe('u2');
  });
});

describe('Claude Code compaction on a real transcript (a boundary and its summary appended as Claude Code writes them)', () => {
  const read = (opts?: Parameters<typeof claudeCodeWithCompaction>[1]) => {
    const built = claudeCodeWithCompaction('claudeLog', opts);
    const r = readClaudeCode(built.text, { fileName: 'compacted.jsonl' });
    const s = r.sessions[0]!;
    const compaction = s.entries.find((e): e is CompactionEntry => e.type === 'compaction')!;
    return { built, r, s, compaction, tree: new SessionTree(s.entries) };
  };

  it('keeps nothing of the history verbatim, hangs after it, and the context is the summary then what came after', () => {
    const { built, r, s, compaction, tree } = read();
    expectWellFormed(s);
    expect(compaction).toMatchObject({ id: built.boundaryUuid, parentId: built.lastBeforeUuid, summary: built.summary, firstKeptEntryId: built.boundaryUuid, tokensBefore: built.preTokens });
    expect(r.warnings.join(' ')).not.toMatch(/compaction/);
    const ctx = buildSessionContext(tree, s.meta.leafId);
    expect(ctx.items.map((i) => i.entryId)).toEqual([built.boundaryUuid, built.promptUuid, built.replyUuid]);
    // The whole real transcript is the history it replaced: on the path before it.
    const plain = load('claudeLog').session;
    expect(tree.pathTo(compaction.parentId).map((e) => e.id)).toEqual(new SessionTree(plain.entries).pathTo(plain.meta.leafId).map((e) => e.id));
  });

  it('whose named last entry is not in the file follows the last main-chain entry before it, with a warning', () => {
    const { built, r, compaction } = read({ logicalParentUuid: '00000000-dead-4000-8000-000000000000' });
    expect(compaction.parentId).toBe(built.lastBeforeUuid);
    expect(r.warnings).toContain('Line 69: the compaction names a last entry that is not in the file; it follows the entry before it in the file instead.');
  });

  it('opening the file, is a root whose history is not in the file, and the import says so', () => {
    const { r, s, compaction } = read({ atStart: true });
    expectWellFormed(s);
    expect(compaction.parentId).toBeNull();
    expect(r.warnings).toContain("Line 1: the history this compaction's summary replaced is not in the file, so that summary cannot be regenerated.");
    expect(r.warnings.join(' ')).not.toMatch(/not in the file; shown as separate roots/);
    expect(buildSessionContext(s.entries, s.meta.leafId).items[0]).toMatchObject({ kind: 'compactionSummary', entryId: compaction.id });
  });
});
