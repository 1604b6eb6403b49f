'use client';

import { PanelLeft } from 'lucide-react';
import { IconButton } from '@/components/common/IconButton';
import { useUi } from '@/components/state/uiStore';

/** Opens the session list on a phone, where it is a drawer; hidden on wide screens, where the list is always there. */
export function DrawerToggle() {
  const open = useUi((s) => s.drawerOpen);
  const setOpen = useUi((s) => s.setDrawerOpen);
  return <IconButton icon={PanelLeft} label="Sessions" className="drawer-toggle" aria-expanded={open} aria-controls="session-drawer" onClick={() => setOpen(!open)} />;
}
