import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { countText, entryTokens, loadSession } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';
import { scriptedModel } from '@/lib/testing/scriptedModel';
import { PROBE_KINDS, totalCoverage } from './probes';
import { formatReport } from './report';
import { evaluateSubject } from './run';

/**
 * The model half of the eval harness: the probes are asked of the model with
 * the compacted context and with the full one, and the report shows both.
 * A scripted model stands in: it summarises with a fixed text and answers a
 * question by quoting what its context holds of the conversation itself (user
 * lines, quoted user messages, the paths of tool calls), so what it can answer
 * is exactly what that context kept.
 */

const deps = { countText, tokensOf: entryTokens, window: 128_000 };
/** The pi session's first 120 messages: six user requests with real tool work and files written. */
const subject = () => ({ name: 'piV1', path: loadSession('piV1').path.filter((e) => e.type === 'message').slice(0, 120) as SessionEntry[] });

const isQuestion = (system: string) => system.startsWith('You answer questions about a transcript');
const transcriptOf = (prompt: string) => /^<transcript>\n([\s\S]*)\n<\/transcript>\n\n/.exec(prompt)?.[1] ?? '';

function quoteConversation(context: string): string {
  const out: string[] = [];
  for (const line of context.split('\n')) {
    if (line.startsWith('[User]: ') || line.startsWith('> ') || /^\d+\. \(first line only\) /.test(line)) out.push(line);
    else if (line.startsWith('[Tool call] ')) out.push(...[...line.matchAll(/"(?:path|file_path)":"([^"]*)"/g)].map((m) => m[1]!));
  }
  return out.join('\n');
}

function quotingModel(window: number, opts: { failQuestions?: 'all' | 'second-context' } = {}) {
  let contexts = new Set<string>();
  const { model, calls } = scriptedModel(({ system, prompt }) => {
    if (!isQuestion(system)) return '## Goal\nWork on the pi session.';
    const context = transcriptOf(prompt);
    contexts.add(context);
    if (opts.failQuestions === 'all' || (opts.failQuestions === 'second-context' && contexts.size > 1)) throw new Error('model down');
    return quoteConversation(context);
  });
  const reset = () => (contexts = new Set());
  return { model: { summarizer: languageModelSummarizer(model), window }, calls, reset };
}

describe('eval: the probes asked of the model', () => {
  it('asks one question per probe kind of each context, and scores the compacted context against the full one', async () => {
    const { model, calls } = quotingModel(128_000);
    const rows = await evaluateSubject(subject(), deps, model);
    expect(rows.map((r) => r.mode)).toEqual(['extractive', 'mock:summarizer']);
    const [extractive, row] = rows;
    expect(extractive!.qa).toBeUndefined();
    const qa = row!.qa!;
    const probes = totalCoverage(row!.coverage).total;
    expect(probes).toBeGreaterThan(3);
    // Quoting the full transcript answers every probe drawn from it; the compacted one answers fewer.
    expect(qa.full).toBe(probes);
    expect(qa.compacted).toBeGreaterThan(0);
    expect(qa.compacted).toBeLessThan(qa.full!);
    expect(qa.ratio).toBeCloseTo(qa.compacted / qa.full!, 10);
    expect(qa.note).toBeUndefined();

    const questions = calls.filter((c) => isQuestion(c.system));
    const kinds = PROBE_KINDS.filter((k) => row!.coverage[k].total > 0).length;
    expect(questions).toHaveLength(2 * kinds);
    for (const q of questions) {
      expect(q.maxOutputTokens).toBe(4096);
      expect(q.prompt.startsWith('<transcript>\n')).toBe(true);
    }
    // First the compacted context (summary, then the kept messages), then the full one.
    const [compacted, full] = [transcriptOf(questions[0]!.prompt), transcriptOf(questions[kinds]!.prompt)];
    expect(compacted.startsWith('[Summary of the earlier conversation]:\n## Goal\nWork on the pi session.')).toBe(true);
    expect(full.startsWith('[User]: ')).toBe(true);
    expect(full.length).toBeGreaterThan(compacted.length);
    // The questions name what they ask for.
    expect(questions.some((q) => q.prompt.endsWith("Quote, word for word, the user's latest request that is still open."))).toBe(true);

    const report = formatReport(rows);
    expect(report).toContain(`${qa.compacted} / ${qa.full} = ${qa.ratio!.toFixed(2)}`);
  });

  it('a full context larger than the model window is reported, not truncated; a small model gets a quarter of its window per answer', async () => {
    const window = 16_000;
    const { model, calls } = quotingModel(window);
    const [, row] = await evaluateSubject(subject(), deps, model);
    expect(row!.qa).toMatchObject({ full: null, ratio: null, note: 'full context exceeds the model window' });
    const questions = calls.filter((c) => isQuestion(c.system));
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) expect(q.maxOutputTokens).toBe(window / 4);
    expect(formatReport([row!])).toContain('n/a (full context exceeds the model window)');
  });

  it('a failed question is reported with its context, and the rest of the row stands', async () => {
    const all = quotingModel(128_000, { failQuestions: 'all' });
    const [, down] = await evaluateSubject(subject(), deps, all.model);
    expect(down!.qa).toEqual({ compacted: 0, full: null, ratio: null, note: 'compacted context failed: model down' });
    expect(down!.skipped).toBeNull();
    const second = quotingModel(128_000, { failQuestions: 'second-context' });
    const [, half] = await evaluateSubject(subject(), deps, second.model);
    expect(half!.qa!.note).toBe('full context failed: model down');
    expect(half!.qa!.compacted).toBeGreaterThan(0);
    expect(half!.qa!.full).toBeNull();
  });

  it('a summary that fails is a skipped row saying why; a session with nothing to compact is skipped for each mode', async () => {
    const { model } = scriptedModel(() => {
      throw new Error('summarizer unreachable');
    });
    const rows = await evaluateSubject(subject(), deps, { summarizer: languageModelSummarizer(model), window: 128_000 });
    expect(rows[1]!.skipped).toMatch(/^failed: .*summarizer unreachable/);
    expect(rows[1]!.contextAfter).toBe(rows[1]!.contextBefore);
    const report = formatReport(rows);
    expect(report.split('\n').find((l) => l.startsWith('piV1') && l.includes('failed:'))).toBeDefined();

    const one = { name: 'tiny', path: subject().path.slice(0, 1) };
    const empty = await evaluateSubject(one, deps, quotingModel(128_000).model);
    expect(empty.map((r) => [r.mode, r.skipped])).toEqual([
      ['extractive', 'nothing to compact'],
      ['mock:summarizer', 'nothing to compact'],
    ]);
    expect(formatReport(empty)).toContain('nothing to compact');
  });
});
