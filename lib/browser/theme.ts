import { themeAttribute, themeCookie, themeFromCookies, type ThemePreference } from '@/lib/settings/theme';

/**
 * The theme preference in the browser: a cookie (so the server renders the
 * next page load in it) and the `data-theme` attribute on <html> (so this
 * page switches at once).
 */

export function readThemeCookie(): ThemePreference {
  try {
    return themeFromCookies(document.cookie);
  } catch {
    return 'system'; // cookies disabled
  }
}

export function saveThemePreference(pref: ThemePreference) {
  try {
    document.cookie = themeCookie(pref);
  } catch {
    // Cookies disabled: the choice still applies to this page, it just is not remembered.
  }
  applyThemePreference(pref);
}

export function applyThemePreference(pref: ThemePreference) {
  const attr = themeAttribute(pref);
  if (attr) document.documentElement.dataset.theme = attr;
  else delete document.documentElement.dataset.theme;
}
