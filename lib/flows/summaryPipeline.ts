import { summaryOutputBudget } from '@/lib/compaction/prepare';
import type { SummaryEngine } from '@/lib/compaction/produce';
import { isAbortError } from '@/lib/compaction/summarizer';
import type { SummaryPlan } from '@/lib/compaction/types';
import { errorMessage } from '@/lib/errors';
import type { SummaryPlanOptions } from '@/lib/sessionTokens/service';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import type { TokenSyncOptions } from './tokenSync';
import type { Run, RunKind } from './runs';
import type { SessionEnv, SessionHandle } from './session';

/**
 * The one way the app writes a summary, for compactions, branch summaries and
 * regenerations alike: a run on screen that can be cancelled, the summary
 * streamed into it, a result kept only when it completed, one sentence for
 * the user when it was cancelled or failed ("nothing changed"), and the run
 * ended whatever happened.
 */
export interface SummaryJob<T> {
  kind: Exclude<RunKind, 'reply'>;
  /** Status line shown while it runs. */
  status: string;
  /** Named in the cancel and failure messages: "Compaction", "Branch summary", "Regeneration". */
  what: string;
  /** Where the run's pending bubble hangs. */
  parentId: EntryId | null;
  /** A run already on screen (overflow recovery inside a reply) to report progress on instead of starting one. */
  run?: Run;
  /** Does the work. Resolves with null when there was nothing to do (it says why itself). */
  execute(ctx: { signal: AbortSignal; onDelta: (delta: string) => void }): Promise<T | null>;
}

export async function runSummaryJob<T>(s: SessionHandle, job: SummaryJob<T>): Promise<T | null> {
  const { runs, ports } = s;
  const run = job.run ?? runs.start({ sessionId: s.sessionId, kind: job.kind, parentId: job.parentId, abort: new AbortController(), status: job.status });
  if (job.run) runs.patch(run, { status: job.status });
  const signal = run.abort.signal;
  try {
    const out = await job.execute({ signal, onDelta: runs.streamInto(run) });
    // An abort that came after the model finished still means "do not keep it".
    if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
    return out;
  } catch (err) {
    if (isAbortError(err) || signal.aborted) ports.notify.info(`${job.what} cancelled — nothing changed.`);
    else ports.notify.error(`${job.what} failed: ${errorMessage(err)} Nothing changed.`);
    return null;
  } finally {
    if (!job.run) runs.end(run);
  }
}

/** Planning options for the worker, or undefined when no model is connected (extractive summary). */
export function summaryPlanOptions(env: SessionEnv, instructions?: string): SummaryPlanOptions | undefined {
  const { summarizer, settings } = env;
  if (!summarizer) return undefined;
  return {
    model: summarizer.id,
    window: summarizer.contextWindow,
    maxOutputTokens: Math.min(summaryOutputBudget(settings), summarizer.maxOutputTokens ?? Infinity),
    ...(instructions ? { customInstructions: instructions } : {}),
  };
}

/**
 * What every summary run takes from the session: the token worker's count of
 * a summary (a model summary larger than what it replaces is rejected; any
 * session's tokenizer will do for that comparison, so the worker need not
 * hold this one), and the self-check setting.
 */
export function summaryChecks(s: SessionHandle): { countTokens: (text: string) => Promise<number>; selfCheck?: boolean } {
  return { countTokens: async (text) => (await s.ports.tokens.countTexts([text]))[0] ?? 0, ...(s.env().settings.selfCheck ? { selfCheck: true } : {}) };
}

/** The model through the transport when a plan exists, else the built-in extractive summarizer. */
export function summaryEngine(s: SessionHandle, plan: SummaryPlan | null): SummaryEngine {
  const env = s.env();
  return plan && env.summarizer ? { kind: 'model', summarizer: s.ports.transport.summarizer(env.summarizer.id, env.chatModel?.id), plan } : { kind: 'extractive' };
}

/** The path ending at `leafId` (default: the tab's leaf now) and the options the worker counts it with. */
export function syncTarget(s: SessionHandle, leafId?: EntryId | null): { path: SessionEntry[]; opts: TokenSyncOptions } {
  const snap = s.live.getSnapshot();
  const env = s.env();
  const path = snap.tree.pathTo(leafId === undefined ? snap.leafId : leafId);
  return { path, opts: { model: countingModel(env), contextWindow: env.chatModel?.contextWindow, systemPrompt: env.systemPrompt } };
}

/** Brings the token worker up to date with the tab's current path, so decisions use fresh figures. */
export async function syncTokens(s: SessionHandle): Promise<void> {
  const { path, opts } = syncTarget(s);
  await s.sync.sync(path, opts);
}

/**
 * The model whose tokenizer counts this session: the chat model, else the
 * summarizer, else o200k (GPT-4o's encoding), which is as good a guess as any
 * when nothing is connected (extractive compaction, the timeline).
 */
export const FALLBACK_COUNTING_MODEL = 'openai:gpt-4o';

export function countingModel(env: Pick<SessionEnv, 'chatModel' | 'summarizer'>): string {
  return env.chatModel?.id ?? env.summarizer?.id ?? FALLBACK_COUNTING_MODEL;
}
