import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { EXTRACTIVE_LABEL, extractiveBudgetChars, extractiveSummary, fallbackLabel } from './extractive';
import { stripFileFooter } from './fileOps';
import type { SummaryItem } from './types';

/** The extractive summary's sections for what a span can hold besides plain requests and tool work. */

const none = { readFiles: [], modifiedFiles: [] };
const item = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });
const user = (id: string, text: string) => item(id, { role: 'user', content: [{ type: 'text', text }] });

/** The pi session's first 40 messages as summary items: real requests, tool calls and results. */
function piItems(): SummaryItem[] {
  return loadSession('piV1')
    .path.filter((e) => e.type === 'message')
    .slice(0, 40)
    .map((e) => item(e.id, (e as { message: ChatMessage }).message));
}

describe('extractive summary: what the span holds besides requests', () => {
  it('summaries met inside the span are listed by kind, quoted, without their file footer', () => {
    const text = extractiveSummary({
      kind: 'compaction',
      items: [
        user('u1', 'Continue the parser work'),
        { kind: 'branchSummary', entryId: 'b1', summary: 'Tried a regex parser; too slow.\n\n<read-files>\n/src/old.ts\n</read-files>' },
        { kind: 'compactionSummary', entryId: 'c1', summary: '## Goal\nBuild the parser.' },
      ],
      fileOps: none,
    });
    expect(text).toContain('## Summaries inside this part\nBranch summary:\n> Tried a regex parser; too slow.\nEarlier summary:\n> ## Goal\n> Build the parser.');
    expect(text).not.toContain('/src/old.ts');
  });

  it('a failed reply is an error seen, with its message or a plain "the reply failed", each distinct one once with its count', () => {
    const failed = (id: string, errorMessage?: string) => item(id, { role: 'assistant', content: [], stopReason: 'error', ...(errorMessage ? { errorMessage } : {}) });
    const text = extractiveSummary({
      kind: 'compaction',
      items: [...piItems(), user('uX', 'try again'), failed('f1', '529 Overloaded (request 12)'), failed('f2', '529 Overloaded (request 40)'), failed('f3')],
      fileOps: none,
    });
    const errors = /## Errors seen[^\n]*\n([\s\S]*?)(?:\n\n|$)/.exec(stripFileFooter(text))![1]!.split('\n');
    // The same failure with other numbers is one entry, counted, in its latest wording.
    expect(errors).toContain('- reply failed: 529 Overloaded (request 40) (×2)');
    expect(errors).toContain('- reply failed: the reply failed');
  });

  it('a command whose result is not in the span says so; one run once has no count', () => {
    const text = extractiveSummary({
      kind: 'compaction',
      items: [user('u1', 'build it'), item('a1', { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'make all' } }] })],
      fileOps: none,
    });
    expect(text).toContain('- `make all` → no result');
  });

  it('the headline counts items, roles and tools; a branch is described as one', () => {
    const items = piItems();
    const text = extractiveSummary({ kind: 'branch', items, fileOps: none });
    const users = items.filter((i) => i.kind === 'message' && i.message.role === 'user').length;
    expect(text).toMatch(new RegExp(`^${EXTRACTIVE_LABEL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\nThis abandoned branch: 40 items \\(${users} user, \\d+ assistant, \\d+ tool results; tools: `));
    expect(text).toContain('## Goal (the first request on this branch)');
    expect(text).toContain('## Last requests on this branch');
    const one = extractiveSummary({ kind: 'compaction', items: [user('u1', 'hello')], fileOps: none });
    expect(one).toContain('The summarised part: 1 item (1 user, 0 assistant, 0 tool results).');
  });

  it('a budget too small for the sections keeps the label and cuts the middle, within the budget', () => {
    const max = 900;
    const text = extractiveSummary({ kind: 'compaction', items: piItems(), fileOps: none }, { maxChars: max });
    expect(text.length).toBeLessThanOrEqual(max);
    expect(text.startsWith(`${EXTRACTIVE_LABEL}\n\nThe summarised part: 40 items`)).toBe(true);
    expect(text).toContain('of the extractive summary cut for space');
    // The marker saying what was cut is part of the bound, at every size.
    for (const m of [500, 700, 1200, 1800, 2600]) expect(extractiveSummary({ kind: 'compaction', items: piItems(), fileOps: none }, { maxChars: m }).length, `maxChars ${m}`).toBeLessThanOrEqual(m);
  });

  it('the fallback label names the model, the reason and the attempts', () => {
    expect(fallbackLabel({ model: 'openai:gpt-4o', reason: 'length', attempts: 1 })).toBe(
      '**Extractive summary — fallback.** The summary of openai:gpt-4o was not used: it was cut off at the output limit (1 attempt). Assembled from the messages themselves; nothing was paraphrased or inferred.',
    );
    expect(fallbackLabel({ model: 'm', reason: 'empty', attempts: 2 })).toContain('it came back empty (2 attempts)');
  });

  it('the size bound: 3 characters per output token up to 24 000, never more than 2 per span token, never under 1 200', () => {
    expect(extractiveBudgetChars(1000, 0)).toBe(3000);
    expect(extractiveBudgetChars(20_000, 0)).toBe(24_000);
    expect(extractiveBudgetChars(20_000, 5000)).toBe(10_000);
    expect(extractiveBudgetChars(1000, 1000)).toBe(2000);
    expect(extractiveBudgetChars(1000, 100)).toBe(1200);
  });
});
