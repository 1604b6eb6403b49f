'use client';

import { useCallback, useEffect, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { appendEntries, updateSession } from '@/lib/db';
import { useUi } from '@/components/app/uiStore';
import { ModelPicker } from '@/components/models/ModelPicker';
import { resolveModel, useModels } from '@/components/models/useModels';
import { ExportButton } from '@/components/importexport/ExportDialog';
import { CompactDialog } from '@/components/compaction/CompactDialog';
import { ContextMeter } from '@/components/compaction/ContextMeter';
import { autoCompactIfNeeded, autoCompactLimit, compactBeforeSendIfNeeded, recoverFromOverflow, type CompactionEnv } from '@/components/compaction/compactSession';
import { effectiveCompactionSettings, useAppSettings } from '@/components/settings/useSettings';
import { useLiveSession } from '@/components/session/useLiveSession';
import { useContextFigure } from '@/components/session/useContextFigure';
import { tokenSync } from '@/components/session/tokenSync';
import type { EntryId } from '@/lib/session/types';
import { TreePanel } from '@/components/tree/TreePanel';
import { TimelinePanel } from '@/components/timeline/TimelinePanel';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { RunStatus } from './RunStatus';
import { useRun } from './runStore';
import { useChatActions, useLatest } from './useChatActions';
import { useInterruptedRepair } from './useInterruptedRepair';

export function SessionView({ sessionId }: { sessionId: string }) {
  const { store, state, context, labels } = useLiveSession(sessionId);
  const { data: models } = useModels();
  const appSettings = useAppSettings();
  const run = useRun(sessionId);
  const draft = useUi((s) => s.drafts[sessionId] ?? '');
  const setDraft = useUi((s) => s.setDraft);
  const loadDraft = useUi((s) => s.loadDraft);
  useEffect(() => loadDraft(sessionId), [loadDraft, sessionId]);
  const sidePanel = useUi((s) => s.sidePanel);
  const setSidePanel = useUi((s) => s.setSidePanel);
  const [scrollTo, setScrollTo] = useState<{ id: EntryId; nonce: number } | null>(null);
  const [compactOpen, setCompactOpen] = useState(false);
  useInterruptedRepair(sessionId, state.tree, state.version);

  const chatModel = resolveModel(models, context.model ?? state.row?.model);
  const summarizer = useMemo(() => {
    const wanted = appSettings.summarizerModel || models?.summarizerModel;
    return models?.models.find((m) => m.id === wanted) ?? chatModel;
  }, [appSettings.summarizerModel, models, chatModel]);
  const settings = effectiveCompactionSettings(appSettings.compaction, state.row);
  const systemPrompt = state.row?.systemPrompt;

  const figure = useContextFigure(
    sessionId,
    context.path,
    state.status !== 'ready'
      ? null
      : chatModel
        ? { model: chatModel.id, contextWindow: chatModel.contextWindow, systemPrompt }
        : { model: summarizer?.id ?? 'openai:gpt-4o', systemPrompt },
  );

  // Read by async flows at the moment they need it (useLatest), so it is rebuilt every render.
  const env: CompactionEnv = { sessionId, live: store, sync: tokenSync(sessionId), chatModel, summarizer, settings, systemPrompt };
  const envRef = useLatest(env);

  const hooks = useMemo(
    () => ({
      beforeSend: (content: Parameters<typeof compactBeforeSendIfNeeded>[1], leafId: EntryId | null) => compactBeforeSendIfNeeded(envRef.current, content, leafId),
      afterTurn: () => autoCompactIfNeeded(envRef.current),
      onOverflow: (r: Parameters<typeof recoverFromOverflow>[1]) => recoverFromOverflow(envRef.current, r),
    }),
    [envRef],
  );
  const actions = useChatActions({ sessionId, live: store, row: state.row, model: chatModel?.id, hooks });

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
    [actions],
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
  const toggle = (p: 'tree' | 'timeline') => setSidePanel(sidePanel === p ? null : p);
  return (
    <div className="session-layout">
      <div className="chat-column">
        <header className="topbar">
          <h1 title={state.row?.title}>{state.row?.title}</h1>
          <ModelPicker data={models} value={chatModel?.id} onChange={onModelChange} />
          <ContextMeter figure={figure} window={chatModel?.contextWindow} limit={autoCompactLimit(env)} />
          <button type="button" className="btn" disabled={busy || context.path.length === 0} onClick={() => setCompactOpen(true)}>
            Compact
          </button>
          <span className="grow" />
          <button type="button" className="btn" aria-pressed={sidePanel === 'tree'} onClick={() => toggle('tree')}>
            Tree
          </button>
          <button type="button" className="btn" aria-pressed={sidePanel === 'timeline'} onClick={() => toggle('timeline')}>
            Timeline
          </button>
          <ExportButton sessionId={sessionId} title={state.row?.title ?? 'session'} />
        </header>
        <MessageList tree={state.tree} context={context} labels={labels} run={run} actions={messageActions} scrollToId={scrollTo} />
        {run && run.kind !== 'reply' && !compactOpen && <RunStatus run={run} />}
        <Composer
          draft={draft}
          onDraft={(t) => setDraft(sessionId, t)}
          busy={busy}
          onStop={actions.stop}
          onSend={async (text, attachments) => {
            const stored = await actions.send(text, attachments);
            // Cleared only once the message is stored (a failed save keeps it), and not if the user typed on meanwhile.
            if (stored && useUi.getState().drafts[sessionId] === text) setDraft(sessionId, '');
            return stored;
          }}
        />
      </div>
      {sidePanel === 'tree' && (
        <aside className="side-panel" aria-label="Tree panel">
          <header>
            <h2>Session tree</h2>
            <button type="button" className="icon-btn" aria-label="Close panel" onClick={() => setSidePanel(null)}>
              ×
            </button>
          </header>
          <div className="side-body tree-body">
            <TreePanel env={env} context={context} labels={labels} busy={busy} />
          </div>
        </aside>
      )}
      {sidePanel === 'timeline' && (
        <aside className="side-panel" aria-label="Timeline panel">
          <header>
            <h2>Timeline</h2>
            <button type="button" className="icon-btn" aria-label="Close panel" onClick={() => setSidePanel(null)}>
              ×
            </button>
          </header>
          <div className="side-body">
            <TimelinePanel env={env} tree={state.tree} version={state.version} context={context} busy={busy} onJumpTo={(id) => setScrollTo({ id, nonce: Date.now() })} />
          </div>
        </aside>
      )}
      {compactOpen && <CompactDialog env={env} onClose={() => setCompactOpen(false)} />}
    </div>
  );
}
