import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { rawRecords, type Raw } from '@/lib/testing/formatChecks';
import { readClaudeCode } from './claudeCode';

const blocks = (r: Raw): Raw[] => {
  const c = (r.message as Raw | undefined)?.content;
  return Array.isArray(c) ? (c as Raw[]) : [];
};

/**
 * A transcript's line order need not follow its tree (lines are linked by uuid/parentUuid): a tool result
 * can be written before the line that made the call. Its tool name is known only once that line is read.
 */
describe('Claude Code: a tool result written before its call', () => {
  it('still carries the name of the tool that was called', () => {
    const lines = readFixture('claudeLog').split('\n').filter((l) => l.trim() !== '');
    const recs = rawRecords(lines.join('\n')).map((r) => r.rec);
    const callNames = new Map<string, string>();
    for (const r of recs) for (const b of blocks(r)) if (b.type === 'tool_use') callNames.set(b.id as string, b.name as string);
    const resultAt = recs.findIndex((r) => r.type === 'user' && blocks(r).some((b) => b.type === 'tool_result' && callNames.has(b.tool_use_id as string)));
    expect(resultAt).toBeGreaterThan(0);
    const callId = blocks(recs[resultAt]!).find((b) => b.type === 'tool_result')!.tool_use_id as string;
    const callAt = recs.findIndex((r) => blocks(r).some((b) => b.type === 'tool_use' && b.id === callId));
    expect(callAt).toBeLessThan(resultAt);
    // Move the result line up, just before the call.
    const reordered = [...lines.slice(0, callAt), lines[resultAt]!, ...lines.slice(callAt, resultAt), ...lines.slice(resultAt + 1)];

    const { entries } = readClaudeCode(reordered.join('\n'), { fileName: 'reordered.jsonl' }).sessions[0]!;
    const results = entries.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message] : []));
    const moved = results.find((m) => m.toolCallId === callId);
    expect(moved?.toolName).toBe(callNames.get(callId));
    for (const m of results) if (callNames.has(m.toolCallId)) expect(m.toolName, m.toolCallId).toBe(callNames.get(m.toolCallId));
  });
});
