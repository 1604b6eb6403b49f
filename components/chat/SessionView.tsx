'use client';

import './chat.css';
import { FoldVertical, X } from 'lucide-react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { scaledSettingText } from '@/lib/compaction/policy';
import { autoCompactLimit } from '@/lib/flows/compaction';
import { chooseSummarizer, resolveModel } from '@/lib/flows/models';
import { sessionEnv, type SessionEnv } from '@/lib/flows/session';
import { countingModel } from '@/lib/flows/summaryPipeline';
import { effectiveCompactionSettings } from '@/lib/settings/appSettings';
import { effectiveChatSettings } from '@/lib/settings/chatSettings';
import type { EntryId } from '@/lib/session/types';
import { useFlows } from '@/components/state/FlowsProvider';
import { useAppSettings, useRun } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { NARROW_QUERY, useMediaQuery } from '@/components/state/useMediaQuery';
import { IconButton } from '@/components/common/IconButton';
import { DrawerToggle } from '@/components/sessions/DrawerToggle';
import { ModelPicker } from '@/components/models/ModelPicker';
import { useModels } from '@/components/models/useModels';
import { ExportButton } from '@/components/importexport/ExportDialog';
import { CompactDialog } from '@/components/compaction/CompactDialog';
import { ContextMeter } from '@/components/compaction/ContextMeter';
import { useLiveSession } from '@/components/session/useLiveSession';
import { usePendingSummary } from '@/components/session/usePendingSummary';
import { PendingSummaryCard } from '@/components/compaction/PendingSummaryCard';
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
  const pending = usePendingSummary(session);
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
  const narrow = useMediaQuery(NARROW_QUERY);
  const panelRef = useRef<HTMLElement>(null);
  // On a phone a panel is a full-screen sheet: focus moves into it, and back to the button that opened it when it
  // closes. The button is remembered when pressed: once the sheet is open the chat behind is inert and loses focus.
  const panelOpener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!narrow) return;
    if (sidePanel) panelRef.current?.querySelector<HTMLElement>('[data-panel-close]')?.focus();
    else if (panelOpener.current?.isConnected) panelOpener.current.focus();
  }, [sidePanel, narrow]);
  const togglePanel = (id: string, button: HTMLElement) => {
    panelOpener.current = button;
    setSidePanel(sidePanel === id ? null : id);
  };

  const chatModel = resolveModel(models, context.model ?? state.row?.model);
  const summarizer = useMemo(() => chooseSummarizer(models, appSettings.summarizerModel, chatModel), [models, appSettings.summarizerModel, chatModel]);
  const chat = effectiveChatSettings(appSettings.chat, state.row);
  const env: SessionEnv = sessionEnv({
    chatModel,
    summarizer,
    settings: effectiveCompactionSettings(appSettings.compaction, state.row),
    ...chat,
    title: state.row?.title,
  });
  const scaledNotes = (env.scaled ?? []).map(scaledSettingText);
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
      onPin: (entry: { id: EntryId }, pinned: boolean) => void session.setPinned(entry.id, pinned),
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
    <div className="session-layout" data-panel={panel ? panel.id : undefined}>
      <div className="chat-column" inert={narrow && panel !== undefined}>
        <header className="topbar">
          <DrawerToggle />
          <h1 className="session-title-heading" title={state.row?.title}>
            {state.row?.title}
          </h1>
          <div className="topbar-model">
            <ModelPicker data={models} value={chatModel?.id} onChange={session.changeModel} />
            <SessionSettings session={session} own={state.row ?? {}} effective={chat} defaults={appSettings.chat} model={chatModel} />
            <ContextMeter figure={figure} window={chatModel?.contextWindow} limit={autoCompactLimit(env)} notes={scaledNotes} />
          </div>
          <div className="topbar-actions">
            <IconButton icon={FoldVertical} label="Compact" tooltip="Compact context" text="wide" disabled={busy || context.path.length === 0} onClick={() => setCompactOpen(true)} />
            {PANELS.map((p) => (
              <IconButton
                key={p.id}
                icon={p.icon}
                label={p.label}
                tooltip={p.title}
                text="wide"
                aria-pressed={sidePanel === p.id}
                onClick={(e) => togglePanel(p.id, e.currentTarget)}
              />
            ))}
            {!state.draft && <ExportButton sessionId={sessionId} title={state.row?.title ?? 'session'} />}
          </div>
        </header>
        {state.row?.continuedFrom && <ContinuedFrom link={state.row.continuedFrom} />}
        <MessageList tree={state.tree} context={context} labels={labels} run={run} actions={messageActions} scrollToId={pendingJump ?? scrollTo} />
        {run && run.kind !== 'reply' && !compactOpen && continueAt === null && <RunStatus run={run} />}
        {pending && !state.draft && <PendingSummaryCard pending={pending} session={session} context={context} busy={busy} />}
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
        <aside ref={panelRef} className="side-panel" data-side-panel aria-label={`${panel.label} panel`}>
          <header className="side-panel-head">
            <h2>{panel.title}</h2>
            <IconButton icon={X} label="Close panel" onClick={() => setSidePanel(null)} data-panel-close="" />
          </header>
          <div className={`side-body${panel.bodyClass ? ` ${panel.bodyClass}` : ''}`}>{panel.render(panelProps)}</div>
        </aside>
      )}
      {compactOpen && <CompactDialog session={session} onClose={() => setCompactOpen(false)} />}
      {continueAt !== null && <ContinueDialog session={session} entryId={continueAt} onClose={() => setContinueAt(null)} />}
    </div>
  );
}
