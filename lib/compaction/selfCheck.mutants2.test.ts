import { describe, expect, it } from 'vitest';
import { loadSession } from '@/lib/testing/compactionData';
import { selfCheckSummary } from './selfCheck';
import type { SummaryRequest, SummaryResponse, TextSummarizer } from './summarizer';
import type { PlanStep, SummaryPlan } from './types';

/** The self-check request: what it asks, when it is not sent, and when its answer counts as a patch. */

/** A one-step plan over the first user requests of the pi session. */
function piPlan(): SummaryPlan {
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

const BODY = '## Goal\nWork on the pi issue.\n\n## Next Steps\n1. Continue.';

function recorder(reply: (req: SummaryRequest, signal: AbortSignal | undefined) => SummaryResponse) {
  const requests: { req: SummaryRequest; signal: AbortSignal | undefined }[] = [];
  const summarizer: TextSummarizer = {
    info: { kind: 'model', model: 'test:recorder' },
    complete: async (req, opts) => {
      requests.push({ req, signal: opts.signal });
      return reply(req, opts.signal);
    },
  };
  return { summarizer, requests };
}

describe('selfCheckSummary', () => {
  it("is sent as a 'self-check' request, with the caller's signal", async () => {
    const { summarizer, requests } = recorder(() => ({ text: 'NO CHANGES' }));
    const ctl = new AbortController();
    const r = await selfCheckSummary(piPlan(), summarizer, BODY, { signal: ctl.signal });
    expect(r).toEqual({ body: BODY, patched: false });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.req.purpose).toBe('self-check');
    expect(requests[0]!.signal).toBe(ctl.signal);
  });

  it('an already aborted signal sends nothing', async () => {
    const { summarizer, requests } = recorder(() => ({ text: 'NO CHANGES' }));
    const ctl = new AbortController();
    ctl.abort();
    await expect(selfCheckSummary(piPlan(), summarizer, BODY, { signal: ctl.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(0);
  });

  it('an abort while the model answers rejects, even though an answer came back', async () => {
    const ctl = new AbortController();
    const { summarizer } = recorder(() => {
      ctl.abort();
      return { text: `${BODY}\n- Read /src/cli.ts` };
    });
    await expect(selfCheckSummary(piPlan(), summarizer, BODY, { signal: ctl.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a patch is used trimmed', async () => {
    const patch = `${BODY}\n\n## Critical Context\n- Read /src/cli.ts`;
    const { summarizer } = recorder(() => ({ text: `\n\n${patch}\n\n` }));
    const r = await selfCheckSummary(piPlan(), summarizer, BODY);
    expect(r).toEqual({ body: patch, patched: true });
  });

  it('"no changes" with any trailing dots and spaces, in any case, keeps the summary', async () => {
    for (const reply of ['No changes..', 'NO CHANGES. .', 'no changes ...']) {
      const { summarizer } = recorder(() => ({ text: reply }));
      expect(await selfCheckSummary(piPlan(), summarizer, BODY), reply).toEqual({ body: BODY, patched: false });
    }
  });

  it('the summary given back unchanged (up to surrounding blank lines) is not a patch', async () => {
    const { summarizer } = recorder(() => ({ text: BODY }));
    const r = await selfCheckSummary(piPlan(), summarizer, `${BODY}\n\n`);
    expect(r.patched).toBe(false);
    expect(r.body).toBe(BODY);
    const same = await selfCheckSummary(piPlan(), summarizer, BODY);
    expect(same.patched).toBe(false);
  });
});
