import { summarizeBranch } from '@/lib/branch/summarize';
import { compact } from '@/lib/compaction/compact';
import { regenerationProblem } from '@/lib/compaction/prepare';
import { HISTORY_MISSING } from '@/lib/compaction/reasons';
import { errorMessage } from '@/lib/errors';
import type { SummaryEntry } from '@/lib/session/revisions';
import type { EntryId, NewEntry, SummaryDetails, SummaryRevisionEntry } from '@/lib/session/types';
import { prepareAbandonedBranch } from './branch';
import type { SessionHandle } from './session';
import { runSummaryJob, summaryEngine, summaryPlanOptions, syncTokens, summaryChecks } from './summaryPipeline';

/**
 * Later decisions about a summary are appended as summary_revision entries at
 * the leaf; the original entry is never touched. The context builder applies
 * the revisions found on the path (lib/session/revisions.ts).
 */
async function appendRevision(s: SessionHandle, revision: Omit<SummaryRevisionEntry, 'id' | 'parentId' | 'timestamp'>): Promise<EntryId> {
  const [created] = await s.ports.store.appendEntries(s.sessionId, s.live.getSnapshot().leafId, [revision as NewEntry]);
  s.live.applyLocal([created!], created!.id);
  return created!.id;
}

const what = (target: SummaryEntry) => (target.type === 'compaction' ? 'Compaction' : 'Branch summary');

export async function setUndone(s: SessionHandle, target: SummaryEntry, undone: boolean): Promise<void> {
  try {
    await appendRevision(s, { type: 'summary_revision', targetId: target.id, action: undone ? 'undo' : 'redo' });
    s.ports.notify.success(undone ? `${what(target)} undone: the full history is back in context. Nothing was deleted.` : `${what(target)} restored.`);
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
  }
}

/** The summary's tokens in context, counted as the path counts its entry: the card's "after" follows it. */
async function countSummary(s: SessionHandle, target: SummaryEntry, summary: string): Promise<number> {
  await syncTokens(s);
  return s.ports.tokens.summaryTokens(s.sessionId, summary, target.type);
}

export async function saveEdit(s: SessionHandle, target: SummaryEntry, summary: string): Promise<void> {
  try {
    const summaryTokens = await countSummary(s, target, summary);
    await appendRevision(s, { type: 'summary_revision', targetId: target.id, action: 'edit', summary, details: { summaryTokens } });
    s.ports.notify.success('Summary edited; the earlier version stays in its history.');
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
  }
}

/**
 * Writes a new version of a summary from the same material: a compaction
 * re-summarises exactly what it covered (its own cut, the summary it updated);
 * a branch summary re-reads the branch it came from. The new text becomes
 * current; the old one stays in the card's history.
 */
export async function regenerateSummary(s: SessionHandle, target: SummaryEntry, instructions?: string): Promise<boolean> {
  const { ports } = s;
  const done = await runSummaryJob(s, {
    kind: target.type === 'compaction' ? 'compaction' : 'branch-summary',
    status: 'Regenerating the summary…',
    what: 'Regeneration',
    parentId: s.live.getSnapshot().leafId,
    async execute({ signal, onDelta }) {
      let summary: string;
      let details: SummaryDetails;
      const env = s.env();
      if (target.type === 'compaction') {
        // Said plainly before anything runs: a summary whose history is not here has nothing to be made from.
        if (regenerationProblem(s.live.getSnapshot().tree.pathTo(target.parentId), target) === 'history-missing') throw new Error(HISTORY_MISSING);
        await syncTokens(s);
        const prepared = await ports.tokens.prepareRegeneration(s.sessionId, target.id, env.settings, summaryPlanOptions(env, instructions));
        if (!prepared) throw new Error('This compaction is not on the current path any more.');
        const result = await compact(prepared.prep, summaryEngine(s, prepared.plan), { signal, onDelta, ...summaryChecks(s) });
        if (!result) return null;
        ({ summary, details } = result);
      } else {
        const prepared = await prepareAbandonedBranch(s, target.fromId, target.parentId, instructions);
        if (!prepared) throw new Error('The branch this summary came from has nothing left to summarise.');
        const result = await summarizeBranch(prepared.prep, summaryEngine(s, prepared.plan), { signal, onDelta, ...summaryChecks(s) });
        if (!result) return null;
        summary = result.summary;
        details = { ...result.details, tokensSummarized: prepared.prep.tokens };
      }
      if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
      details = { ...details, summaryTokens: await countSummary(s, target, summary) };
      await appendRevision(s, { type: 'summary_revision', targetId: target.id, action: 'regenerate', summary, details });
      ports.notify.success('Summary regenerated; the earlier version stays in its history.');
      return true;
    },
  });
  return done === true;
}
