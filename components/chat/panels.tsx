'use client';

import { History, ListTree, type LucideIcon } from 'lucide-react';
import type { SessionFlows } from '@/lib/flows/app';
import type { LiveSessionState } from '@/lib/flows/liveSession';
import type { SessionContext } from '@/lib/session/context';
import type { EntryId } from '@/lib/session/types';
import { TimelinePanel } from '@/components/timeline/TimelinePanel';
import { TreePanel } from '@/components/tree/TreePanel';

/** What every side panel is given. */
export interface PanelProps {
  session: SessionFlows;
  state: LiveSessionState;
  context: SessionContext;
  labels: Map<EntryId, string>;
  busy: boolean;
  onJumpTo: (id: EntryId) => void;
  /** "Continue in new session" from this entry. */
  onContinue: (id: EntryId) => void;
}

export interface PanelDef {
  id: string;
  /** The toggle button's name in the session header. */
  label: string;
  /** The toggle button's icon. */
  icon: LucideIcon;
  /** The panel's heading. */
  title: string;
  /** Extra class on the panel body. */
  bodyClass?: string;
  render: (p: PanelProps) => React.ReactNode;
}

/** The side panels, in header order. A new panel is one entry here. */
export const PANELS: readonly PanelDef[] = [
  {
    id: 'tree',
    label: 'Tree',
    icon: ListTree,
    title: 'Session tree',
    bodyClass: 'tree-body',
    render: (p) => <TreePanel session={p.session} context={p.context} labels={p.labels} busy={p.busy} onContinue={p.onContinue} />,
  },
  {
    id: 'timeline',
    label: 'Timeline',
    icon: History,
    title: 'Timeline',
    render: (p) => <TimelinePanel session={p.session} tree={p.state.tree} version={p.state.version} context={p.context} busy={p.busy} onJumpTo={p.onJumpTo} />,
  },
];
