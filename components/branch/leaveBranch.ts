'use client';

import { toast } from 'sonner';
import { appendEntries, setLeaf } from '@/lib/db';
import { collectBranchEntries } from '@/lib/branch/collect';
import { branchSummaryEntryFrom, summarizeBranch, type BranchSummaryEngine, type BranchSummaryHooks } from '@/lib/branch/summarize';
import { summaryOutputBudget } from '@/lib/compaction/prepare';
import { isAbortError } from '@/lib/compaction/summarizer';
import type { EntryId } from '@/lib/session/types';
import { routeSummarizer } from '@/components/client/routeSummarizer';
import { throttledPatch, useRuns } from '@/components/chat/runStore';
import type { CompactionEnv } from '@/components/compaction/compactSession';
import { getTokensClient } from '@/workers/tokensClient';

/** Extension point for branch summaries, like registerCompactionHooks. */
const registeredHooks: BranchSummaryHooks[] = [];
export function registerBranchSummaryHooks(h: BranchSummaryHooks): () => void {
  registeredHooks.push(h);
  return () => registeredHooks.splice(registeredHooks.indexOf(h), 1);
}

/** Whether moving from `oldLeaf` to `target` abandons entries (the old leaf is not on the new path). */
export function leavesBranch(env: CompactionEnv, oldLeaf: EntryId | null, target: EntryId | null): boolean {
  if (!oldLeaf || oldLeaf === target) return false;
  const tree = env.live.getSnapshot().tree;
  return target === null || !tree.isAncestor(oldLeaf, target);
}

export async function moveLeaf(env: CompactionEnv, target: EntryId | null) {
  env.live.setLeaf(target);
  try {
    await setLeaf(env.sessionId, target);
  } catch (err) {
    toast.error(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Summarises the branch being left (old leaf back to the common ancestor
 * with the target), streams the summary, then appends a branch_summary entry
 * at the target and moves there. Abort or failure changes nothing: the leaf
 * stays where it was and no entry is written.
 */
export async function summarizeAndMove(env: CompactionEnv, oldLeaf: EntryId, target: EntryId | null, instructions?: string): Promise<EntryId | null> {
  const abort = new AbortController();
  const run = useRuns.getState().start({ sessionId: env.sessionId, kind: 'branch-summary', parentId: target, abort, status: 'Summarising the branch you are leaving…' });
  try {
    const tree = env.live.getSnapshot().tree;
    // Moving before the first message (a root prompt being edited) leaves the whole path behind.
    const entries = target === null ? tree.pathTo(oldLeaf) : collectBranchEntries(tree, oldLeaf, target).entries;
    const { summarizer, settings } = env;
    const budget = summarizer ? summarizer.contextWindow - settings.reserveTokens : 0;
    const prepared = await getTokensClient().prepareBranchSummary([...entries], {
      budget,
      ...(summarizer
        ? {
            plan: {
              model: summarizer.id,
              window: summarizer.contextWindow,
              maxOutputTokens: Math.min(summaryOutputBudget(settings), summarizer.maxOutputTokens ?? Infinity),
              ...(instructions ? { customInstructions: instructions } : {}),
            },
          }
        : {}),
    });
    if (!prepared) {
      toast.info('The branch you left has nothing to summarise; moved without a summary.');
      await moveLeaf(env, target);
      return target;
    }
    const engine: BranchSummaryEngine =
      prepared.plan && summarizer ? { kind: 'model', summarizer: routeSummarizer(summarizer.id, env.chatModel?.id), plan: prepared.plan } : { kind: 'extractive' };
    let text = '';
    const patchText = throttledPatch(run);
    const result = await summarizeBranch(prepared.prep, engine, {
      signal: abort.signal,
      onDelta: (d) => {
        text += d;
        patchText({ text });
      },
      hooks: registeredHooks,
      onHookError: (e) => console.warn('afterBranchSummary hook failed', e),
    });
    if (!result) {
      toast.info('A branch-summary hook cancelled the summary; nothing changed.');
      return null;
    }
    if (abort.signal.aborted) throw new DOMException('Aborted', 'AbortError');
    const summaryTokens = await getTokensClient().summaryTokens(env.sessionId, result.summary, 'branch_summary');
    const entry = branchSummaryEntryFrom({ ...result, details: { ...result.details, tokensSummarized: prepared.prep.tokens, summaryTokens } });
    const [created] = await appendEntries(env.sessionId, target, [entry]);
    env.live.applyLocal([created!], created!.id);
    toast.success('Branch summarised into the new position.');
    return created!.id;
  } catch (err) {
    if (isAbortError(err) || abort.signal.aborted) toast.info('Branch summary cancelled — nothing changed.');
    else toast.error(`Branch summary failed: ${err instanceof Error ? err.message : String(err)} Nothing changed.`);
    return null;
  } finally {
    useRuns.getState().end(env.sessionId, run);
  }
}
