import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { importText } from '@/lib/formats';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { compactionSettingsSchema, sessionEntrySchema, sessionMetaSchema } from './schema';
import { DEFAULT_COMPACTION_SETTINGS, type MessageEntry, type NewEntry, type SessionEntry, type SessionSnapshot, type SummarizerInfo, type SummaryDetails } from './types';

/**
 * The schemas guard what crosses a boundary: the app's own JSONL on import and
 * the bodies of the API routes. Two properties: everything the app's export
 * writes is accepted (every entry kind, every content part, every enum value),
 * and a record missing a required field or holding one of the wrong type is
 * refused with the path of the field, so the import error can name it.
 */

type Json = Record<string, unknown>;

/** The records of an export, as a reader sees them: the header's meta (without the format marker) and one object per entry. */
function exported(snapshot: SessionSnapshot): { meta: Json; entries: Json[] } {
  const [header, ...entries] = exportJsonl(snapshot)
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Json);
  const { type: _t, format: _f, version: _v, ...meta } = header!;
  return { meta, entries };
}

const details = (summarizer: SummarizerInfo, extra: Partial<SummaryDetails> = {}): SummaryDetails => ({ readFiles: ['lib/a.ts'], modifiedFiles: ['lib/b.ts'], summarizer, ...extra });
const usage = { input: 1200, output: 80, cacheRead: 1000, cacheWrite: 10, totalTokens: 2290, cost: 0.0123 };

/**
 * The real pi session (compactions, tool calls, a tool result with an image, an
 * aborted reply) continued as the app continues a session: every other entry
 * kind and content part the app writes, appended under its leaf.
 */
function workbench(): SessionSnapshot {
  const [pi] = importText(readFixture('piV1'), { fileName: FIXTURES.piV1 }).sessions;
  const entries = [...pi!.entries];
  let leaf = pi!.meta.leafId;
  let clock = Math.max(...entries.map((e) => e.timestamp));
  let n = 0;
  const add = (e: NewEntry): SessionEntry => {
    const entry = { ...e, id: `wb-${String(++n).padStart(3, '0')}`, parentId: leaf, timestamp: ++clock } as SessionEntry;
    entries.push(entry);
    leaf = entry.id;
    return entry;
  };
  const messages = entries.filter((e): e is MessageEntry => e.type === 'message');
  const firstUser = messages.find((e) => e.message.role === 'user')!;
  const compaction = entries.find((e) => e.type === 'compaction')!;
  const results = messages.filter((e) => e.message.role === 'toolResult').map((e) => e.id);

  add({ type: 'pin', targetId: firstUser.id, pinned: true });
  add({ type: 'pin', targetId: firstUser.id, pinned: false });
  const mask = add({ type: 'tool_mask', maskedIds: results, tokensBefore: 90_000, tokensAfter: 40_000, protectTokens: 20_000 });
  add({ type: 'summary_revision', targetId: mask.id, action: 'undo' });
  add({ type: 'summary_revision', targetId: mask.id, action: 'redo' });
  add({ type: 'summary_revision', targetId: compaction.id, action: 'regenerate', summary: 'Regenerated.', details: details({ kind: 'model', model: 'openai:gpt-5.5' }, { usage, durationMs: 2100 }) });
  add({ type: 'summary_revision', targetId: compaction.id, action: 'edit', summary: 'Edited.', details: { customInstructions: 'Keep file names.' } });
  add({ type: 'summary_revision', targetId: compaction.id, action: 'undo' });
  add({ type: 'label', targetId: firstUser.id, label: 'start' });
  add({ type: 'label', targetId: firstUser.id, label: null });
  add({ type: 'model_change', model: 'anthropic:claude-sonnet-4-5' });
  add({
    type: 'compaction',
    summary: 'Hook summary.',
    firstKeptEntryId: firstUser.id,
    tokensBefore: 50_000,
    tokensAfter: 3_000,
    details: details({ kind: 'hook', name: 'my-hook' }, { isSplitTurn: true, firstSummarizedEntryId: firstUser.id, summarizedEntryCount: 12 }),
  });
  add({
    type: 'branch_summary',
    fromId: firstUser.id,
    summary: 'Tried another way.',
    details: details(
      { kind: 'extractive' },
      { tokensSummarized: 4000, summaryTokens: 200, fallback: { model: 'openai:gpt-5.5', reason: 'empty', attempts: 2 }, selfCheck: { usage, patched: true } },
    ),
  });
  for (const reason of ['length', 'larger'] as const) {
    add({ type: 'branch_summary', fromId: firstUser.id, summary: `Fallback (${reason}).`, details: details({ kind: 'extractive' }, { fallback: { model: 'm', reason, attempts: 1 }, selfCheck: { patched: false } }) });
  }
  add({ type: 'custom', customType: 'claude-code:note', data: { kind: 'command', text: '/mcp' }, display: '/mcp' });
  add({ type: 'custom', customType: 'codex:turn_aborted' });
  add({
    type: 'message',
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'See the attachments.' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 640, height: 480, byteLength: 8 },
        { type: 'image', mimeType: 'image/jpeg', url: 'https://example.invalid/a.jpg' },
        { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: 11, text: 'chlorophyll' },
        { type: 'file', name: 'paper.pdf', mimeType: 'application/pdf', byteLength: 1024 },
      ],
    },
    tokens: { v: 3, o200k: 900, cl100k: 910, chars4: 950 },
  });
  add({ type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: '', redacted: true }, { type: 'thinking', thinking: 'Plan.' }], status: 'streaming' } });
  for (const stopReason of ['length', 'error', 'interrupted'] as const) {
    add({ type: 'message', message: { role: 'assistant', content: [], stopReason, model: 'openai:gpt-5.5', usage: { input: 1, output: 0 }, ...(stopReason === 'error' ? { errorMessage: '401' } : {}), status: 'complete' } });
  }
  add({ type: 'message', message: { role: 'toolResult', toolCallId: 'call-1', toolName: 'bash', content: [], isError: true } });

  const meta = {
    ...pi!.meta,
    leafId: leaf,
    model: 'anthropic:claude-sonnet-4-5',
    systemPrompt: 'Be brief.',
    temperature: 0.7,
    maxOutputTokens: 4096,
    compaction: { ...DEFAULT_COMPACTION_SETTINGS, thresholdPercent: 0.8, maskToolOutput: true, maskProtectTokens: 8000 },
    cwd: '/home/user/project',
    undated: false,
    continuedFrom: { sessionId: 'session-0001', entryId: firstUser.id, title: 'Earlier work', origin: { hash: 'abc123', originalId: 'orig-1' } },
  };
  return { meta, entries };
}

/** Every value the format defines (docs/session-format.md), so the acceptance test can say it met them all. */
const FORMAT = {
  entryTypes: ['message', 'compaction', 'branch_summary', 'model_change', 'label', 'summary_revision', 'custom', 'pin', 'tool_mask'],
  parts: ['user:text', 'user:image', 'user:file', 'assistant:text', 'assistant:thinking', 'assistant:toolCall', 'toolResult:text', 'toolResult:image'],
  stopReasons: ['stop', 'length', 'toolUse', 'error', 'aborted', 'interrupted'],
  statuses: ['streaming', 'complete'],
  actions: ['regenerate', 'edit', 'undo', 'redo'],
  summarizers: ['model', 'extractive', 'hook', 'imported'],
  fallbackReasons: ['empty', 'length', 'larger'],
};

function formatValuesIn(entries: Json[]): typeof FORMAT {
  const seen = { entryTypes: new Set<string>(), parts: new Set<string>(), stopReasons: new Set<string>(), statuses: new Set<string>(), actions: new Set<string>(), summarizers: new Set<string>(), fallbackReasons: new Set<string>() };
  for (const raw of entries) {
    const e = raw as unknown as SessionEntry;
    seen.entryTypes.add(e.type);
    if (e.type === 'message') {
      for (const p of e.message.content) seen.parts.add(`${e.message.role}:${p.type}`);
      if (e.message.role === 'assistant') {
        if (e.message.stopReason) seen.stopReasons.add(e.message.stopReason);
        if (e.message.status) seen.statuses.add(e.message.status);
      }
    }
    if (e.type === 'summary_revision') seen.actions.add(e.action);
    const d = e.type === 'compaction' || e.type === 'branch_summary' ? e.details : e.type === 'summary_revision' ? e.details : undefined;
    if (d?.summarizer) seen.summarizers.add(d.summarizer.kind);
    if (d?.fallback) seen.fallbackReasons.add(d.fallback.reason);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, sorted(v)])) as unknown as typeof FORMAT;
}

function issuePaths(result: { success: boolean; error?: z.ZodError }): string[] {
  return result.error ? result.error.issues.map((i) => i.path.join('.')) : [];
}

describe('the schemas accept what the app writes', () => {
  it('every entry kind, content part and enum value of an exported session (real pi session, continued) is accepted, and the header too', () => {
    const { meta, entries } = exported(workbench());
    const sortedFormat = Object.fromEntries(Object.entries(FORMAT).map(([k, v]) => [k, [...v].sort()]));
    expect(formatValuesIn(entries)).toEqual(sortedFormat);
    for (const e of entries) expect(issuePaths(sessionEntrySchema.safeParse(e)), JSON.stringify(e).slice(0, 200)).toEqual([]);
    expect(issuePaths(sessionMetaSchema.safeParse(meta))).toEqual([]);
  });

  it.each(Object.keys(FIXTURES) as FixtureName[])('the export of every session imported from %s is accepted', (name) => {
    for (const snapshot of importText(readFixture(name), { fileName: FIXTURES[name] }).sessions) {
      const { meta, entries } = exported(snapshot);
      expect(issuePaths(sessionMetaSchema.safeParse(meta))).toEqual([]);
      for (const e of entries) expect(issuePaths(sessionEntrySchema.safeParse(e)), `${e.type} ${e.id}`).toEqual([]);
    }
  });

  it('the compaction settings: the defaults, and the bounds of every number', () => {
    expect(compactionSettingsSchema.safeParse(DEFAULT_COMPACTION_SETTINGS).success).toBe(true);
    const edges = [
      { reserveTokens: 0 },
      { keepRecentTokens: 0 },
      { toolResultMaxChars: 0 },
      { maskProtectTokens: 0 },
      { thresholdPercent: 0 },
      { thresholdPercent: 0.85 },
      { thresholdPercent: 1 },
    ];
    for (const edge of edges) expect(compactionSettingsSchema.safeParse({ ...DEFAULT_COMPACTION_SETTINGS, ...edge }).success, JSON.stringify(edge)).toBe(true);
  });

  it('the header: the bounds of temperature and reply length, and an empty session', () => {
    const { meta } = exported(workbench());
    for (const edge of [{ temperature: 0 }, { temperature: 2 }, { maxOutputTokens: 1 }, { maxOutputTokens: 1_000_000 }, { leafId: null }, { compaction: {} }]) {
      expect(issuePaths(sessionMetaSchema.safeParse({ ...meta, ...edge })), JSON.stringify(edge)).toEqual([]);
    }
  });

  it('keeps fields it does not know (a file from a newer version still imports)', () => {
    const { meta, entries } = exported(workbench());
    const entry = { ...entries[0]!, addedLater: { x: 1 } };
    expect(sessionEntrySchema.parse(entry)).toMatchObject({ addedLater: { x: 1 } });
    expect(sessionMetaSchema.parse({ ...meta, addedLater: 1 })).toMatchObject({ addedLater: 1 });
  });
});

/** A copy of `record` with the value at `path` replaced, or removed when `value` is DROP. */
const DROP = Symbol('drop');
function changed(record: Json, path: (string | number)[], value: unknown): Json {
  const copy = structuredClone(record);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === DROP) delete at[last];
  else at[last] = value;
  return copy;
}

type Case = [what: string, path: (string | number)[], value: unknown];

/** Wrong records, by the kind of a valid exported record they start from. The error must name `path`. */
const ENTRY_CASES: Record<string, Case[]> = {
  'user message': [
    ['no id', ['id'], DROP],
    ['an empty id', ['id'], ''],
    ['a numeric parent', ['parentId'], 5],
    ['an empty parent', ['parentId'], ''],
    ['no parent (null is the root)', ['parentId'], DROP],
    ['a textual timestamp', ['timestamp'], '2026-01-01'],
    ['a token cache without the o200k count', ['tokens', 'o200k'], DROP],
    ['a token cache without its version', ['tokens', 'v'], DROP],
    ['a token cache without chars/4', ['tokens', 'chars4'], DROP],
    ['an unknown entry type', ['type'], 'note'],
    ['no message', ['message'], DROP],
    ['a message of an unknown role', ['message', 'role'], 'system'],
    ['content that is a string', ['message', 'content'], 'hi'],
    ['a text part without text', ['message', 'content', 0, 'text'], DROP],
    ['a text part with a number', ['message', 'content', 0, 'text'], 42],
    ['a part of a kind users do not send', ['message', 'content', 0, 'type'], 'thinking'],
    ['an image without its MIME type', ['message', 'content', 1, 'mimeType'], DROP],
    ['an image with a textual width', ['message', 'content', 1, 'width'], '640'],
    ['an image with a numeric URL', ['message', 'content', 2, 'url'], 1],
    ['a file without its name', ['message', 'content', 3, 'name'], DROP],
    ['a file without its MIME type', ['message', 'content', 3, 'mimeType'], DROP],
    ['a file without its size', ['message', 'content', 3, 'byteLength'], DROP],
    ['a file whose text is a number', ['message', 'content', 3, 'text'], 1],
  ],
  'assistant message': [
    ['a thinking part without its text', ['message', 'content', 1, 'thinking'], DROP],
    ['a thinking part with a textual redacted flag', ['message', 'content', 0, 'redacted'], 'yes'],
    ['an image part (assistants do not send them)', ['message', 'content', 0, 'type'], 'image'],
    ['an unknown status', ['message', 'status'], 'final'],
  ],
  'assistant reply': [
    ['an unknown stop reason', ['message', 'stopReason'], 'done'],
    ['a numeric model', ['message', 'model'], 5],
    ['usage without input tokens', ['message', 'usage', 'input'], DROP],
    ['usage with textual output tokens', ['message', 'usage', 'output'], '0'],
    ['a numeric error message', ['message', 'errorMessage'], 401],
  ],
  'tool call': [
    ['a call without its id', ['message', 'content', 'CALL', 'id'], DROP],
    ['a call without the tool name', ['message', 'content', 'CALL', 'name'], DROP],
    ['a call whose arguments are a string', ['message', 'content', 'CALL', 'arguments'], '{"a":1}'],
  ],
  'tool result': [
    ['no call id', ['message', 'toolCallId'], DROP],
    ['no tool name', ['message', 'toolName'], DROP],
    ['no error flag', ['message', 'isError'], DROP],
    ['a file part (results carry text and images)', ['message', 'content', 0, 'type'], 'file'],
  ],
  'image result': [['an image without its MIME type', ['message', 'content', 'IMAGE', 'mimeType'], DROP]],
  compaction: [
    ['no summary', ['summary'], DROP],
    ['no first kept entry', ['firstKeptEntryId'], DROP],
    ['no token figure', ['tokensBefore'], DROP],
    ['a textual figure after', ['tokensAfter'], '3000'],
    ['no details', ['details'], DROP],
    ['details without read files', ['details', 'readFiles'], DROP],
    ['a modified file that is a number', ['details', 'modifiedFiles', 0], 1],
    ['details without the summarizer', ['details', 'summarizer'], DROP],
    ['a hook summarizer without its name', ['details', 'summarizer', 'name'], DROP],
    ['a summarizer of an unknown kind', ['details', 'summarizer', 'kind'], 'oracle'],
    ['a textual split-turn flag', ['details', 'isSplitTurn'], 'yes'],
  ],
  'imported compaction': [['an imported summarizer without its source', ['details', 'summarizer', 'source'], DROP]],
  'branch summary': [
    ['no origin leaf', ['fromId'], DROP],
    ['no summary', ['summary'], DROP],
    ['no details', ['details'], DROP],
    ['a fallback without the model', ['details', 'fallback', 'model'], DROP],
    ['a fallback for an unknown reason', ['details', 'fallback', 'reason'], 'slow'],
    ['a fallback without the attempts', ['details', 'fallback', 'attempts'], DROP],
    ['a self-check without its outcome', ['details', 'selfCheck', 'patched'], DROP],
    ['a self-check whose usage has no output', ['details', 'selfCheck', 'usage', 'output'], DROP],
  ],
  'model summary revision': [
    ['a model summarizer without the model', ['details', 'summarizer', 'model'], DROP],
    ['no target', ['targetId'], DROP],
    ['an unknown action', ['action'], 'delete'],
    ['a numeric summary', ['summary'], 3],
    ['read files that are a string', ['details', 'readFiles'], 'lib/a.ts'],
  ],
  'model change': [['no model', ['model'], DROP]],
  label: [
    ['no target', ['targetId'], DROP],
    ['no label (null clears one; absent is not a label)', ['label'], DROP],
    ['a numeric label', ['label'], 3],
  ],
  custom: [
    ['no custom type', ['customType'], DROP],
    ['a numeric display', ['display'], 3],
  ],
  pin: [
    ['no target', ['targetId'], DROP],
    ['no pinned flag', ['pinned'], DROP],
    ['a textual pinned flag', ['pinned'], 'yes'],
  ],
  'tool mask': [
    ['no masked ids', ['maskedIds'], DROP],
    ['a masked id that is a number', ['maskedIds', 0], 1],
    ['no figure before', ['tokensBefore'], DROP],
    ['no figure after', ['tokensAfter'], DROP],
    ['no protected window', ['protectTokens'], DROP],
  ],
};

/** The valid exported record each group of cases starts from. */
function specimens(entries: Json[]): Record<string, { record: Json; call?: number; image?: number }> {
  const all = entries as unknown as SessionEntry[];
  const msg = (pred: (e: MessageEntry) => boolean) => all.find((e): e is MessageEntry => e.type === 'message' && pred(e))!;
  const withCall = msg((e) => e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'toolCall'));
  const withImage = msg((e) => e.message.role === 'toolResult' && e.message.content.some((p) => p.type === 'image'));
  const partIndex = (e: MessageEntry, type: string) => e.message.content.findIndex((p) => p.type === type);
  const of = (e: SessionEntry | undefined) => e as unknown as Json;
  const find = (pred: (e: SessionEntry) => boolean) => of(all.find(pred));
  return {
    'user message': { record: of(msg((e) => e.message.role === 'user' && e.message.content.some((p) => p.type === 'file'))) },
    'assistant message': { record: of(msg((e) => e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'thinking'))) },
    'assistant reply': { record: of(msg((e) => e.message.role === 'assistant' && !!e.message.usage && !!e.message.errorMessage)) },
    'tool call': { record: of(withCall), call: partIndex(withCall, 'toolCall') },
    'tool result': { record: of(msg((e) => e.message.role === 'toolResult' && e.message.content[0]?.type === 'text')) },
    'image result': { record: of(withImage), image: partIndex(withImage, 'image') },
    compaction: { record: find((e) => e.type === 'compaction' && e.details.summarizer.kind === 'hook') },
    'imported compaction': { record: find((e) => e.type === 'compaction' && e.details.summarizer.kind === 'imported') },
    'branch summary': { record: find((e) => e.type === 'branch_summary' && !!e.details.selfCheck?.usage) },
    'model summary revision': { record: find((e) => e.type === 'summary_revision' && e.details?.summarizer?.kind === 'model') },
    'model change': { record: find((e) => e.type === 'model_change') },
    label: { record: find((e) => e.type === 'label') },
    custom: { record: find((e) => e.type === 'custom' && e.display !== undefined) },
    pin: { record: find((e) => e.type === 'pin') },
    'tool mask': { record: find((e) => e.type === 'tool_mask') },
  };
}

describe('the schemas refuse a wrong record and name the field', () => {
  const { meta, entries } = exported(workbench());
  const specimen = specimens(entries);
  const cases = Object.entries(ENTRY_CASES).flatMap(([kind, list]) =>
    list.map(([what, rawPath, value]) => {
      const { record, call, image } = specimen[kind]!;
      const path = rawPath.map((k) => (k === 'CALL' ? call! : k === 'IMAGE' ? image! : k));
      return { name: `${kind}: ${what}`, record, path, value };
    }),
  );

  it.each(cases)('$name', ({ record, path, value }) => {
    expect(sessionEntrySchema.safeParse(record).success).toBe(true);
    expect(issuePaths(sessionEntrySchema.safeParse(changed(record, path, value)))).toContain(path.join('.'));
  });

  const META_CASES: Case[] = [
    ['no id', ['id'], DROP],
    ['an empty id', ['id'], ''],
    ['no title', ['title'], DROP],
    ['no creation time', ['createdAt'], DROP],
    ['a textual update time', ['updatedAt'], 'today'],
    ['no leaf (null means empty)', ['leafId'], DROP],
    ['a temperature below 0', ['temperature'], -0.1],
    ['a temperature above 2', ['temperature'], 2.1],
    ['a reply length of 0', ['maxOutputTokens'], 0],
    ['a fractional reply length', ['maxOutputTokens'], 1.5],
    ['a reply length above a million', ['maxOutputTokens'], 1_000_001],
    ['a textual compaction switch', ['compaction', 'enabled'], 'yes'],
    ['a negative reserve', ['compaction', 'reserveTokens'], -1],
    ['a threshold above 100 %', ['compaction', 'thresholdPercent'], 1.01],
    ['a source without its format', ['source', 'format'], DROP],
    ['a continuation without its session', ['continuedFrom', 'sessionId'], DROP],
    ['a continuation from an empty entry id', ['continuedFrom', 'entryId'], ''],
    ['a continuation from an empty session id', ['continuedFrom', 'sessionId'], ''],
    ['a continuation without the title', ['continuedFrom', 'title'], DROP],
    ['a continuation whose origin has no hash', ['continuedFrom', 'origin', 'hash'], DROP],
  ];
  const withSource = { ...meta, source: { format: 'pi-v1', fileName: 'compact.jsonl' } };

  it.each(META_CASES.map(([what, path, value]) => ({ name: `session header: ${what}`, path, value })))('$name', ({ path, value }) => {
    expect(sessionMetaSchema.safeParse(withSource).success).toBe(true);
    expect(issuePaths(sessionMetaSchema.safeParse(changed(withSource, path, value)))).toContain(path.join('.'));
  });

  const SETTINGS_CASES: Case[] = [
    ['no switch', ['enabled'], DROP],
    ['no reserve', ['reserveTokens'], DROP],
    ['a fractional reserve', ['reserveTokens'], 10.5],
    ['a negative kept tail', ['keepRecentTokens'], -1],
    ['a negative threshold', ['thresholdPercent'], -0.1],
    ['a threshold above 1', ['thresholdPercent'], 1.5],
    ['no tool result limit', ['toolResultMaxChars'], DROP],
    ['a negative protected window', ['maskProtectTokens'], -5],
    ['a textual masking switch', ['maskToolOutput'], 'on'],
  ];
  it.each(SETTINGS_CASES.map(([what, path, value]) => ({ name: `compaction settings: ${what}`, path, value })))('$name', ({ path, value }) => {
    expect(issuePaths(compactionSettingsSchema.safeParse(changed(DEFAULT_COMPACTION_SETTINGS as unknown as Json, path, value)))).toContain(path.join('.'));
  });
});
