import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { charSpec, chars } from '@/lib/testing/summaryPlans';
import { SummaryPlanError, planSequence, truncateToTokens, type SequencePlan, type SequenceSpec } from './chunking';
import { assemblePrompt, wrapConversation, wrapPrevious } from './prompts';
import { ITEM_SEPARATOR, serializeItem, truncateMiddle } from './serialize';
import type { SummaryItem } from './types';

/**
 * The planner's budgets at their edges, with one character counted as one
 * token so that every figure can be checked to the token.
 */

const SERIALIZE = { toolResultMaxChars: 100_000 };
const spec = charSpec;

/** What a step's transcript may take: the window less output, margin, system prompt, wrapper and instructions (and the previous-summary block). */
const room = (s: SequenceSpec, instructions: string) => s.window - s.maxOutputTokens - s.safetyMarginTokens - chars(s.system) - chars(wrapConversation('')) - chars(instructions);

const msg = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });

/** Real user requests of the pi session of moderate size, as items. */
function userItems(n: number): SummaryItem[] {
  const out: SummaryItem[] = [];
  for (const e of loadSession('piV1').path) {
    if (e.type !== 'message' || e.message.role !== 'user') continue;
    const text = e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    if (text.length < 40 || text.length > 700) continue;
    out.push(msg(e.id, e.message));
    if (out.length === n) break;
  }
  return out;
}

/** Real tool outputs of the SWE-agent trajectory as the results of one assistant's parallel calls. */
function toolGroup(prefix: string, sizes: number[], from = 0): SummaryItem[] {
  const outputs = loadSession('sweTraj')
    .path.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')] : []))
    .join('\n');
  const calls = sizes.map((_, i) => ({ type: 'toolCall' as const, id: `${prefix}c${i}`, name: 'bash', arguments: { command: `step ${i}` } }));
  let at = from;
  return [
    msg(`${prefix}a`, { role: 'assistant', content: calls }),
    ...sizes.map((n, i) => {
      const text = outputs.slice(at, (at += n));
      return msg(`${prefix}t${i}`, { role: 'toolResult', toolCallId: `${prefix}c${i}`, toolName: 'bash', isError: false, content: [{ type: 'text', text }] });
    }),
  ];
}

const serialized = (items: SummaryItem[]) => items.map((it) => serializeItem(it, SERIALIZE));

/** What is sent for each step: system + prompt, a chained summary taken at its largest (maxOutputTokens). */
function sent(s: SequenceSpec, plan: SequencePlan): number[] {
  return plan.steps.map((st) => {
    const prev = st.previous === 'input' ? plan.previousSummary : st.previous === 'chain' ? 'x'.repeat(s.maxOutputTokens) : null;
    return chars(st.system) + chars(assemblePrompt(prev, st.transcript, st.instructions));
  });
}

describe('truncateToTokens where the marker loses a digit', () => {
  it('keeps the longest head and tail that fit, checked against every kept length', () => {
    const text = userItems(40)
      .map((it) => serializeItem(it, SERIALIZE))
      .join('\n')
      .slice(0, 1021);
    expect(text).toHaveLength(1021);
    const why = "cut to fit the summarizer's window";
    const lengths = Array.from({ length: text.length }, (_, keep) => truncateMiddle(text, keep, why).length);
    for (let max = 60; max <= 200; max++) {
      let keep = -1;
      lengths.forEach((len, k) => {
        if (len <= max) keep = k;
      });
      // Under the full marker's length only a shorter note fits (below).
      if (keep >= 0) expect(truncateToTokens(text, max, chars), `max ${max}`).toBe(truncateMiddle(text, keep, why));
      else expect(truncateToTokens(text, max, chars), `max ${max}`).toBe('[… 1021 characters cut …]');
    }
  });

  it('a budget under the full marker gets a shorter note, then "[…]", then nothing: never more than the budget', () => {
    const text = 'x'.repeat(5000);
    expect(truncateToTokens(text, 40, chars)).toBe('[… 5000 characters cut …]');
    expect(truncateToTokens(text, 24, chars)).toBe('[…]');
    expect(truncateToTokens(text, 2, chars)).toBe('');
    for (let max = 0; max <= 120; max++) expect(truncateToTokens(text, max, chars).length, `max ${max}`).toBeLessThanOrEqual(max);
  });
});

describe('steps of a plan', () => {
  it('an empty transcript plans no request', () => {
    const plan = planSequence(spec([]));
    expect(plan.steps).toEqual([]);
    expect(plan.warnings).toEqual([]);
  });

  it('the chunks together are the whole transcript, in order, nothing added', () => {
    const items = userItems(30);
    const plan = planSequence(spec(items, { window: 2000 }));
    expect(plan.steps.length).toBeGreaterThan(2);
    expect(plan.steps.every((st) => st.truncatedItems === 0)).toBe(true);
    expect(plan.steps.map((st) => st.transcript).join(ITEM_SEPARATOR)).toBe(serialized(items).join(ITEM_SEPARATOR));
    expect(plan.steps.flatMap((st) => st.entryIds)).toEqual(items.map((it) => it.entryId));
  });

  it("each step's input figure is a tight upper bound of what is sent, with an input or a chained previous summary", () => {
    const items = userItems(30);
    const previousSummary = '## Goal\nImprove the pi CLI.\n\n## Progress\n- Read the issue and the session format.\n\n## Next Steps\n1. Continue.';
    const s = spec(items, { window: 2400, previousSummary });
    const plan = planSequence(s);
    expect(plan.steps.map((st) => st.previous).slice(0, 2)).toEqual(['input', 'chain']);
    expect(plan.previousSummary).toBe(previousSummary);
    const out = sent(s, plan);
    plan.steps.forEach((st, i) => {
      expect(st.inputTokens, `step ${i}`).toBeGreaterThanOrEqual(out[i]!);
      expect(st.inputTokens, `step ${i}`).toBeLessThanOrEqual(out[i]! + chars(ITEM_SEPARATOR));
      expect(out[i]! + s.maxOutputTokens + s.safetyMarginTokens, `step ${i}`).toBeLessThanOrEqual(s.window);
    });
  });

  it('a chunk takes groups up to the last token of its budget', () => {
    const items = userItems(12);
    const need = serialized(items).reduce((a, t) => a + chars(t) + chars(ITEM_SEPARATOR), 0);
    const base = spec(items);
    // The window at which the first (fresh) step's room is exactly what the items need.
    const window = base.window - room(base, base.freshInstructions) + need;
    expect(planSequence(spec(items, { window })).steps).toHaveLength(1);
    expect(planSequence(spec(items, { window: window - 1 })).steps).toHaveLength(2);
  });

  it('a tool group one token over its budget is cut to fit; at its budget it is kept whole', () => {
    const items = toolGroup('g', [700, 400], 1500);
    const need = serialized(items).reduce((a, t) => a + chars(t) + chars(ITEM_SEPARATOR), 0);
    const base = spec(items);
    const window = base.window - room(base, base.freshInstructions) + need;
    const whole = planSequence(spec(items, { window }));
    expect(whole.steps).toHaveLength(1);
    expect(whole.steps[0]!.truncatedItems).toBe(0);
    expect(whole.steps[0]!.transcript).toBe(serialized(items).join(ITEM_SEPARATOR));
    const s = spec(items, { window: window - 1 });
    const cut = planSequence(s);
    expect(cut.steps).toHaveLength(1);
    expect(cut.steps[0]!.entryIds).toEqual(items.map((it) => it.entryId));
    expect(cut.steps[0]!.truncatedItems).toBeGreaterThan(0);
    expect(cut.steps[0]!.transcript).toMatch(/characters cut to fit the summarizer's window/);
    expect(cut.steps[0]!.inputTokens + s.maxOutputTokens + s.safetyMarginTokens).toBeLessThanOrEqual(s.window);
  });

  it('over a sweep of windows, no step is planned over its budget, with tool groups cut or packed around it', () => {
    const items = [...userItems(3), ...toolGroup('g1', [200, 150]), ...userItems(6).slice(3), ...toolGroup('g2', [120, 90, 60], 3000), ...toolGroup('g3', [500], 6000), ...userItems(8).slice(6)];
    const previousSummary = '## Goal\nImprove the pi CLI.\n\n## Next Steps\n1. Continue.';
    for (let window = 1300; window <= 2900; window++) {
      for (const prev of [null, previousSummary]) {
        const s = spec(items, { window, previousSummary: prev });
        const plan = planSequence(s);
        plan.steps.forEach((st, i) => {
          expect(st.inputTokens + s.maxOutputTokens + s.safetyMarginTokens, `window ${window}, step ${i}`).toBeLessThanOrEqual(window);
        });
      }
    }
  });
});

describe('a previous summary and a small window', () => {
  const PREV = () => userItems(12).map((it) => serializeItem(it, SERIALIZE)).join('\n');

  it('keeps the previous summary whole while the transcript keeps a third of the room; one token more and it is cut to two thirds', () => {
    const items = userItems(20);
    const base = spec(items, { window: 3000 });
    const avail = room(base, base.updateInstructions) - chars(wrapPrevious(''));
    const allowed = avail - Math.max(64, Math.floor(avail / 3));
    const prev = PREV();
    expect(prev.length).toBeGreaterThan(allowed + 1);

    const fits = prev.slice(0, allowed);
    const whole = planSequence(spec(items, { window: 3000, previousSummary: fits }));
    expect(whole.previousSummary).toBe(fits);
    expect(whole.warnings.filter((w) => w.includes('previous summary'))).toEqual([]);

    const s = spec(items, { window: 3000, previousSummary: prev.slice(0, allowed + 1) });
    const cut = planSequence(s);
    expect(cut.warnings).toContain(`The previous summary was cut to ${allowed} tokens to fit the summarizer's window.`);
    expect(cut.previousSummary!.length).toBeLessThanOrEqual(allowed);
    expect(cut.previousSummary).toMatch(/characters cut to fit the summarizer's window/);
    // The cut summary goes out with the first step, which still fits the window and is counted right.
    const out = sent(s, cut);
    expect(cut.steps[0]!.previous).toBe('input');
    expect(out[0]! + s.maxOutputTokens + s.safetyMarginTokens).toBeLessThanOrEqual(s.window);
    expect(cut.steps[0]!.inputTokens).toBeGreaterThanOrEqual(out[0]!);
    expect(cut.steps[0]!.inputTokens).toBeLessThanOrEqual(out[0]! + chars(ITEM_SEPARATOR));
  });

  it('a long previous summary in a large window: the first step with it still fits and is counted right', () => {
    const items = userItems(40);
    const s = spec(items, { window: 5000, previousSummary: PREV() });
    const plan = planSequence(s);
    expect(plan.steps.length).toBeGreaterThan(1);
    const out = sent(s, plan);
    plan.steps.forEach((st, i) => {
      expect(out[i]! + s.maxOutputTokens + s.safetyMarginTokens, `step ${i}`).toBeLessThanOrEqual(s.window);
      expect(st.inputTokens).toBeLessThanOrEqual(out[i]! + chars(ITEM_SEPARATOR));
    });
  });

  it('a previous summary that could keep only 63 tokens is refused; 64 are enough', () => {
    const items = [msg('u1', { role: 'user', content: [{ type: 'text', text: 'run the tests again' }] })];
    const base = spec(items);
    // The window at which the room for previous summary + transcript is exactly 128 tokens: 64 for each.
    const window = base.window - (room(base, base.updateInstructions) - chars(wrapPrevious(''))) + 128;
    // A short previous summary, so that its cut (marker included) fits 64 tokens.
    const prev = '## Goal\nImprove the pi CLI.\n\n## Next Steps\n1. Continue with the session format.';
    expect(prev.length).toBeGreaterThan(64);
    const ok = planSequence(spec(items, { window, previousSummary: prev }));
    expect(ok.warnings).toContain("The previous summary was cut to 64 tokens to fit the summarizer's window.");
    expect(ok.steps).toHaveLength(1);
    let err: unknown;
    try {
      planSequence(spec(items, { window: window - 1, previousSummary: prev }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SummaryPlanError);
    expect((err as Error).message).toBe(`The summarizer's window (${window - 1} tokens) is too small for the prompt and previous summary.`);
  });
});

describe('the smallest windows', () => {
  it('a first step with exactly 64 tokens of room is planned; 63 is refused', () => {
    const items = [msg('u1', { role: 'user', content: [{ type: 'text', text: 'run the tests again' }] })];
    const base = spec(items);
    const window = base.window - room(base, base.freshInstructions) + 64;
    expect(planSequence(spec(items, { window })).steps).toHaveLength(1);
    expect(() => planSequence(spec(items, { window: window - 1 }))).toThrow("is too small for the summary prompt");
  });

  it('a chained step with exactly 64 tokens of room is planned; 63 leaves no room for a chunk', () => {
    const items = userItems(12);
    const base = spec(items);
    // A chained step pays for the previous-summary block and the previous output at its largest.
    const chainRoom = (window: number) => room({ ...base, window }, base.updateInstructions) - chars(wrapPrevious('')) - base.maxOutputTokens;
    const window = base.window - chainRoom(base.window) + 64;
    const plan = planSequence(spec(items, { window }));
    expect(plan.steps.length).toBeGreaterThan(1);
    expect(plan.steps[1]!.previous).toBe('chain');
    let err: unknown;
    try {
      planSequence(spec(items, { window: window - 1 }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SummaryPlanError);
    expect((err as Error).message).toBe(`The summarizer's window (${window - 1} tokens) leaves no room for a chunk.`);
  });
});
