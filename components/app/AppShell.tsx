'use client';

import '@/components/common/common.css';
import { useEffect, useState } from 'react';
import { openDatabase, watchSessionRow, type SessionRow } from '@/lib/db';
import { errorMessage } from '@/lib/errors';
import { ProvidersDialog } from '@/components/settings/ProvidersSettings';
import { SettingsDialog } from '@/components/settings/SettingsDialog';
import { SessionSidebar } from '@/components/sessions/SessionSidebar';
import { ImportControls } from '@/components/importexport/ImportControls';
import { SessionView } from '@/components/chat/SessionView';
import { NoModelNotice } from '@/components/models/NoModelNotice';
import { useFlows } from '@/components/state/FlowsProvider';
import { useWatched } from '@/components/state/hooks';
import { useUi } from '@/components/state/uiStore';
import { AppCommands } from '@/components/keyboard/AppCommands';

type StorageState = { status: 'checking' } | { status: 'ok' } | { status: 'unavailable'; message: string };

/** IndexedDB can be missing or refused (private windows, disabled site data): say so instead of showing a blank page. */
function useStorageCheck(): StorageState {
  const [state, setState] = useState<StorageState>({ status: 'checking' });
  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        await openDatabase();
        if (!cancelled) setState({ status: 'ok' });
      } catch (err) {
        if (!cancelled) setState({ status: 'unavailable', message: errorMessage(err) });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, []);
  return state;
}

export function AppShell() {
  const flows = useFlows();
  const storage = useStorageCheck();
  const { sessionId, openHash } = useUi();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const sessionRow = useWatched<SessionRow | undefined>((cb) => watchSessionRow(sessionId ?? '', cb), [sessionId], undefined);

  useEffect(() => {
    if (storage.status !== 'ok') return;
    let cancelled = false;
    void flows.checkStorageHealth(() => cancelled);
    return () => {
      cancelled = true;
    };
  }, [flows, storage.status]);

  // The URL hash names the open session, so reload and back/forward reopen it.
  useEffect(() => {
    const sync = () => openHash(window.location.hash);
    sync();
    window.addEventListener('hashchange', sync);
    return () => window.removeEventListener('hashchange', sync);
  }, [openHash]);

  if (storage.status === 'checking') return <div className="fullpage-message muted">Opening your sessions…</div>;
  if (storage.status === 'unavailable')
    return (
      <div className="fullpage-message" role="alert">
        <h1>Storage is not available</h1>
        <p>{storage.message}</p>
        <p className="muted">
          Longctx keeps every session in this browser (IndexedDB). Open the app in a normal window, or allow site data for this address, then
          reload.
        </p>
      </div>
    );

  return (
    <div className="shell">
      <aside className="sidebar-wrap" aria-label="Session list">
        <SessionSidebar>
          <AppCommands />
          <ImportControls />
          <button type="button" className="btn" onClick={() => void flows.exportEverything()}>
            Back up all sessions
          </button>
          <button type="button" className="btn" onClick={() => setSettingsOpen(true)}>
            Settings
          </button>
        </SessionSidebar>
        <SettingsDialog open={settingsOpen} onClose={() => setSettingsOpen(false)} session={sessionRow ?? null} />
      </aside>
      <div className="main">
        <NoModelNotice />
        {sessionId ? <SessionView key={sessionId} sessionId={sessionId} /> : <Welcome />}
      </div>
      {/* Outside the sidebar: it opens from the main area too (the "no model" notice), whatever the layout hides. */}
      <ProvidersDialog />
    </div>
  );
}

function Welcome() {
  return (
    <div className="fullpage-message">
      <h1>Longctx</h1>
      <p>Long conversations with language models, kept usable by compaction: older history becomes a structured summary you can inspect, regenerate or undo, while the originals stay.</p>
      <ul>
        <li>Start a new session, or import one (pi, Claude Code, ChatGPT, LibreChat, SWE-agent, or this app’s own JSONL).</li>
        <li>Every session is a tree: edit a message to branch, and summarise the branch you leave.</li>
        <li>Everything stays in this browser.</li>
      </ul>
    </div>
  );
}
