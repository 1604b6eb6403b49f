import { describe, expect, it } from 'vitest';
import { loadSession } from '@/lib/testing/compactionData';
import { runSummaryPlan, type StepInfo } from './run';
import type { SummaryRequest, SummaryResponse, TextSummarizer } from './summarizer';
import type { PlanStep, SummaryPlan } from './types';

/** Running a plan: step numbering, request counting, when the turn prefix is asked for, and the result's shape. */

/** Real user requests of the pi session, as transcripts of hand-made steps. */
function transcripts(n: number): string[] {
  const out: string[] = [];
  for (const e of loadSession('piV1').path) {
    if (e.type !== 'message' || e.message.role !== 'user') continue;
    const text = e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n').trim();
    if (text) out.push(`[User]: ${text}`);
    if (out.length === n) break;
  }
  return out;
}

const step = (previous: PlanStep['previous'], transcript: string, purpose: PlanStep['purpose'], entryId: string): PlanStep => ({
  purpose,
  system: 'You summarise coding sessions.',
  previous,
  transcript,
  instructions: previous === 'none' ? 'Summarise the conversation.' : 'Update the summary.',
  maxOutputTokens: 800,
  entryIds: [entryId],
  truncatedItems: 0,
  inputTokens: 1000,
});

const plan = (history: PlanStep[], turnPrefix: PlanStep[], previousSummary: string | null = null): SummaryPlan => ({
  kind: 'compaction',
  history,
  turnPrefix,
  previousSummary,
  fileOps: { readFiles: [], modifiedFiles: [] },
  footer: '',
  window: 8000,
  maxOutputTokens: 800,
  warnings: [],
});

/** A summarizer that answers each request with `reply` and records what it was asked. */
function recorder(reply: (req: SummaryRequest, n: number) => SummaryResponse) {
  const requests: SummaryRequest[] = [];
  const summarizer: TextSummarizer = {
    info: { kind: 'model', model: 'test:recorder' },
    complete: async (req) => {
      requests.push(req);
      return reply(req, requests.length);
    },
  };
  return { summarizer, requests };
}

describe('runSummaryPlan', () => {
  it('numbers the steps over history and turn prefix together, and counts every request', async () => {
    const [a, b, c] = transcripts(3);
    const { summarizer, requests } = recorder((_, n) => ({ text: `## Goal\nsummary ${n}` }));
    const seen: StepInfo[] = [];
    const out = await runSummaryPlan(plan([step('none', a!, 'chunk', 'e1'), step('chain', b!, 'compaction', 'e2')], [step('none', c!, 'turn-prefix', 'e3')]), summarizer, {
      onStep: (info) => seen.push(info),
    });
    expect(seen).toEqual([
      { purpose: 'chunk', step: 0, steps: 3 },
      { purpose: 'compaction', step: 1, steps: 3 },
      { purpose: 'turn-prefix', step: 2, steps: 3 },
    ]);
    expect(requests).toHaveLength(3);
    expect(out.requests).toBe(3);
    expect(out.historyText).toBe('## Goal\nsummary 2');
    expect(out.turnPrefixText).toBe('## Goal\nsummary 3');
  });

  it("a step planned without a previous summary gets none, even after another step's output", async () => {
    const [a, b] = transcripts(2);
    const { summarizer, requests } = recorder((_, n) => ({ text: `## Goal\nsummary ${n}` }));
    await runSummaryPlan(plan([step('none', a!, 'chunk', 'e1'), step('none', b!, 'compaction', 'e2')], []), summarizer);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.prompt).not.toContain('<previous-summary>');
    expect(requests[1]!.prompt).not.toContain('summary 1');
    expect(requests[1]!.prompt).toContain(b!);
  });

  it('a history step that comes back empty stops the run: the turn prefix is not asked for', async () => {
    const [a, b] = transcripts(2);
    const { summarizer, requests } = recorder(() => ({ text: '  \n' }));
    const out = await runSummaryPlan(plan([step('none', a!, 'compaction', 'e1')], [step('none', b!, 'turn-prefix', 'e2')]), summarizer);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.purpose).toBe('compaction');
    expect(out.flaw).toBe('empty');
    expect(out.turnPrefixText).toBe('');
    expect(out.requests).toBe(1);
  });

  it('a clean run without usage figures has neither a usage nor a flaw field', async () => {
    const [a] = transcripts(1);
    const { summarizer } = recorder(() => ({ text: '## Goal\nDone.', finishReason: 'stop' }));
    const out = await runSummaryPlan(plan([step('none', a!, 'compaction', 'e1')], []), summarizer);
    expect(out.text).toContain('## Goal\nDone.');
    expect(Object.keys(out).sort()).toEqual(['historyText', 'requests', 'text', 'turnPrefixText']);
  });
});
