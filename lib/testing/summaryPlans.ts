import type { SequenceSpec } from '@/lib/compaction/chunking';
import type { PlanStep, SummaryItem, SummaryPlan } from '@/lib/compaction/types';
import { loadSession } from './compactionData';

/** Test-only plans and planner specs shared by the compaction tests. */

/** One character counted as one token: budgets then add up exactly and can be checked to the token. */
export const chars = (text: string) => text.length;

/** A planner spec with small fixed prompts and a 6,000-token window, counting characters. */
export const charSpec = (items: SummaryItem[], over: Partial<SequenceSpec> = {}): SequenceSpec => ({
  items,
  previousSummary: null,
  system: 'SYSTEM PROMPT',
  freshInstructions: 'Summarise.',
  updateInstructions: 'Update the summary.',
  purpose: 'compaction',
  window: 6000,
  maxOutputTokens: 500,
  safetyMarginTokens: 100,
  countText: chars,
  serialize: { toolResultMaxChars: 100_000 },
  ...over,
});

/** A one-step compaction plan over the first four user requests of the real pi session. */
export function piPlan(): SummaryPlan {
  const texts: string[] = [];
  for (const e of loadSession('piV1').path) {
    if (e.type === 'message' && e.message.role === 'user') texts.push(`[User]: ${e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')}`);
    if (texts.length === 4) break;
  }
  const step: PlanStep = {
    purpose: 'compaction',
    system: 'You summarise coding sessions.',
    previous: 'none',
    transcript: texts.join('\n\n'),
    instructions: 'Summarise the conversation.',
    maxOutputTokens: 1200,
    entryIds: ['e1', 'e2', 'e3', 'e4'],
    truncatedItems: 0,
    inputTokens: 2000,
  };
  return { kind: 'compaction', history: [step], turnPrefix: [], previousSummary: null, fileOps: { readFiles: [], modifiedFiles: [] }, footer: '', window: 16_000, maxOutputTokens: 1200, warnings: [] };
}
