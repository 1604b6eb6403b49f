import { describe, expect, it } from 'vitest';
import type { Usage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { piPlan } from '@/lib/testing/summaryPlans';
import { hookList, notifyAfterHooks, produceSummary, type SummaryEngine, type SummaryRunOptions, type SummarySpan } from './produce';
import type { SummaryRequest, SummaryResponse, TextSummarizer } from './summarizer';
import { retryBudget } from './summaryCheck';
import type { BeforeSummaryDecision, FileLists, MaybePromise } from './types';

/** Producing a summary: before-hooks, observers, aborts, the clock, and whether a self-check patch is taken. */

interface Hook {
  name?: string;
  before?: (ctx: { signal?: AbortSignal }) => MaybePromise<BeforeSummaryDecision>;
}

const FILES: FileLists = { readFiles: [], modifiedFiles: [] };
const BODY = '## Goal\nWork on the pi issue.\n\n## Next Steps\n1. Continue.';

function recorder(reply: (req: SummaryRequest) => SummaryResponse, info: TextSummarizer['info'] = { kind: 'model', model: 'test:recorder' }) {
  const requests: { req: SummaryRequest; signal: AbortSignal | undefined }[] = [];
  const summarizer: TextSummarizer = {
    info,
    complete: async (req, opts) => {
      requests.push({ req, signal: opts.signal });
      return reply(req);
    },
  };
  return { summarizer, requests };
}

/** produceSummary with hooks, counting how often the extractive summarizer was asked. */
function produce(hooks: Hook[], opts: SummaryRunOptions<Hook> = {}, engine: SummaryEngine = { kind: 'extractive' }, span: SummarySpan = { tokens: 0, userMessages: '' }, extractive?: () => string) {
  const asked = { hooks: 0, extractive: 0 };
  const result = produceSummary<Hook>({
    engine,
    fileOps: FILES,
    span,
    extractive: () => {
      asked.extractive++;
      return extractive ? extractive() : 'EXTRACTIVE';
    },
    ask: (h, ctx) =>
      h.before
        ? () => {
            asked.hooks++;
            return h.before!(ctx);
          }
        : undefined,
    opts: { ...opts, hooks },
  });
  return { result, asked };
}

const aborted = () => {
  const ctl = new AbortController();
  ctl.abort();
  return ctl;
};

describe('hook lists and observers', () => {
  it('no hooks is an empty list; one hook a list of one', () => {
    expect(hookList<Hook>(undefined)).toEqual([]);
    const h: Hook = { name: 'one' };
    expect(hookList(h)).toEqual([h]);
  });

  it('every observer is called; one that throws is reported (or ignored without a reporter) and the rest still run', async () => {
    const called: string[] = [];
    const errors: unknown[] = [];
    const hooks = ['a', 'b', 'c'];
    const call = (h: string) => {
      called.push(h);
      if (h === 'b') throw new Error('observer b failed');
    };
    await notifyAfterHooks(hooks, call, (e) => errors.push(e));
    expect(called).toEqual(['a', 'b', 'c']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['observer b failed']);
    await expect(notifyAfterHooks(hooks, call)).resolves.toBeUndefined();
    expect(called).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('before-hooks', () => {
  it('an aborted signal asks no hook', async () => {
    const { result, asked } = produce([{ name: 'x', before: () => ({ summary: 'S' }) }], { signal: aborted().signal });
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(asked.hooks).toBe(0);
  });

  it("a hook is given the caller's signal", async () => {
    const ctl = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const { result } = produce([{ name: 'x', before: (ctx) => void seen.push(ctx.signal) }], { signal: ctl.signal });
    expect((await result)!.summary).toBe('EXTRACTIVE');
    expect(seen).toEqual([ctl.signal]);
  });

  it('a hook that throws an AbortError aborts the summary instead of being skipped', async () => {
    const errors: unknown[] = [];
    const { result, asked } = produce(
      [
        {
          name: 'stopper',
          before: () => {
            throw new DOMException('stopped by the extension', 'AbortError');
          },
        },
      ],
      { onHookError: (e) => errors.push(e) },
    );
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(errors).toEqual([]);
    expect(asked.extractive).toBe(0);
  });

  it('a decision "cancel: false" does not cancel', async () => {
    const { result } = produce([{ name: 'x', before: () => ({ cancel: false }) as unknown as BeforeSummaryDecision }]);
    const r = await result;
    expect(r).not.toBeNull();
    expect(r!.summary).toBe('EXTRACTIVE');
  });

  it('the first supplied summary is used; a later one does not replace it', async () => {
    const { result } = produce([
      { name: 'first', before: () => ({ summary: 'FROM FIRST' }) },
      { name: 'second', before: () => ({ summary: 'FROM SECOND' }) },
    ]);
    const r = (await result)!;
    expect(r.summary).toBe('FROM FIRST');
    expect(r.summarizer).toEqual({ kind: 'hook', name: 'first' });
  });

  it('a hook that aborts the signal stops the summary before the extractive summarizer runs', async () => {
    const ctl = new AbortController();
    const { result, asked } = produce([{ name: 'x', before: () => void ctl.abort() }], { signal: ctl.signal });
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(asked.hooks).toBe(1);
    expect(asked.extractive).toBe(0);
  });
});

describe('aborts and the clock', () => {
  it('an abort while the extractive summary is written rejects', async () => {
    const ctl = new AbortController();
    const { result } = produce([], { signal: ctl.signal }, { kind: 'extractive' }, undefined, () => {
      ctl.abort();
      return 'EXTRACTIVE';
    });
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('durationMs is the time between start and finish', async () => {
    const times = [1_000, 1_250];
    const { result } = produce([], { now: () => times.shift()! });
    expect((await result)!.durationMs).toBe(250);
  });

  it('an abort while the summary is counted stops there: no more counting, no second attempt', async () => {
    const ctl = new AbortController();
    const { summarizer, requests } = recorder(() => ({ text: `${BODY}\n${'- detail of the work\n'.repeat(40)}` }));
    let counts = 0;
    const countTokens = (t: string) => {
      counts++;
      ctl.abort();
      return t.length;
    };
    const { result } = produce([], { signal: ctl.signal, countTokens }, { kind: 'model', summarizer, plan: piPlan() }, { tokens: 300, userMessages: '' });
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(1);
    expect(counts).toBe(1);
  });

  it('a fallback from a summarizer that is not a model names "model"', async () => {
    const { summarizer, requests } = recorder(() => ({ text: '' }), { kind: 'extractive' });
    const { result } = produce([], {}, { kind: 'model', summarizer, plan: piPlan() });
    const r = (await result)!;
    expect(requests).toHaveLength(2);
    expect(r.fallback).toEqual({ model: 'model', reason: 'empty', attempts: 2 });
    expect(r.summary).toBe('EXTRACTIVE');
  });
});

describe('the second attempt', () => {
  it('its budget leaves room for exactly what the app adds (the user-messages section), nothing more', async () => {
    const users: string[] = [];
    for (const e of loadSession('piV1').path) {
      if (e.type === 'message' && e.message.role === 'user') users.push(`- ${e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ').slice(0, 120)}`);
      if (users.length === 3) break;
    }
    const section = `## User Messages\n${users.join('\n')}`;
    const span = { tokens: section.length + 800, userMessages: section };
    const long = `${BODY}\n${'- a detail of the finished work\n'.repeat(60)}`.trimEnd();
    const { summarizer, requests } = recorder((req) => ({ text: req.maxOutputTokens < 1200 ? BODY : long }));
    const countTokens = (t: string) => t.length;
    const r = (await produce([], { countTokens }, { kind: 'model', summarizer, plan: piPlan() }, span).result)!;
    expect(requests).toHaveLength(2);
    const expected = retryBudget('larger', 1200, span.tokens, countTokens(section))!;
    expect(requests[1]!.req.maxOutputTokens).toBe(expected.maxOutputTokens);
    expect(requests[1]!.req.prompt.endsWith(expected.note)).toBe(true);
    expect(r.summary).toBe(`${BODY}\n\n${section}`);
  });
});

describe('the self-check patch', () => {
  const CHECK_USAGE: Usage = { input: 900, output: 40 };
  /** A model whose summary is BODY and whose self-check answer is `patch`. */
  const model = (patch: string) =>
    recorder((req) => (req.purpose === 'self-check' ? { text: patch, usage: CHECK_USAGE } : { text: BODY }));
  const patchOf = (chars: number) => {
    const head = `${BODY}\n\n## Critical Context\n`;
    return head + '- Read /src/cli.ts and /src/config.ts\n'.repeat(Math.ceil((chars - head.length) / 38)).slice(0, chars - head.length).trimEnd();
  };

  it("is asked with the caller's signal", async () => {
    const ctl = new AbortController();
    const { summarizer, requests } = model('NO CHANGES');
    const { result } = produce([], { signal: ctl.signal, selfCheck: true }, { kind: 'model', summarizer, plan: piPlan() });
    expect((await result)!.selfCheck).toEqual({ patched: false, usage: CHECK_USAGE });
    expect(requests.map((r) => r.req.purpose)).toEqual(['compaction', 'self-check']);
    expect(requests[1]!.signal).toBe(ctl.signal);
  });

  it('counted at 4 characters a token without a tokenizer: taken while smaller than the span, refused once as large', async () => {
    // A span of 100 tokens: a 300-character patch (75 tokens) is smaller, a 500-character one (125) is not.
    const small = patchOf(300);
    const a = model(small);
    const took = (await produce([], { selfCheck: true }, { kind: 'model', summarizer: a.summarizer, plan: piPlan() }, { tokens: 100, userMessages: '' }).result)!;
    expect(took.summary).toBe(small);
    expect(took.selfCheck).toEqual({ patched: true, usage: CHECK_USAGE });

    const b = model(patchOf(500));
    const refused = (await produce([], { selfCheck: true }, { kind: 'model', summarizer: b.summarizer, plan: piPlan() }, { tokens: 100, userMessages: '' }).result)!;
    expect(refused.summary).toBe(BODY);
    expect(refused.selfCheck).toEqual({ patched: false, usage: CHECK_USAGE });
  });

  it('a span of unknown size (0 tokens) takes any patch', async () => {
    const large = patchOf(4000);
    const { summarizer } = model(large);
    const r = (await produce([], { selfCheck: true }, { kind: 'model', summarizer, plan: piPlan() }, { tokens: 0, userMessages: '' }).result)!;
    expect(r.summary).toBe(large);
    expect(r.selfCheck?.patched).toBe(true);
  });

  it('a patch exactly as large as the span is refused', async () => {
    const patch = patchOf(600);
    const { summarizer } = model(patch);
    // The chat tokenizer of the app, here: the patch counts 500 tokens, the first summary 50.
    const countTokens = (t: string) => (t.includes('## Critical Context') ? 500 : 50);
    const r = (await produce([], { selfCheck: true, countTokens }, { kind: 'model', summarizer, plan: piPlan() }, { tokens: 500, userMessages: '' }).result)!;
    expect(r.summary).toBe(BODY);
    expect(r.selfCheck).toEqual({ patched: false, usage: CHECK_USAGE });
  });
});
