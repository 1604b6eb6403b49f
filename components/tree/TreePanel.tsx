'use client';

import './tree.css';
import { GitFork } from 'lucide-react';
import { useMemo, useState } from 'react';
import { plural } from '@/lib/format/plural';
import { toast } from 'sonner';
import type { LeaveChoice } from '@/lib/flows/branch';
import type { SessionFlows } from '@/lib/flows/app';
import { messageText } from '@/lib/session/messages';
import type { EntryId } from '@/lib/session/types';
import type { SessionContext } from '@/lib/session/context';
import { useFlows } from '@/components/state/FlowsProvider';
import { useAppSettings } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { LeaveBranchDialog } from '@/components/branch/LeaveBranchDialog';
import { SessionTreeView } from './SessionTreeView';

/**
 * The tree panel: the whole session tree, navigation with the leave-branch
 * question, labels and fork. Selecting a user message moves to its parent and
 * puts its text in the composer to edit and resend (as pi does); any other
 * entry becomes the new position.
 */
export function TreePanel({
  session,
  context,
  labels,
  busy,
  onContinue,
}: {
  session: SessionFlows;
  context: SessionContext;
  labels: Map<EntryId, string>;
  busy: boolean;
  onContinue?: (id: EntryId) => void;
}) {
  const snap = session.live.getSnapshot();
  const { tree, leafId, version } = snap;
  const flows = useFlows();
  const settings = useAppSettings();
  const setDraft = useUi((s) => s.setDraft);
  const selectSession = useUi((s) => s.selectSession);
  const [pending, setPending] = useState<{ target: EntryId | null; draft: string | null } | null>(null);
  const activePathIds = useMemo(() => new Set(context.path.map((e) => e.id)), [context.path]);
  const branchPoints = useMemo(() => tree.branchPoints().length, [tree, version]); // eslint-disable-line react-hooks/exhaustive-deps

  async function arrive(target: EntryId | null, draft: string | null, choice: LeaveChoice) {
    // Cancelled or failed: stay where we were, and leave the composer alone.
    if (!(await session.arriveAt(target, choice))) return;
    if (draft !== null) {
      setDraft(session.sessionId, draft);
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
    if (!session.leavesBranch(leafId, target)) {
      void arrive(target, draft, { kind: 'switch' });
      return;
    }
    if (settings.branchLeaveDefault === 'ask') setPending({ target, draft });
    else void arrive(target, draft, settings.branchLeaveDefault === 'summarize' ? { kind: 'summarize' } : { kind: 'switch' });
  }

  async function onFork() {
    const id = await session.forkHere();
    if (id) selectSession(id);
  }

  return (
    <div className="tree-panel">
      <div className="tree-actions">
        <span className="tree-counts">
          {plural(tree.size, 'entry', 'entries')} · {plural(branchPoints, 'branch point')}
        </span>
        <button type="button" className="btn" onClick={onFork} disabled={!leafId || busy} title="A new session with the path from the root to the current position">
          <GitFork aria-hidden="true" className="icon" />
          Fork from here
        </button>
      </div>
      <SessionTreeView
        tree={tree}
        version={version}
        leafId={leafId}
        activePathIds={activePathIds}
        labels={labels}
        onSelect={onSelect}
        onSetLabel={session.setLabel}
        {...(onContinue && !busy ? { onContinue } : {})}
      />
      {pending && (
        <LeaveBranchDialog
          onCancel={() => setPending(null)}
          onChoose={(choice, dontAskAgain) => {
            const p = pending;
            setPending(null);
            if (dontAskAgain) void flows.saveAppSettings({ branchLeaveDefault: choice.kind === 'summarize' ? 'summarize' : 'switch' });
            void arrive(p.target, p.draft, choice);
          }}
        />
      )}
    </div>
  );
}
