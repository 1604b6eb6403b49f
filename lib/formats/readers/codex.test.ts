import { describe, expect, it } from 'vitest';
import { createFileOps, addMessage } from '@/lib/compaction/fileOps';
import { buildSessionContext } from '@/lib/session/context';
import type { AssistantMessage, SessionEntry, ToolResultMessage } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { countBy, expectToolResultsPaired, expectWellFormed, rawRecords, type Raw } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { ENCRYPTED_CODEX_SUMMARY, readCodex } from './codex';

const text = readFixture('codexRollout');
const raw = rawRecords(text);
const payloads = raw.map((r) => r.rec.payload as Raw);
const ofType = (t: string) => payloads.filter((p) => p.type === t);
const assistants = (entries: SessionEntry[]) => entries.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? [e.message] : []));
const results = (entries: SessionEntry[]) => entries.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message] : []));
const calls = (entries: SessionEntry[]) => assistants(entries).flatMap((m) => m.content.filter((p) => p.type === 'toolCall'));
/** The fixture with some lines removed or replaced (1-based line numbers), and lines appended. */
function edited(edit: (rec: Raw, line: number) => Raw | null, append: Raw[] = []): string {
  const lines = text.split('\n').filter((l) => l.trim());
  const out = lines.map((l, i) => edit(JSON.parse(l) as Raw, i + 1)).filter((r): r is Raw => r !== null);
  return [...out, ...append].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

describe('Codex CLI rollout fixture', () => {
  // Each test reads for itself: a reader run while the file is collected leaves its mutants without per-test coverage (docs/mutation.md).
  const read = () => {
    const s = readCodex(text, { fileName: 'rollout-2026-05-11T11-26-55-019e1625.jsonl' }).sessions[0]!;
    return { s, tree: expectWellFormed(s) };
  };

  it('takes the session meta: instructions as the system prompt, cwd, id, the model of the turn context', () => {
    const { s } = read();
    const meta = payloads[0]!;
    expect(s.meta.systemPrompt).toBe((meta.base_instructions as Raw).text);
    expect(s.meta.cwd).toBe(meta.cwd);
    expect(s.meta.source).toMatchObject({ format: 'codex', originalId: meta.id });
    const turn = raw.find((r) => r.rec.type === 'turn_context')!.rec.payload as Raw;
    expect(s.meta.model).toBe(`openai:${turn.model as string}`);
    expect(s.meta.createdAt).toBe(Date.parse(meta.timestamp as string));
  });

  it('is one chain: the user prompts as user messages, titled by the first, injected context as notes never sent', () => {
    const { s, tree } = read();
    expect(tree.roots()).toHaveLength(1);
    expect(tree.branchPoints()).toHaveLength(0);
    const prompts = ofType('user_message').map((p) => p.message as string);
    expect(prompts).toHaveLength(2);
    const users = s.entries.filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => (e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : ''))).toEqual(prompts);
    expect(s.meta.title).toBe(prompts[0]);
    const notes = s.entries.filter((e) => e.type === 'custom');
    expect(notes.map((e) => e.type === 'custom' && e.customType)).toEqual(['codex:developer', 'codex:context']);
    const ctx = buildSessionContext(tree, s.meta.leafId);
    expect(ctx.items.some((i) => notes.some((n) => n.id === i.entryId))).toBe(false);
    expect(ctx.items[0]).toMatchObject({ kind: 'message', message: { role: 'user' } });
  });

  it('pairs every function, custom and web-search call with its result by call_id', () => {
    const { s } = read();
    const expectedCalls = ofType('function_call').length + ofType('custom_tool_call').length + ofType('web_search_call').length;
    expect(ofType('function_call')).toHaveLength(99);
    expect(calls(s.entries)).toHaveLength(expectedCalls);
    expect(expectToolResultsPaired(s)).toBe(expectedCalls);
    const byCall = new Map(results(s.entries).map((r) => [r.toolCallId, r]));
    for (const p of ofType('function_call_output')) expect((byCall.get(p.call_id as string)!.content[0] as { text: string }).text).toBe(p.output);
    for (const c of ofType('function_call')) expect(byCall.get(c.call_id as string)!.toolName).toBe(c.name);
    const searches = calls(s.entries).filter((c) => c.type === 'toolCall' && c.name === 'web_search');
    expect(searches.map((c) => c.type === 'toolCall' && c.arguments.query)).toEqual(ofType('web_search_call').map((p) => (p.action as Raw).query));
  });

  it('marks the results of failed commands as errors (exec_command_end exit codes)', () => {
    const { s } = read();
    const failed = ofType('exec_command_end').filter((p) => p.exit_code !== 0).map((p) => p.call_id);
    expect(failed).toHaveLength(4);
    expect(results(s.entries).filter((r) => r.isError).map((r) => r.toolCallId).sort()).toEqual([...failed].sort());
  });

  it('counts the files apply_patch changed as modified', () => {
    const { s } = read();
    const ops = createFileOps();
    for (const m of assistants(s.entries)) addMessage(ops, m);
    const changed = ofType('patch_apply_end').flatMap((p) => Object.keys(p.changes as Raw));
    expect(changed.length).toBeGreaterThan(0);
    for (const abs of changed) expect([...ops.modified].some((rel) => abs.endsWith(`/${rel}`))).toBe(true);
  });

  it('keeps reasoning as (encrypted, so redacted) thinking, merged into the response it belongs to', () => {
    const { s } = read();
    const thinking = assistants(s.entries).flatMap((m) => m.content.filter((p) => p.type === 'thinking'));
    expect(thinking).toHaveLength(ofType('reasoning').length);
    expect(thinking.every((t) => t.type === 'thinking' && t.redacted)).toBe(true);
    // A response with several parallel calls is one assistant entry.
    expect(assistants(s.entries).some((m) => m.content.filter((p) => p.type === 'toolCall').length > 1)).toBe(true);
  });

  it('puts each token_count on the response it follows, cached input as cache reads', () => {
    const { s } = read();
    const usages = assistants(s.entries).flatMap((m) => (m.usage ? [m.usage] : []));
    const counts = ofType('token_count').map((p) => (p.info as Raw).last_token_usage as Record<string, number>);
    expect(usages).toHaveLength(counts.length);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(usages.map((u) => u.input + (u.cacheRead ?? 0)))).toBe(sum(counts.map((c) => c.input_tokens!)));
    expect(sum(usages.map((u) => u.cacheRead ?? 0))).toBe(sum(counts.map((c) => c.cached_input_tokens!)));
    expect(sum(usages.map((u) => u.output))).toBe(sum(counts.map((c) => c.output_tokens!)));
  });

  it('a Codex Desktop rollout (no turn_context, no token_count lines) still imports', () => {
    const { s } = read();
    const desktop = readCodex(edited((rec) => (rec.type === 'turn_context' || (rec.payload as Raw).type === 'token_count' ? null : rec))).sessions[0]!;
    expectWellFormed(desktop);
    expect(desktop.meta.model).toBeUndefined();
    expect(assistants(desktop.entries).some((m) => m.usage)).toBe(false);
    expect(countBy(desktop.entries)).toEqual(countBy(s.entries));
  });

  it('a model change between turns becomes a model_change entry', () => {
    let seen = 0;
    const changed = readCodex(edited((rec) => (rec.type === 'turn_context' && ++seen === 2 ? { ...rec, payload: { ...(rec.payload as Raw), model: 'gpt-5.5-mini' } } : rec))).sessions[0]!;
    const changes = changed.entries.filter((e) => e.type === 'model_change');
    expect(changes).toMatchObject([{ type: 'model_change', model: 'openai:gpt-5.5-mini' }]);
    expect(changed.meta.model).toBe('openai:gpt-5.5-mini');
    expect(buildSessionContext(changed.entries, changed.meta.leafId).model).toBe('openai:gpt-5.5-mini');
  });

  // Codex writes the new history in replacement_history: the context it injects again, recent prompts copied, the summary.
  const prompts = payloads.filter((p) => p.type === 'message' && p.role === 'user').map((p) => ((p.content as Raw[])[0]!.text as string));
  const typed = prompts.find((t) => !t.trimStart().startsWith('<') && !t.trimStart().startsWith('#'))!;
  const injected = prompts.find((t) => t.startsWith('# AGENTS.md instructions'))!;
  const userItem = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const compactedRead = (payload: Raw) => {
    const ts = raw.at(-1)!.rec.timestamp;
    const next = { timestamp: ts, type: 'response_item', payload: userItem('and now?') };
    return readCodex(edited((rec) => rec, [{ timestamp: ts, type: 'compacted', payload }, next])).sessions[0]!;
  };

  it('a compacted line becomes a compaction that keeps nothing before it: its summary, then the prompts Codex carried over, start the context', () => {
    expect(typed).toBeDefined();
    expect(injected).toBeDefined();
    const message = 'Summary: the threshold now defaults to 90%.';
    const c = compactedRead({ message, replacement_history: [userItem(injected), userItem(typed), userItem(message)] });
    expectWellFormed(c);
    const at = c.entries.findIndex((e) => e.type === 'compaction');
    const compaction = c.entries[at]!;
    const lastCount = (ofType('token_count').at(-1)!.info as Raw).last_token_usage as Record<string, number>;
    const summary = `${message}\n\n## User messages Codex kept with the summary\n\n${typed}`;
    expect(compaction).toMatchObject({
      parentId: c.entries[at - 1]!.id,
      summary,
      firstKeptEntryId: compaction.id,
      tokensBefore: lastCount.input_tokens! + lastCount.output_tokens!,
      details: { summarizer: { kind: 'imported', source: 'codex' } },
    });
    const ctx = buildSessionContext(c.entries, c.meta.leafId);
    expect(ctx.items[0]).toMatchObject({ kind: 'compactionSummary', summary });
    expect(ctx.items.slice(1)).toMatchObject([{ kind: 'message', message: { role: 'user', content: [{ text: 'and now?' }] } }]);
  });

  it('a server-side compaction (no message, an encrypted summary) says that its summary cannot be read', () => {
    const c = compactedRead({ message: '', replacement_history: [userItem(typed), { type: 'compaction', encrypted_content: 'gAAAAABo…' }] });
    expect(c.entries.find((e) => e.type === 'compaction')).toMatchObject({ summary: `${ENCRYPTED_CODEX_SUMMARY}\n\n## User messages Codex kept with the summary\n\n${typed}` });
    expect(compactedRead({ replacement_history: [{ type: 'compaction_summary', encrypted_content: 'x' }] }).entries.find((e) => e.type === 'compaction')).toMatchObject({ summary: ENCRYPTED_CODEX_SUMMARY });
  });

  it('turn_aborted marks the last reply of the turn interrupted', () => {
    const { s } = read();
    const lastTs = raw.at(-1)!.rec.timestamp;
    const aborted = readCodex(edited((rec) => rec, [{ timestamp: lastTs, type: 'event_msg', payload: { type: 'turn_aborted', reason: 'interrupted' } }])).sessions[0]!;
    const last = assistants(aborted.entries).at(-1) as AssistantMessage;
    expect(last.stopReason).toBe('interrupted');
    expect(assistants(s.entries).at(-1)!.stopReason).toBe('stop');
  });

  it('names the line of a broken record', () => {
    const lines = text.split('\n');
    lines[9] = '{"timestamp":"2026-05-11T08:27:22.767Z","type":"event_msg","payload":';
    expect(() => readCodex(lines.join('\n'))).toThrow(ImportError);
    expect(() => readCodex(lines.join('\n'))).toThrow(/^Line 10\b/);
  });

  it('reads a rollout from before the envelope (bare response items after an {id, timestamp, instructions} line)', () => {
    const old = [
      { id: 'old-1', timestamp: '2025-05-01T10:00:00.000Z', instructions: 'Be careful.' },
      { record_type: 'state' },
      ...payloads.filter((p) => p.type === 'message' || p.type === 'function_call' || p.type === 'function_call_output').slice(0, 12),
    ];
    const o = readCodex(old.map((r) => JSON.stringify(r)).join('\n')).sessions[0]!;
    expectWellFormed(o);
    expect(o.meta).toMatchObject({ systemPrompt: 'Be careful.', source: { originalId: 'old-1' }, createdAt: Date.parse('2025-05-01T10:00:00.000Z') });
    expect(results(o.entries).length).toBeGreaterThan(0);
    expect(results(o.entries).every((r: ToolResultMessage) => r.toolName !== 'unknown')).toBe(true);
  });
});
