/**
 * The colour theme the user picked. "system" follows the operating system
 * (prefers-color-scheme); "light" and "dark" pin one. The choice is kept in a
 * cookie so the server can render the page in it: the first paint is already
 * right, with no script run before it (the page's CSP allows only nonce'd
 * scripts) and no flash of the other theme.
 */

export type ThemePreference = 'system' | 'light' | 'dark';

export const THEME_PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];

export const THEME_COOKIE = 'longctx-theme';

/** A stored value (anything: a cookie can be edited by hand) as a preference; unknown values mean "system". */
export function readThemePreference(raw: unknown): ThemePreference {
  return typeof raw === 'string' && (THEME_PREFERENCES as readonly string[]).includes(raw) ? (raw as ThemePreference) : 'system';
}

/** The value of the theme cookie in a `Cookie` header or `document.cookie` string. */
export function themeFromCookies(cookieHeader: string | null | undefined): ThemePreference {
  if (!cookieHeader) return 'system';
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === THEME_COOKIE) return readThemePreference(part.slice(eq + 1).trim());
  }
  return 'system';
}

/** The Set-Cookie / document.cookie text that stores a preference for a year, for every path of this site. */
export function themeCookie(pref: ThemePreference): string {
  return `${THEME_COOKIE}=${pref}; Path=/; Max-Age=31536000; SameSite=Lax`;
}

/** The `data-theme` attribute for <html>: none for "system", so the media query decides. */
export function themeAttribute(pref: ThemePreference): 'light' | 'dark' | undefined {
  return pref === 'system' ? undefined : pref;
}
