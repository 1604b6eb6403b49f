'use client';

import { toast } from 'sonner';
import { appendEntries, setLeaf } from '@/lib/db';
import { collectBranchEntries } from '@/lib/branch/collect';
import { branchSummaryEntryFrom, summarizeBranch, type BranchSummaryHooks } from '@/lib/branch/summarize';
import { isAbortError } from '@/lib/compaction/summarizer';
import type { EntryId } from '@/lib/session/types';
import { useRuns } from '@/components/chat/runStore';
import { streamToRun, summaryEngine, summaryPlanOptions } from '@/components/compaction/summaryRun';
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
 * The worker's preparation of the branch between `oldLeaf` and where the user
 * goes (`target`; null for before the first message, which leaves the whole
 * path), fitted to the summarizer's window minus the reserve, newest first.
 */
export async function prepareAbandonedBranch(env: CompactionEnv, oldLeaf: EntryId, target: EntryId | null, instructions?: string) {
  const tree = env.live.getSnapshot().tree;
  const entries = target === null ? tree.pathTo(oldLeaf) : collectBranchEntries(tree, oldLeaf, target).entries;
  const budget = env.summarizer ? env.summarizer.contextWindow - env.settings.reserveTokens : 0;
  const plan = summaryPlanOptions(env, instructions);
  return getTokensClient().prepareBranchSummary([...entries], { budget, ...(plan ? { plan } : {}) });
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
    const prepared = await prepareAbandonedBranch(env, oldLeaf, target, instructions);
    if (!prepared) {
      toast.info('The branch you left has nothing to summarise; moved without a summary.');
      await moveLeaf(env, target);
      return target;
    }
    const result = await summarizeBranch(prepared.prep, summaryEngine(env, prepared.plan), {
      signal: abort.signal,
      onDelta: streamToRun(run),
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
