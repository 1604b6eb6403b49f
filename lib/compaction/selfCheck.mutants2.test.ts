import { describe, expect, it } from 'vitest';
import { piPlan } from '@/lib/testing/summaryPlans';
import { selfCheckSummary } from './selfCheck';
import type { SummaryRequest, SummaryResponse, TextSummarizer } from './summarizer';

/** The self-check request: what it asks, when it is not sent, and when its answer counts as a patch. */

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
