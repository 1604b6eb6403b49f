'use client';

import { useSyncExternalStore } from 'react';
import { isApplePlatform } from '@/lib/keyboard/shortcuts';

const never = () => () => {};

function readMac(): boolean {
  const nav = navigator as Navigator & { userAgentData?: { platform?: string } };
  return isApplePlatform(nav.userAgentData?.platform || nav.platform || '');
}

/** Whether shortcuts are written and pressed with ⌘ (Apple) or Ctrl (everything else). */
export function useIsMac(): boolean {
  return useSyncExternalStore(never, readMac, () => false);
}
