'use client';

import '@/components/common/common.css';
import './app.css';
import { DatabaseBackup, Settings } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
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
import { AppCommands } from '@/components/keyboard/AppCommands';
import { NARROW_QUERY, useMediaQuery } from '@/components/state/useMediaQuery';
import { useUi } from '@/components/state/uiStore';
import { ThemeToggle } from './ThemeToggle';
import { Welcome } from './Welcome';

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

/**
 * On a phone the session list is a drawer over the chat: while it is open the
 * chat behind is inert, Escape or a tap outside closes it, and focus goes back
 * to where it was (the "Sessions" button).
 */
function useDrawer(narrow: boolean, drawer: React.RefObject<HTMLElement | null>) {
  const open = useUi((s) => s.drawerOpen) && narrow;
  const setOpen = useUi((s) => s.setDrawerOpen);
  useEffect(() => {
    if (!open) return;
    const drawerEl = drawer.current;
    drawerEl?.querySelector<HTMLElement>('[data-drawer-start]')?.focus();
    const onKey = (e: KeyboardEvent) => {
      // A dialog opened from the drawer (Settings, Delete) handles its own Escape.
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('dialog[open]')) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      // Focus left in the closed drawer (or dropped to the page) goes back to the button that opens it; focus
      // something else already took (the composer of a session just picked) stays there.
      requestAnimationFrame(() => {
        const active = document.activeElement;
        if (!active || active === document.body || drawerEl?.contains(active)) document.querySelector<HTMLElement>('.main [aria-controls="session-drawer"]')?.focus();
      });
    };
  }, [open, drawer, setOpen]);
  return open;
}

/** Settings for the open session: its row is watched here, so a write to the session (each saved chunk of a reply) renders this dialog only, not the shell. */
function SessionSettingsDialog({ sessionId, open, onClose }: { sessionId: string | null; open: boolean; onClose: () => void }) {
  const sessionRow = useWatched<SessionRow | undefined>((cb) => watchSessionRow(sessionId ?? '', cb), [sessionId], undefined);
  return <SettingsDialog open={open} onClose={onClose} session={sessionRow ?? null} />;
}

export function AppShell() {
  const flows = useFlows();
  const storage = useStorageCheck();
  // Narrow selectors: the store also holds every draft, and the whole shell must not render again on each keystroke.
  const sessionId = useUi((s) => s.sessionId);
  const openHash = useUi((s) => s.openHash);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const narrow = useMediaQuery(NARROW_QUERY);
  const drawerRef = useRef<HTMLElement>(null);
  const drawerOpen = useDrawer(narrow, drawerRef);
  const setDrawerOpen = useUi((s) => s.setDrawerOpen);
  const closeDrawer = () => setDrawerOpen(false);

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
    <div className="shell" data-drawer={drawerOpen ? 'open' : 'closed'}>
      <aside ref={drawerRef} id="session-drawer" className="sidebar-wrap" aria-label="Session list" inert={narrow && !drawerOpen}>
        <SessionSidebar
          onCloseDrawer={narrow ? closeDrawer : undefined}
          footer={
            <>
              <AppCommands />
              <ImportControls />
              <button type="button" className="btn ghost block" onClick={() => void flows.exportEverything()}>
                <DatabaseBackup aria-hidden="true" className="icon" />
                Back up all sessions
              </button>
              <div className="sidebar-footer-row">
                <button type="button" className="btn ghost" onClick={() => setSettingsOpen(true)}>
                  <Settings aria-hidden="true" className="icon" />
                  Settings
                </button>
                <ThemeToggle />
              </div>
            </>
          }
        />
      </aside>
      {/* A tap outside the drawer closes it; keyboard users have Escape and the drawer's close button. */}
      <div className="drawer-backdrop" aria-hidden="true" onClick={closeDrawer} />
      <main className="main" inert={narrow && drawerOpen}>
        <NoModelNotice />
        {sessionId ? <SessionView key={sessionId} sessionId={sessionId} /> : <Welcome />}
      </main>
      <SessionSettingsDialog sessionId={sessionId} open={settingsOpen} onClose={() => setSettingsOpen(false)} />
      {/* Outside the sidebar: it opens from the main area too (the "no model" notice), whatever the layout hides. */}
      <ProvidersDialog />
    </div>
  );
}
