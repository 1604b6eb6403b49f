'use client';

import { createContext, useContext, useEffect, useState } from 'react';
import { toast } from 'sonner';
import { createBrowserPorts } from '@/lib/browser/ports';
import { AppFlows } from '@/lib/flows/app';
import type { Notifier } from '@/lib/flows/ports';

/** Toasts for what the flows tell the user. */
const toastNotifier: Notifier = {
  success: (m) => toast.success(m),
  info: (m, o) => toast.info(m, { ...(o?.durationMs ? { duration: o.durationMs } : {}), ...(o?.action ? { action: { label: o.action.label, onClick: o.action.run } } : {}) }),
  warning: (m, o) => toast.warning(m, { ...(o?.durationMs ? { duration: o.durationMs } : {}), ...(o?.action ? { action: { label: o.action.label, onClick: o.action.run } } : {}) }),
  error: (m) => toast.error(m),
};

const FlowsContext = createContext<AppFlows | null>(null);

/** The one place the app's flows meet the browser: created once per page. */
export function FlowsProvider({ children }: { children: React.ReactNode }) {
  const [flows] = useState(() => new AppFlows(createBrowserPorts(toastNotifier)));
  // Background sync with the user's other devices starts with the page (it idles until a space is joined).
  useEffect(() => flows.sync?.start(), [flows]);
  return <FlowsContext.Provider value={flows}>{children}</FlowsContext.Provider>;
}

export function useFlows(): AppFlows {
  const flows = useContext(FlowsContext);
  if (!flows) throw new Error('useFlows outside FlowsProvider');
  return flows;
}
