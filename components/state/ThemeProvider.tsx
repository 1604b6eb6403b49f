'use client';

import { createContext, useContext, useEffect, useSyncExternalStore } from 'react';
import { applyThemePreference, readThemeCookie, saveThemePreference } from '@/lib/browser/theme';
import type { ThemePreference } from '@/lib/settings/theme';

interface ThemeState {
  preference: ThemePreference;
  setPreference: (pref: ThemePreference) => void;
}

const ThemeContext = createContext<ThemeState | null>(null);

const listeners = new Set<() => void>();
const subscribe = (onChange: () => void) => {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
};

function setPreference(pref: ThemePreference) {
  saveThemePreference(pref);
  for (const l of listeners) l();
}

/**
 * The theme preference lives in its cookie. The server rendered the page from
 * the same cookie (`initial`), so hydration matches; a page served from a
 * cache may carry an older choice, and the cookie wins right after.
 */
export function ThemeProvider({ initial, children }: { initial: ThemePreference; children: React.ReactNode }) {
  const preference = useSyncExternalStore(subscribe, readThemeCookie, () => initial);
  useEffect(() => applyThemePreference(preference), [preference]);
  return <ThemeContext.Provider value={{ preference, setPreference }}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeState {
  const theme = useContext(ThemeContext);
  if (!theme) throw new Error('useTheme outside ThemeProvider');
  return theme;
}
