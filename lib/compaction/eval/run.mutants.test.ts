import { describe, expect, it } from 'vitest';
import type { SessionEntry, SummarizerInfo } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import type { SummaryRequest, TextSummarizer } from '../summarizer';
import { PROBE_KINDS } from './probes';
import { evaluateSubject, type EvalDeps } from './run';

/**
 * The eval harness's arithmetic and its questions, on small hand-made
 * sessions with a stand-in model (no tokenizer: tokens are characters here,
 * or a quarter of them), so every figure can be worked out from the data.
 */

const deps = (over: Partial<EvalDeps> = {}): EvalDeps => ({ countText: (t) => Math.ceil(t.length / 4), tokensOf: textLengthTokens, window: 128_000, ...over });

const isQuestion = (r: SummaryRequest) => r.system.startsWith('You answer questions about a transcript');
const transcriptOf = (prompt: string) => /^<transcript>\n([\s\S]*)\n<\/transcript>\n\n/.exec(prompt)?.[1] ?? '';

/** A model that summarises with a fixed text and answers questions with `answer(context)`. */
function standIn(window: number, answer: (context: string) => string = () => 'unknown', info: SummarizerInfo = { kind: 'model', model: 'stand:in' }) {
  const requests: SummaryRequest[] = [];
  const summarizer: TextSummarizer = {
    info,
    complete: async (req) => {
      requests.push(req);
      return { text: isQuestion(req) ? answer(transcriptOf(req.prompt)) : '## Goal\nShip the parser.' };
    },
  };
  return { model: { summarizer, window }, requests };
}

/** Two requests with tool work, then a third turn; the user's lines are long enough to be worth compacting. */
function session(): SessionEntry[] {
  const b = new TreeBuilder();
  b.user(`Write the parser in /src/parse.ts ${'a'.repeat(400)}`, 'u1');
  b.toolCall('write', { path: '/src/parse.ts', content: 'x'.repeat(300) }, 'c1', 'a1');
  b.toolResult('c1', 'write', 'written', 't1');
  b.assistant(`Done with the parser. ${'b'.repeat(300)}`, 'a2');
  b.user(`Now the tests, please ${'c'.repeat(400)}`, 'u2');
  b.assistant(`Tests written. ${'d'.repeat(300)}`, 'a3');
  b.user('And the docs', 'u3');
  b.label('u3', 'docs');
  b.assistant('Docs done.', 'a4');
  return b.entries;
}

describe('eval rows: the figures', () => {
  it('a session with nothing to compact: one skipped row per mode, the context as it is, nothing appended or grown', async () => {
    const b = new TreeBuilder();
    b.user('hello there', 'u1');
    b.label('u1', 'start');
    const rows = await evaluateSubject({ name: 'tiny', path: b.entries }, deps(), standIn(128_000).model);
    expect(rows).toEqual(
      ['extractive', 'stand:in'].map((mode) => ({
        fixture: 'tiny',
        mode,
        skipped: 'nothing to compact',
        spanTokens: 0,
        summaryTokens: 0,
        compression: 0,
        contextBefore: 11,
        contextAfter: 11,
        window: 128_000,
        appended: false,
        grew: false,
        fallback: null,
        coverage: Object.fromEntries(PROBE_KINDS.map((k) => [k, { hit: 0, total: 0 }])),
      })),
    );
  });

  it('measured as a manual compaction: a session of one long request and its reply is compacted (the request summarised)', async () => {
    const b = new TreeBuilder();
    b.user(`Explain the codebase ${'e'.repeat(979)}`, 'u1');
    b.assistant('Done.', 'a1');
    const [row] = await evaluateSubject({ name: 'one', path: b.entries }, deps());
    expect(row!.skipped).toBeNull();
    expect(row!.spanTokens).toBe(1000);
    expect(row!.compression).toBeCloseTo(1 - row!.summaryTokens / 1000, 12);
    expect(row!.grew).toBe(false);
  });

  it('a summary counted as large as its span grew it; the compression is then 0', async () => {
    const b = new TreeBuilder();
    b.user(`Explain the codebase ${'e'.repeat(979)}`, 'u1');
    b.assistant('Done.', 'a1');
    const [row, model] = await evaluateSubject({ name: 'one', path: b.entries }, deps({ countText: () => 1000 }), standIn(128_000).model);
    expect(row!.spanTokens).toBe(1000);
    expect(row!.summaryTokens).toBe(1000);
    expect(row!.grew).toBe(true);
    expect(row!.compression).toBe(0);
    // The model's summary is judged by the same count: as large as the span, it is rejected at once (no smaller one could fit).
    expect(model!.fallback).toBe('larger ×1');
  });

  it('a span counted as zero tokens: compression 0, not a division by zero', async () => {
    const [row] = await evaluateSubject({ name: 's', path: session() }, deps({ tokensOf: () => 0 }));
    if (row!.skipped === null) {
      expect(row!.spanTokens).toBe(0);
      expect(row!.compression).toBe(0);
    } else expect(row!.skipped).toBe('nothing to compact');
  });

  it('the span includes the previous summary the compaction replaces', async () => {
    const b = new TreeBuilder();
    b.user('x'.repeat(100), 'u1');
    b.assistant('x'.repeat(100), 'a1');
    b.compaction('y'.repeat(40), 'u1', 200, 'cmp');
    b.user('x'.repeat(100), 'u2');
    b.assistant('x'.repeat(100), 'a2');
    b.user('x'.repeat(100), 'u3');
    b.assistant('x'.repeat(100), 'a3');
    // 640 tokens in all: a quarter (160) is kept (u3 a3), u1 to a2 are summarised with the summary before them.
    const [row] = await evaluateSubject({ name: 'c', path: b.entries }, deps());
    expect(row!.spanTokens).toBe(400 + 40);
  });

  it('a rejected model summary falls back to the extractive one, and the row says why and after how many attempts', async () => {
    const summarizer: TextSummarizer = { info: { kind: 'model', model: 'stand:in' }, complete: async () => ({ text: '' }) };
    const rows = await evaluateSubject({ name: 's', path: session() }, deps(), { summarizer, window: 128_000 });
    expect(rows[1]!.mode).toBe('stand:in');
    expect(rows[1]!.fallback).toBe('empty ×2');
    expect(rows[0]!.fallback).toBeNull();
  });

  it('a summarizer that is not a model is named "model"', async () => {
    const rows = await evaluateSubject({ name: 's', path: session() }, deps(), standIn(128_000, undefined, { kind: 'hook', name: 'h' }).model);
    expect(rows.map((r) => r.mode)).toEqual(['extractive', 'model']);
  });
});

describe('eval: the questions', () => {
  it('asked as compaction calls; the compacted context holds the kept messages (not the bookkeeping); no answers means no ratio', async () => {
    const { model, requests } = standIn(128_000);
    const [, row] = await evaluateSubject({ name: 's', path: session() }, deps(), model);
    const questions = requests.filter(isQuestion);
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) expect(q.purpose).toBe('compaction');
    const compacted = transcriptOf(questions[0]!.prompt);
    expect(compacted.startsWith('[Summary of the earlier conversation]:\n## Goal\nShip the parser.')).toBe(true);
    expect(compacted).toContain('[User]: And the docs');
    expect(compacted).toContain('Docs done.');
    expect(row!.qa).toEqual({ compacted: 0, full: 0, ratio: null });
  });

  it('the full context is asked exactly when it fits the window less the answer (a quarter, at most 4096) and 500 tokens', async () => {
    const countText = (t: string) => Math.ceil(t.length / 4);
    const first = standIn(128_000);
    await evaluateSubject({ name: 's', path: session() }, deps({ countText }), first.model);
    const contexts = first.requests.filter(isQuestion).map((q) => transcriptOf(q.prompt));
    const full = contexts.reduce((a, b) => (b.length > a.length ? b : a));
    const need = countText(full);
    // The smallest window whose budget holds the full context; a window one smaller does not.
    const budget = (w: number) => w - Math.min(4096, Math.floor(w / 4)) - 500;
    let window = 1;
    while (budget(window) < need) window++;
    expect(window).toBeLessThan(16_384);
    const fits = await evaluateSubject({ name: 's', path: session() }, deps({ countText }), standIn(window).model);
    expect(fits[1]!.qa!.note).toBeUndefined();
    expect(fits[1]!.qa!.full).toBe(0);
    let smaller = window - 1;
    while (budget(smaller) >= need) smaller--;
    const over = await evaluateSubject({ name: 's', path: session() }, deps({ countText }), standIn(smaller).model);
    expect(over[1]!.qa).toMatchObject({ full: null, note: 'full context exceeds the model window' });
  });
});
