import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { charSpec, chars } from '@/lib/testing/summaryPlans';
import { SummaryPlanError, planSequence, truncateToTokens } from './chunking';
import { assemblePrompt } from './prompts';
import { ITEM_SEPARATOR, truncateMiddle } from './serialize';
import type { SummaryItem } from './types';

/**
 * The planner's arithmetic, with one character counted as one token: token
 * counts then add up exactly, so budgets can be checked to the token against
 * an independent reference.
 */

const spec = charSpec;

const msg = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });

/** Real tool outputs of the SWE-agent trajectory, large and small, as results of one assistant's parallel calls. */
function parallelGroup(sizes: number[]): SummaryItem[] {
  const outputs = loadSession('sweTraj')
    .path.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')] : []))
    .join('\n');
  const calls = sizes.map((_, i) => ({ type: 'toolCall' as const, id: `c${i}`, name: 'bash', arguments: { command: `step ${i}` } }));
  let at = 0;
  return [
    msg('a', { role: 'assistant', content: calls }),
    ...sizes.map((n, i) => {
      const text = outputs.slice(at, (at += n));
      return msg(`t${i}`, { role: 'toolResult', toolCallId: `c${i}`, toolName: 'bash', isError: false, content: [{ type: 'text', text }] });
    }),
  ];
}

describe('truncateToTokens', () => {
  it('keeps the longest head and tail that fit, marker included (checked against a scan of every length)', () => {
    const text = loadSession('piV1')
      .path.flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? e.message.content.map((p) => (p.type === 'text' ? p.text : '')) : []))
      .join('\n')
      .slice(0, 3000);
    for (const max of [60, 61, 150, 999, 2999, 3000]) {
      // Under the full marker's length, a shorter note that fits (chunking.mutants2.test.ts has its steps).
      let best = `[… ${text.length} characters cut …]`;
      for (let keep = 0; keep < text.length; keep++) {
        const t = truncateMiddle(text, keep, "cut to fit the summarizer's window");
        if (t.length <= max) best = t;
      }
      const expected = text.length <= max ? text : best;
      expect(truncateToTokens(text, max, chars), `max ${max}`).toBe(expected);
    }
    // Exactly at the limit is not cut.
    expect(truncateToTokens('x'.repeat(40), 40, chars)).toBe('x'.repeat(40));
  });
});

describe('a tool-call group larger than a request', () => {
  it('stays in one request, its largest outputs cut first and the small ones whole, within the budget to the token', () => {
    const items = parallelGroup([300, 9000, 200, 4000]);
    const s = spec(items);
    const plan = planSequence(s);
    expect(plan.steps).toHaveLength(1);
    const [step] = plan.steps;
    expect(step!.entryIds).toEqual(['a', 't0', 't1', 't2', 't3']);
    // The budget of the step: window − output − margin − system − wrapper − instructions.
    const budget = s.window - s.maxOutputTokens - s.safetyMarginTokens - chars(s.system) - chars(assemblePrompt(null, '', '')) - chars(s.freshInstructions);
    expect(step!.transcript.length).toBeLessThanOrEqual(budget);
    // Uses nearly all of it: the water-filling gives the cut outputs what the small ones leave.
    expect(step!.transcript.length).toBeGreaterThan(budget - 60);
    const whole = (i: number) => `[Tool result] bash: ${((items[i + 1] as { message: { content: { text: string }[] } }).message.content[0]!.text)}`;
    expect(step!.transcript).toContain(whole(0));
    expect(step!.transcript).toContain(whole(2));
    expect(step!.transcript).not.toContain(whole(1));
    expect(step!.transcript).not.toContain(whole(3));
    expect(step!.truncatedItems).toBe(2);
    // The two cut outputs get equal shares (each is larger than its share): the same number of characters kept.
    const kept = [...step!.transcript.matchAll(/\[… ([\d,]+) of ([\d,]+) characters cut to fit the summarizer's window …\]/g)].map((m) => Number(m[2]!.replace(/,/g, '')) - Number(m[1]!.replace(/,/g, '')));
    expect(kept).toHaveLength(2);
    expect(Math.abs(kept[0]! - kept[1]!)).toBeLessThanOrEqual(2);
    // The step's input figure is an upper bound of what is sent, and a tight one.
    const sent = chars(step!.system) + chars(assemblePrompt(null, step!.transcript, step!.instructions));
    expect(step!.inputTokens).toBeGreaterThanOrEqual(sent);
    expect(step!.inputTokens).toBeLessThanOrEqual(sent + chars(ITEM_SEPARATOR));
    expect(plan.warnings).toEqual([]);
  });

  it('a group that fits is left as it is, and requests chain with the previous output reserved', () => {
    const items = [...parallelGroup([300, 300]), ...parallelGroup([2500, 2500]).map((it) => ({ ...it, entryId: `${it.entryId}2` }))];
    const plan = planSequence(spec(items));
    expect(plan.steps.map((st) => st.previous)).toEqual(['none', 'chain']);
    expect(plan.steps.map((st) => st.purpose)).toEqual(['chunk', 'compaction']);
    expect(plan.steps[0]!.truncatedItems).toBe(0);
    expect(plan.steps[1]!.instructions).toBe('Update the summary.');
    expect(plan.warnings).toEqual(['The transcript was split into 2 chunks summarised one after another.']);
    for (const st of plan.steps) expect(st.inputTokens).toBeLessThanOrEqual(6000 - 500 - 100);
  });

  it('a window too small for the prompt is refused with a named error', () => {
    let err: unknown;
    try {
      planSequence(spec(parallelGroup([100]), { window: 700 }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SummaryPlanError);
    expect((err as Error).name).toBe('SummaryPlanError');
    expect((err as Error).message).toBe("The summarizer's window (700 tokens) is too small for the summary prompt.");
  });
});
