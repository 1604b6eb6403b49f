import { collectBranchEntries } from '@/lib/branch/collect';
import { branchSummaryEntryFrom, summarizeBranch } from '@/lib/branch/summarize';
import { errorMessage } from '@/lib/errors';
import type { EntryId } from '@/lib/session/types';
import type { SessionHandle } from './session';
import { runSummaryJob, summaryEngine, summaryPlanOptions, syncTokens, summaryChecks } from './summaryPipeline';

/** Whether moving from `oldLeaf` to `target` abandons entries (the old leaf is not on the new path). */
export function leavesBranch(s: SessionHandle, oldLeaf: EntryId | null, target: EntryId | null): boolean {
  if (!oldLeaf || oldLeaf === target) return false;
  return target === null || !s.live.getSnapshot().tree.isAncestor(oldLeaf, target);
}

/** Moves this tab's position and stores it; a failure is said, the view already moved. */
export async function moveLeaf(s: SessionHandle, target: EntryId | null): Promise<void> {
  s.live.setLeaf(target);
  try {
    await s.ports.store.updateSession(s.sessionId, { leafId: target });
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
  }
}

/**
 * The worker's preparation of the branch between `oldLeaf` and where the user
 * goes (`target`; null for before the first message, which leaves the whole
 * path), fitted to the summarizer's window minus the reserve, newest first.
 */
export async function prepareAbandonedBranch(s: SessionHandle, oldLeaf: EntryId, target: EntryId | null, instructions?: string) {
  const tree = s.live.getSnapshot().tree;
  const env = s.env();
  const entries = target === null ? tree.pathTo(oldLeaf) : collectBranchEntries(tree, oldLeaf, target).entries;
  const budget = env.summarizer ? env.summarizer.contextWindow - env.settings.reserveTokens : 0;
  const plan = summaryPlanOptions(env, instructions);
  return s.ports.tokens.prepareBranchSummary([...entries], { budget, ...(plan ? { plan } : {}) });
}

/**
 * Summarises the branch being left (old leaf back to the common ancestor
 * with the target), streams the summary, then appends a branch_summary entry
 * at the target and moves there. Abort or failure changes nothing: the leaf
 * stays where it was and no entry is written.
 */
export async function summarizeAndMove(s: SessionHandle, oldLeaf: EntryId, target: EntryId | null, instructions?: string): Promise<EntryId | null> {
  const { ports } = s;
  return runSummaryJob(s, {
    kind: 'branch-summary',
    status: 'Summarising the branch you are leaving…',
    what: 'Branch summary',
    parentId: target,
    async execute({ signal, onDelta }) {
      const prepared = await prepareAbandonedBranch(s, oldLeaf, target, instructions);
      if (!prepared) {
        ports.notify.info('The branch you left has nothing to summarise; moved without a summary.');
        await moveLeaf(s, target);
        return target;
      }
      const result = await summarizeBranch(prepared.prep, summaryEngine(s, prepared.plan), { signal, onDelta, ...summaryChecks(s) });
      if (!result) {
        ports.notify.info('A branch-summary hook cancelled the summary; nothing changed.');
        return null;
      }
      if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
      // The worker counts with this session's tokenizer and calibration: it must hold the session (it keeps only a few).
      await syncTokens(s);
      const summaryTokens = await ports.tokens.summaryTokens(s.sessionId, result.summary, 'branch_summary');
      const entry = branchSummaryEntryFrom({ ...result, details: { ...result.details, tokensSummarized: prepared.prep.tokens, summaryTokens } });
      const [created] = await ports.store.appendEntries(s.sessionId, target, [entry]);
      s.live.applyLocal([created!], created!.id);
      ports.notify.success('Branch summarised into the new position.');
      return created!.id;
    },
  });
}

export type LeaveChoice = { kind: 'switch' } | { kind: 'summarize'; instructions?: string };

/**
 * Goes to `target`, summarising the branch left behind when asked. Resolves
 * false when the summary was cancelled or failed: the user stays where they were.
 */
export async function arriveAt(s: SessionHandle, target: EntryId | null, choice: LeaveChoice): Promise<boolean> {
  const from = s.live.getSnapshot().leafId;
  if (choice.kind === 'summarize' && from) return (await summarizeAndMove(s, from, target, choice.instructions)) !== null;
  await moveLeaf(s, target);
  return true;
}
