'use client';

import './chat.css';
import { useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { autoCompactLimit } from '@/lib/flows/compaction';
import { chooseSummarizer, resolveModel } from '@/lib/flows/models';
import type { SessionEnv } from '@/lib/flows/session';
import { countingModel } from '@/lib/flows/summaryPipeline';
import { effectiveCompactionSettings } from '@/lib/settings/appSettings';
import { effectiveChatSettings } from '@/lib/settings/chatSettings';
import type { EntryId } from '@/lib/session/types';
import { useFlows } from '@/components/state/FlowsProvider';
import { useAppSettings, useRun } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { ModelPicker } from '@/components/models/ModelPicker';
import { useModels } from '@/components/models/useModels';
import { ExportButton } from '@/components/importexport/ExportDialog';
import { CompactDialog } from '@/components/compaction/CompactDialog';
import { ContextMeter } from '@/components/compaction/ContextMeter';
import { useLiveSession } from '@/components/session/useLiveSession';
import { useContextFigure } from '@/components/session/useContextFigure';
import { ContinueDialog } from '@/components/continue/ContinueDialog';
import { ContinuedFrom } from '@/components/continue/ContinuedFrom';
import { useJump } from '@/components/continue/jumpStore';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { PANELS } from './panels';
import { RunStatus } from './RunStatus';
import { SessionSettings } from './SessionSettings';
import { useSessionKeyboard } from '@/components/keyboard/useSessionKeyboard';

export function SessionView({ sessionId }: { sessionId: string }) {
  const isDraft = useUi((s) => s.draft && s.sessionId === sessionId);
  const session = useFlows().session(sessionId, { draft: isDraft });
  const { state, context, labels } = useLiveSession(session);
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
  const [continueAt, setContinueAt] = useState<EntryId | null>(null);
  // Opened from a continued session's link: bring the entry it continues from into view once.
  const jumpTarget = useJump((s) => s.target);
  const clearJump = useJump((s) => s.clear);
  const pendingJump = jumpTarget?.sessionId === sessionId ? { id: jumpTarget.entryId, nonce: jumpTarget.nonce } : null;

  const chatModel = resolveModel(models, context.model ?? state.row?.model);
  const summarizer = useMemo(() => chooseSummarizer(models, appSettings.summarizerModel, chatModel), [models, appSettings.summarizerModel, chatModel]);
  const chat = effectiveChatSettings(appSettings.chat, state.row);
  const env: SessionEnv = {
    chatModel,
    summarizer,
    settings: effectiveCompactionSettings(appSettings.compaction, state.row),
    ...chat,
    title: state.row?.title,
  };
  // The flows read the environment when they run, so it is handed over on every render.
  useLayoutEffect(() => session.setEnv(env));

  const figure = useContextFigure(
    session,
    context.path,
    state.status !== 'ready' ? null : { model: countingModel(env), contextWindow: chatModel?.contextWindow, systemPrompt: env.systemPrompt },
  );

  // A reply left "streaming" by a closed tab is marked interrupted once no tab holds its lock.
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => void session.repairInterrupted({ cancelled: () => cancelled }), 500);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [session, state.version]);

  const messageActions = useMemo(
    () => ({
      onEdit: session.editAndResend,
      onRegenerate: session.regenerateReply,
      onSwitchSibling: session.switchSibling,
      onJumpTo: (id: EntryId) => setScrollTo({ id, nonce: Date.now() }),
      onContinue: (entry: { id: EntryId }) => setContinueAt(entry.id),
    }),
    [session],
  );

  const busy = run !== undefined;
  const panel = PANELS.find((p) => p.id === sidePanel);
  useSessionKeyboard({
    session,
    state,
    panelOpen: panel !== undefined,
    canCompact: !busy && context.path.length > 0,
    openCompact: () => setCompactOpen(true),
    scrollTo: messageActions.onJumpTo,
  });
  // The message list (a child) has acted on the jump by the time this effect runs.
  const ready = state.status === 'ready';
  useEffect(() => {
    if (ready && jumpTarget?.sessionId === sessionId) clearJump();
  }, [ready, jumpTarget, sessionId, clearJump]);

  if (state.status === 'loading') return <div className="fullpage-message muted">Loading session…</div>;
  if (state.status === 'missing') return <div className="fullpage-message">This session does not exist any more (deleted in another tab?).</div>;
  if (state.status === 'error')
    return (
      <div className="fullpage-message" role="alert">
        Could not load this session: {state.error}
      </div>
    );

  const panelProps = { session, state, context, labels, busy, onJumpTo: messageActions.onJumpTo, onContinue: setContinueAt };
  return (
    <div className="session-layout">
      <div className="chat-column">
        <header className="topbar">
          <h1 title={state.row?.title}>{state.row?.title}</h1>
          <ModelPicker data={models} value={chatModel?.id} onChange={session.changeModel} />
          <SessionSettings session={session} own={state.row ?? {}} effective={chat} defaults={appSettings.chat} model={chatModel} />
          <ContextMeter figure={figure} window={chatModel?.contextWindow} limit={autoCompactLimit(env)} />
          <button type="button" className="btn" disabled={busy || context.path.length === 0} onClick={() => setCompactOpen(true)}>
            Compact
          </button>
          <span className="grow" />
          {PANELS.map((p) => (
            <button key={p.id} type="button" className="btn" aria-pressed={sidePanel === p.id} onClick={() => setSidePanel(sidePanel === p.id ? null : p.id)}>
              {p.label}
            </button>
          ))}
          {!state.draft && <ExportButton sessionId={sessionId} title={state.row?.title ?? 'session'} />}
        </header>
        {state.row?.continuedFrom && <ContinuedFrom link={state.row.continuedFrom} />}
        <MessageList tree={state.tree} context={context} labels={labels} run={run} actions={messageActions} scrollToId={pendingJump ?? scrollTo} />
        {run && run.kind !== 'reply' && !compactOpen && continueAt === null && <RunStatus run={run} />}
        <Composer
          draft={draft}
          onDraft={(t) => setDraft(sessionId, t)}
          busy={busy}
          onStop={session.stop}
          onSend={async (text, attachments) => {
            const stored = await session.send(text, attachments);
            // Cleared only once the message is stored (a failed save keeps it), and not if the user typed on meanwhile.
            if (stored && useUi.getState().drafts[sessionId] === text) setDraft(sessionId, '');
            return stored;
          }}
        />
      </div>
      {panel && (
        <aside className="side-panel" data-side-panel aria-label={`${panel.label} panel`}>
          <header>
            <h2>{panel.title}</h2>
            <button type="button" className="icon-btn" aria-label="Close panel" onClick={() => setSidePanel(null)}>
              ×
            </button>
          </header>
          <div className={`side-body${panel.bodyClass ? ` ${panel.bodyClass}` : ''}`}>{panel.render(panelProps)}</div>
        </aside>
      )}
      {compactOpen && <CompactDialog session={session} onClose={() => setCompactOpen(false)} />}
      {continueAt !== null && <ContinueDialog session={session} entryId={continueAt} onClose={() => setContinueAt(null)} />}
    </div>
  );
}
