import { errorMessage } from '@/lib/errors';
import { formatCount } from '@/lib/format/numbers';
import type { MaskPlan } from '@/lib/compaction/mask';
import type { EntryId, ToolMaskEntry } from '@/lib/session/types';
import type { SessionHandle } from './session';
import { syncTarget, syncTokens } from './summaryPipeline';

/**
 * Observation masking as a user action and as the first stage of automatic
 * compaction: the token worker picks the old tool outputs (lib/compaction/
 * mask.ts), a `tool_mask` entry records them at the leaf, and the context
 * builder shows the model their stubs from then on. The outputs themselves
 * are never touched; undo and redo are revisions, as for a summary.
 */

/** What masking would do now at this tab's leaf, for the Compact dialog; null when nothing qualifies. */
export async function previewMasking(s: SessionHandle): Promise<MaskPlan | null> {
  await syncTokens(s);
  const env = s.env();
  return s.ports.tokens.planToolMask(s.sessionId, env.settings, env.chatModel ? { window: env.chatModel.contextWindow } : {});
}

/**
 * Masks old tool output on the path ending at `leafId` (default: this tab's
 * leaf). Resolves with the mask entry, appended under that leaf, or null when
 * there was nothing worth masking or the write failed (the user is told).
 */
export async function maskToolOutput(s: SessionHandle, opts: { leafId?: EntryId | null; quiet?: boolean } = {}): Promise<EntryId | null> {
  const leafId = opts.leafId === undefined ? s.live.getSnapshot().leafId : opts.leafId;
  if (!leafId) return null;
  const env = s.env();
  const target = syncTarget(s, leafId);
  try {
    const plan = await s.sync.pinned(target.path, target.opts, () =>
      s.ports.tokens.planToolMask(s.sessionId, env.settings, env.chatModel ? { window: env.chatModel.contextWindow } : {}),
    );
    if (!plan) {
      if (!opts.quiet) s.ports.notify.info('No old tool output to mask: the outputs outside the protected recent part are already masked, small, or images.');
      return null;
    }
    const entry: Omit<ToolMaskEntry, 'id' | 'parentId' | 'timestamp'> = {
      type: 'tool_mask',
      maskedIds: plan.maskedIds,
      tokensBefore: Math.round(plan.tokensBefore),
      tokensAfter: Math.round(plan.tokensAfter),
      protectTokens: Math.round(plan.protectTokens),
    };
    const [created] = await s.ports.store.appendEntries(s.sessionId, leafId, [entry]);
    s.live.applyLocal([created!], created!.id);
    s.ports.notify.success(
      `Masked ${plan.maskedIds.length} old tool output${plan.maskedIds.length === 1 ? '' : 's'}: ${formatCount(entry.tokensBefore)} → ${formatCount(entry.tokensAfter)} tokens. The originals are kept; undo it in the Timeline.`,
    );
    return created!.id;
  } catch (err) {
    s.ports.notify.error(`Masking failed: ${errorMessage(err)} Nothing changed.`);
    return null;
  }
}

/** Undoes (or redoes) a mask: the full outputs go back into the model's context. */
export async function setMaskUndone(s: SessionHandle, target: Pick<ToolMaskEntry, 'id'>, undone: boolean): Promise<void> {
  try {
    const [created] = await s.ports.store.appendEntries(s.sessionId, s.live.getSnapshot().leafId, [{ type: 'summary_revision', targetId: target.id, action: undone ? 'undo' : 'redo' }]);
    s.live.applyLocal([created!], created!.id);
    s.ports.notify.success(undone ? 'Masking undone: the full tool output is back in context.' : 'Masking restored.');
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
  }
}
