'use client';

import { GitBranch, HardDrive, Layers, MessageSquarePlus } from 'lucide-react';
import { DrawerToggle } from '@/components/sessions/DrawerToggle';
import { useNewSession } from '@/components/sessions/useNewSession';

const POINTS = [
  { icon: Layers, title: 'Compaction', text: 'When the context fills, older turns become a structured summary you can inspect, regenerate or undo. The originals stay.' },
  { icon: GitBranch, title: 'Branches', text: 'Every session is a tree: edit a message to branch, and take a summary of the branch you leave with you.' },
  { icon: HardDrive, title: 'In this browser', text: 'Sessions live here, not on a server. Import from pi, Claude Code, ChatGPT, LibreChat or SWE-agent; export any time.' },
];

/** What the app shows with no session open. */
export function Welcome() {
  const newSession = useNewSession();
  return (
    <div className="welcome">
      <header className="topbar welcome-bar">
        <DrawerToggle />
        <span className="brand-name">Longctx</span>
      </header>
      <div className="welcome-body">
        <div className="brand-mark" aria-hidden="true">
          <Layers className="icon" />
        </div>
        <h1>Long conversations, kept usable</h1>
        <p className="welcome-lead">Chat with any model for as long as you need. Longctx compacts what the model no longer needs to see word for word, and keeps everything.</p>
        <button type="button" className="btn primary welcome-cta" onClick={() => void newSession()}>
          <MessageSquarePlus aria-hidden="true" className="icon" />
          Start a conversation
        </button>
        <ul className="welcome-points">
          {POINTS.map(({ icon: Icon, title, text }) => (
            <li key={title}>
              <Icon aria-hidden="true" className="icon" />
              <div>
                <strong>{title}</strong>
                <p>{text}</p>
              </div>
            </li>
          ))}
        </ul>
        <p className="muted small welcome-hint">Drop a transcript anywhere on the page to import it.</p>
      </div>
    </div>
  );
}
