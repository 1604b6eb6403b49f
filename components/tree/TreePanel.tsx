'use client';

import { useMemo, useState } from 'react';
import { toast } from 'sonner';
import { appendEntries, exportSnapshot, importSnapshots } from '@/lib/db';
import { forkSession } from '@/lib/session/fork';
import { messageText } from '@/lib/session/messages';
import type { EntryId } from '@/lib/session/types';
import type { SessionContext } from '@/lib/session/context';
import { useUi } from '@/components/app/uiStore';
import { LeaveBranchDialog, type LeaveChoice } from '@/components/branch/LeaveBranchDialog';
import { leavesBranch, moveLeaf, summarizeAndMove } from '@/components/branch/leaveBranch';
import type { CompactionEnv } from '@/components/compaction/compactSession';
import { saveAppSettings, useAppSettings } from '@/components/settings/useSettings';
import { SessionTreeView } from './SessionTreeView';

/**
 * The tree panel: the whole session tree, navigation with the leave-branch
 * question, labels and fork. Selecting a user message moves to its parent and
 * puts its text in the composer to edit and resend (as pi does); any other
 * entry becomes the new position.
 */
export function TreePanel({ env, context, labels, busy }: { env: CompactionEnv; context: SessionContext; labels: Map<EntryId, string>; busy: boolean }) {
  const snap = env.live.getSnapshot();
  const { tree, leafId, version } = snap;
  const settings = useAppSettings();
  const setDraft = useUi((s) => s.setDraft);
  const selectSession = useUi((s) => s.selectSession);
  const [pending, setPending] = useState<{ target: EntryId | null; draft: string | null } | null>(null);
  const activePathIds = useMemo(() => new Set(context.path.map((e) => e.id)), [context.path]);
  const branchPoints = useMemo(() => tree.branchPoints().length, [tree, version]); // eslint-disable-line react-hooks/exhaustive-deps

  async function arrive(target: EntryId | null, draft: string | null, choice: LeaveChoice) {
    const from = env.live.getSnapshot().leafId;
    if (choice.kind === 'summarize' && from) {
      const created = await summarizeAndMove(env, from, target, choice.instructions);
      if (created === null) return; // cancelled or failed: stay where we were
    } else {
      await moveLeaf(env, target);
    }
    if (draft !== null) {
      setDraft(env.sessionId, draft);
      document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
    }
  }

  function onSelect(id: EntryId) {
    if (busy) {
      toast.info('Wait for the current reply or summary to finish (or stop it) before moving in the tree.');
      return;
    }
    const entry = tree.get(id);
    if (!entry) return;
    const isPrompt = entry.type === 'message' && entry.message.role === 'user';
    const target = isPrompt ? entry.parentId : id;
    const draft = isPrompt && entry.type === 'message' ? messageText(entry.message) : null;
    if (!leavesBranch(env, leafId, target)) {
      void arrive(target, draft, { kind: 'switch' });
      return;
    }
    if (settings.branchLeaveDefault === 'ask') setPending({ target, draft });
    else void arrive(target, draft, settings.branchLeaveDefault === 'summarize' ? { kind: 'summarize' } : { kind: 'switch' });
  }

  async function onSetLabel(id: EntryId, label: string | null) {
    try {
      // Labels are entries too (appended at the leaf, as pi does), so they travel with exports and forks.
      const created = await appendEntries(env.sessionId, env.live.getSnapshot().leafId, [{ type: 'label', targetId: id, label }]);
      env.live.applyLocal(created, created[0]!.id);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    }
  }

  async function onFork() {
    const at = env.live.getSnapshot().leafId;
    if (!at) return;
    try {
      const snapshot = await exportSnapshot(env.sessionId);
      if (!snapshot) throw new Error('The session no longer exists.');
      const fork = forkSession(snapshot.meta, snapshot.entries, at);
      const { imported } = await importSnapshots([fork], { allowDuplicates: true });
      toast.success(`Forked into “${fork.meta.title}”`);
      selectSession(imported[0]!.id);
    } catch (err) {
      toast.error(`Fork failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  return (
    <div className="tree-panel">
      <div className="row tree-actions">
        <button type="button" className="btn" onClick={onFork} disabled={!leafId || busy} title="A new session with the path from the root to the current position">
          Fork from here
        </button>
        <span className="muted small">{tree.size} entries · {branchPoints} branch points</span>
      </div>
      <SessionTreeView tree={tree} version={version} leafId={leafId} activePathIds={activePathIds} labels={labels} onSelect={onSelect} onSetLabel={onSetLabel} />
      {pending && (
        <LeaveBranchDialog
          onCancel={() => setPending(null)}
          onChoose={(choice, dontAskAgain) => {
            const p = pending;
            setPending(null);
            if (dontAskAgain) void saveAppSettings({ branchLeaveDefault: choice.kind === 'summarize' ? 'summarize' : 'switch' });
            void arrive(p.target, p.draft, choice);
          }}
        />
      )}
    </div>
  );
}
