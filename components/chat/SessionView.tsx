'use client';

import { useCallback, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { appendEntries, updateSession } from '@/lib/db';
import { useUi } from '@/components/app/uiStore';
import { ModelPicker } from '@/components/models/ModelPicker';
import { ExportButton } from '@/components/importexport/ExportDialog';
import { resolveModel, useModels } from '@/components/models/useModels';
import { useLiveSession } from '@/components/session/useLiveSession';
import type { EntryId } from '@/lib/session/types';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { useRun } from './runStore';
import { useChatActions } from './useChatActions';
import { useInterruptedRepair } from './useInterruptedRepair';

export function SessionView({ sessionId }: { sessionId: string }) {
  const { store, state, context, labels } = useLiveSession(sessionId);
  const { data: models } = useModels();
  const run = useRun(sessionId);
  const draft = useUi((s) => s.drafts[sessionId] ?? '');
  const setDraft = useUi((s) => s.setDraft);
  const [scrollTo, setScrollTo] = useState<{ id: EntryId; nonce: number } | null>(null);
  useInterruptedRepair(sessionId, state.tree, state.version);

  const modelInfo = resolveModel(models, context.model ?? state.row?.model);
  const actions = useChatActions({ sessionId, live: store, row: state.row, model: modelInfo?.id });

  const onModelChange = useCallback(
    async (id: string) => {
      try {
        // A model change is part of the history: it is recorded on the path, and the session remembers it.
        const leaf = store.getSnapshot().leafId;
        const created = await appendEntries(sessionId, leaf, [{ type: 'model_change', model: id }]);
        store.applyLocal(created, created[0]!.id);
        await updateSession(sessionId, { model: id });
      } catch (err) {
        toast.error(err instanceof Error ? err.message : String(err));
      }
    },
    [sessionId, store],
  );

  const messageActions = useMemo(
    () => ({
      onEdit: actions.editAndResend,
      onRegenerate: actions.regenerate,
      onSwitchSibling: actions.switchSibling,
      onJumpTo: (id: EntryId) => setScrollTo({ id, nonce: Date.now() }),
    }),
    [actions.editAndResend, actions.regenerate, actions.switchSibling],
  );

  if (state.status === 'loading') return <div className="fullpage-message muted">Loading session…</div>;
  if (state.status === 'missing') return <div className="fullpage-message">This session does not exist any more (deleted in another tab?).</div>;
  if (state.status === 'error')
    return (
      <div className="fullpage-message" role="alert">
        Could not load this session: {state.error}
      </div>
    );

  const busy = run !== undefined;
  return (
    <>
      <header className="topbar">
        <h1 title={state.row?.title}>{state.row?.title}</h1>
        <ModelPicker data={models} value={modelInfo?.id} onChange={onModelChange} />
        <span className="grow" />
        <ExportButton sessionId={sessionId} title={state.row?.title ?? 'session'} />
      </header>
      <MessageList tree={state.tree} context={context} labels={labels} run={run} actions={messageActions} scrollToId={scrollTo} />
      <Composer
        draft={draft}
        onDraft={(t) => setDraft(sessionId, t)}
        busy={busy}
        onStop={actions.stop}
        onSend={(text, attachments) => {
          setDraft(sessionId, '');
          void actions.send(text, attachments);
        }}
      />
    </>
  );
}
