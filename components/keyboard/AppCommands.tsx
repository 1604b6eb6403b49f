'use client';

import { Keyboard, Search } from 'lucide-react';
import { useEffect, useState } from 'react';
import { ariaKeyShortcuts, matchShortcuts, shortcutLabel, type ShortcutId } from '@/lib/keyboard/shortcuts';
import { useFlows } from '@/components/state/FlowsProvider';
import { useUi } from '@/components/state/uiStore';
import { SearchDialog } from '@/components/search/SearchDialog';
import { focusComposer } from '@/components/state/composerFocus';
import { runCommand } from './commands';
import { ShortcutsDialog } from './ShortcutsDialog';
import { useIsMac } from './usePlatform';

const isTextField = (el: Element | null) =>
  el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'range', 'file'].includes(el.type)) || (el instanceof HTMLElement && el.isContentEditable);

/**
 * The app-wide keyboard: one key handler for every shortcut in
 * lib/keyboard/shortcuts.ts, the Search and Keyboard shortcuts buttons, and
 * their dialogs. Actions that belong to the open session run through the
 * command registry (commands.ts) or the UI store.
 */
export function AppCommands() {
  const flows = useFlows();
  const mac = useIsMac();
  const [searchOpen, setSearchOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);

  useEffect(() => {
    const togglePanel = (id: 'tree' | 'timeline') => {
      const ui = useUi.getState();
      if (!ui.sessionId) return false;
      ui.setSidePanel(ui.sidePanel === id ? null : id);
      return true;
    };

    const perform = (id: ShortcutId, e: KeyboardEvent): boolean => {
      const ui = useUi.getState();
      const target = e.target instanceof Element ? e.target : null;
      switch (id) {
        case 'newSession':
          ui.newSession();
          // The session view focuses its message box when it mounts; an already open draft is focused here.
          requestAnimationFrame(() => focusComposer());
          return true;
        case 'search':
          setHelpOpen(false);
          setSearchOpen(true);
          return true;
        case 'showShortcuts':
          setSearchOpen(false);
          setHelpOpen(true);
          return true;
        case 'focusComposer':
          return focusComposer();
        case 'toggleTree':
          return togglePanel('tree');
        case 'toggleTimeline':
          return togglePanel('timeline');
        case 'compact':
          return runCommand('compact');
        case 'stop': {
          // From inside a side panel Esc closes the panel, whatever streams.
          if (!ui.sessionId || target?.closest('[data-side-panel]')) return false;
          if (!flows.runs.get(ui.sessionId)) return false;
          flows.session(ui.sessionId).stop();
          return true;
        }
        case 'closePanel':
          if (!ui.sidePanel) return false;
          ui.setSidePanel(null);
          return true;
      }
    };

    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing || e.repeat) return;
      const target = e.target instanceof Element ? e.target : null;
      // An open dialog owns the keyboard: Esc closes it (the browser's), shortcuts wait.
      if (document.querySelector('dialog[open]')) return;
      for (const id of matchShortcuts(e, { mac, inText: isTextField(target) }))
        if (perform(id, e)) {
          e.preventDefault();
          return;
        }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [flows, mac]);

  return (
    <>
      <button type="button" className="btn ghost block" aria-keyshortcuts={ariaKeyShortcuts('search', mac)} title={shortcutLabel('search', mac)} onClick={() => setSearchOpen(true)}>
        <Search aria-hidden="true" className="icon" />
        Search messages
      </button>
      <button type="button" className="btn ghost block" aria-keyshortcuts={ariaKeyShortcuts('showShortcuts', mac)} title="?" onClick={() => setHelpOpen(true)}>
        <Keyboard aria-hidden="true" className="icon" />
        Keyboard shortcuts
      </button>
      <SearchDialog open={searchOpen} onClose={() => setSearchOpen(false)} />
      <ShortcutsDialog open={helpOpen} mac={mac} onClose={() => setHelpOpen(false)} />
    </>
  );
}
