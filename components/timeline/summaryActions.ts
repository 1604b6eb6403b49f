'use client';

import { toast } from 'sonner';
import { appendEntries } from '@/lib/db';
import { summarizeBranch } from '@/lib/branch/summarize';
import { compact } from '@/lib/compaction/compact';
import { isAbortError } from '@/lib/compaction/summarizer';
import type { SummaryEntry } from '@/lib/session/revisions';
import type { EntryId, NewEntry, SummaryDetails, SummaryRevisionEntry } from '@/lib/session/types';
import { useRuns } from '@/components/chat/runStore';
import { streamToRun, summaryEngine, summaryPlanOptions } from '@/components/compaction/summaryRun';
import { syncNow, type CompactionEnv } from '@/components/compaction/compactSession';
import { prepareAbandonedBranch } from '@/components/branch/leaveBranch';
import { getTokensClient } from '@/workers/tokensClient';

/**
 * Later decisions about a summary are appended as summary_revision entries at
 * the leaf; the original entry is never touched. The context builder applies
 * the revisions found on the path (lib/session/revisions.ts).
 */
async function appendRevision(env: CompactionEnv, revision: Omit<SummaryRevisionEntry, 'id' | 'parentId' | 'timestamp'>): Promise<EntryId> {
  const [created] = await appendEntries(env.sessionId, env.live.getSnapshot().leafId, [revision as NewEntry]);
  env.live.applyLocal([created!], created!.id);
  return created!.id;
}

export async function setUndone(env: CompactionEnv, target: SummaryEntry, undone: boolean) {
  try {
    await appendRevision(env, { type: 'summary_revision', targetId: target.id, action: undone ? 'undo' : 'redo' });
    const what = target.type === 'compaction' ? 'Compaction' : 'Branch summary';
    toast.success(undone ? `${what} undone: the full history is back in context. Nothing was deleted.` : `${what} restored.`);
  } catch (err) {
    toast.error(err instanceof Error ? err.message : String(err));
  }
}

export async function saveEdit(env: CompactionEnv, target: SummaryEntry, summary: string) {
  try {
    await appendRevision(env, { type: 'summary_revision', targetId: target.id, action: 'edit', summary });
    toast.success('Summary edited; the earlier version stays in its history.');
  } catch (err) {
    toast.error(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Writes a new version of a summary from the same material: a compaction
 * re-summarises exactly what it covered (its own cut, the summary it updated);
 * a branch summary re-reads the branch it came from. The new text becomes
 * current; the old one stays in the card's history.
 */
export async function regenerate(env: CompactionEnv, target: SummaryEntry, instructions?: string): Promise<boolean> {
  const abort = new AbortController();
  const run = useRuns.getState().start({
    sessionId: env.sessionId,
    kind: target.type === 'compaction' ? 'compaction' : 'branch-summary',
    parentId: env.live.getSnapshot().leafId,
    abort,
    status: 'Regenerating the summary…',
  });
  const onDelta = streamToRun(run);
  try {
    let summary: string;
    let details: SummaryDetails;
    const plan = summaryPlanOptions(env, instructions);
    if (target.type === 'compaction') {
      await syncNow(env);
      const prepared = await getTokensClient().prepareRegeneration(env.sessionId, target.id, env.settings, plan);
      if (!prepared) throw new Error('This compaction is not on the current path any more.');
      const result = await compact(prepared.prep, summaryEngine(env, prepared.plan), { signal: abort.signal, onDelta });
      if (!result) return false;
      ({ summary, details } = result);
    } else {
      const prepared = await prepareAbandonedBranch(env, target.fromId, target.parentId, instructions);
      if (!prepared) throw new Error('The branch this summary came from has nothing left to summarise.');
      const result = await summarizeBranch(prepared.prep, summaryEngine(env, prepared.plan), { signal: abort.signal, onDelta });
      if (!result) return false;
      summary = result.summary;
      details = { ...result.details, tokensSummarized: prepared.prep.tokens };
    }
    if (abort.signal.aborted) throw new DOMException('Aborted', 'AbortError');
    await appendRevision(env, { type: 'summary_revision', targetId: target.id, action: 'regenerate', summary, details });
    toast.success('Summary regenerated; the earlier version stays in its history.');
    return true;
  } catch (err) {
    if (isAbortError(err) || abort.signal.aborted) toast.info('Regeneration cancelled — nothing changed.');
    else toast.error(`Regeneration failed: ${err instanceof Error ? err.message : String(err)} Nothing changed.`);
    return false;
  } finally {
    useRuns.getState().end(env.sessionId, run);
  }
}
